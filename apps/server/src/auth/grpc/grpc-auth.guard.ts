import type { Metadata } from '@grpc/grpc-js';
import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { assertAccess, CredentialVerifier, IS_PUBLIC_KEY, OPERATION_KEY, requiredAccess } from '@vectorstore/auth';
import { credentialFromMetadata } from './credential-from-metadata';

/**
 * Global gRPC guard, for every method at `/vectorstore.*` and `/qdrant.*`: a credential is
 * required unless the handler is `@Public()` (the health checks). Failures are DomainErrors, so
 * the global filter answers UNAUTHENTICATED (16) or PERMISSION_DENIED (7), never UNKNOWN.
 * The access needed comes from the handler's `@Operation`, as on HTTP; a handler without one needs manage.
 */
@Injectable()
export class GrpcAuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: CredentialVerifier,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'rpc') return true;
    const targets = [context.getHandler(), context.getClass()];
    const requirement = requiredAccess({
      isPublic: this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, targets) ?? false,
      operation: this.reflector.get<unknown>(OPERATION_KEY, context.getHandler()),
    });
    if (requirement === 'public') return true;
    const principal = await this.verifier.verify(credentialFromMetadata(context.switchToRpc().getContext<Metadata>()));
    assertAccess(principal.access, requirement);
    return true;
  }
}
