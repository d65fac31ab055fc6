import type { Metadata } from '@grpc/grpc-js';
import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { PATTERN_METADATA } from '@nestjs/microservices/constants';
import {
  assertAccess,
  CredentialVerifier,
  IS_PUBLIC_KEY,
  operationOfGrpcPath,
  REQUIRED_ACCESS_KEY,
  requiredAccess,
  RequiredAccess,
} from '@vectorstore/auth';
import { credentialFromMetadata } from './credential-from-metadata';

interface GrpcPattern {
  service?: string;
  rpc?: string;
}

/**
 * Global gRPC guard, for every method at `/vectorstore.*` and `/qdrant.*`: a credential is
 * required unless the handler is `@Public()` (the health checks). Failures are DomainErrors, so
 * the global filter answers UNAUTHENTICATED (16) or PERMISSION_DENIED (7), never UNKNOWN.
 * Writes need manage access by decorator or, failing closed, by the list of write operations.
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
      declared: this.reflector.getAllAndOverride<RequiredAccess>(REQUIRED_ACCESS_KEY, targets),
      operations: operationsOf(context),
    });
    if (requirement === 'public') return true;
    const principal = await this.verifier.verify(credentialFromMetadata(context.switchToRpc().getContext<Metadata>()));
    assertAccess(principal.access, requirement);
    return true;
  }
}

/** `Service/Method` of the call being served, from its path and from the handler's @GrpcMethod. */
function operationsOf(context: ExecutionContext): string[] {
  const operations: string[] = [];
  const call = context.getArgByIndex<{ getPath?: () => string } | undefined>(2);
  const fromPath = typeof call?.getPath === 'function' ? operationOfGrpcPath(call.getPath()) : undefined;
  if (fromPath) operations.push(fromPath);
  const patterns = (Reflect.getMetadata(PATTERN_METADATA, context.getHandler()) ?? []) as GrpcPattern[];
  for (const pattern of patterns) {
    if (pattern.service && pattern.rpc) operations.push(`${pattern.service.split('.').pop()}/${pattern.rpc}`);
  }
  return operations;
}
