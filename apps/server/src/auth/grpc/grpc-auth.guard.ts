import type { Metadata } from '@grpc/grpc-js';
import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  AccessRequirement,
  assertAccess,
  CredentialVerifier,
  IS_PUBLIC_KEY,
  OPERATION_KEY,
  requiredAccess,
} from '@vectorstore/auth';
import { credentialFromMetadata } from './credential-from-metadata';

/**
 * Global gRPC guard, for every method at `/vectorstore.*` and `/qdrant.*`: a credential is
 * required unless the handler is `@Public()` (the health checks). Failures are DomainErrors, so
 * the global filter answers UNAUTHENTICATED (16) or PERMISSION_DENIED (7), never UNKNOWN.
 * The access needed comes from the handler's `@Operation`, as on HTTP; a handler without one needs manage.
 */
@Injectable()
export class GrpcAuthGuard implements CanActivate {
  /** Each handler's requirement, read from its decorators once: metadata lookups cost on every call. */
  private readonly requirements = new WeakMap<object, AccessRequirement>();

  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: CredentialVerifier,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'rpc') return true;
    const requirement = this.requirementOf(context);
    if (requirement === 'public') return true;
    const principal = await this.verifier.verify(credentialFromMetadata(context.switchToRpc().getContext<Metadata>()));
    assertAccess(principal.access, requirement);
    return true;
  }

  private requirementOf(context: ExecutionContext): AccessRequirement {
    const handler = context.getHandler();
    let requirement = this.requirements.get(handler);
    if (requirement === undefined) {
      requirement = requiredAccess({
        isPublic: this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, [handler, context.getClass()]) ?? false,
        operation: this.reflector.get<unknown>(OPERATION_KEY, handler),
      });
      this.requirements.set(handler, requirement);
    }
    return requirement;
  }
}
