import type { Metadata } from '@grpc/grpc-js';
import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  AccessRequirement,
  checkAccess,
  CredentialVerifier,
  IS_PUBLIC_KEY,
  needsCollections,
  OPERATION_KEY,
  requiredAccess,
} from '@vectorstore/auth';
import { CollectionCatalog } from '@vectorstore/collections';
import { collectionsNamedIn } from '../request-collections';
import { rememberPrincipal } from '../request-principal';
import { credentialFromMetadata } from './credential-from-metadata';

/**
 * Global gRPC guard, for every method at `/vectorstore.*` and `/qdrant.*`: a credential is
 * required unless the handler is `@Public()` (the health checks). Failures are DomainErrors, so
 * the global filter answers UNAUTHENTICATED (16) or PERMISSION_DENIED (7), never UNKNOWN.
 * The access needed comes from the handler's `@Operation`, as on HTTP; a handler without one needs manage.
 */
@Injectable()
export class GrpcAuthGuard implements CanActivate {
  /**
   * Each handler's requirement per controller class, read from its decorators once: metadata lookups cost on
   * every call. Keyed by class too, since an inherited handler is one function under classes that may differ
   * in `@Public`.
   */
  private readonly requirements = new WeakMap<object, WeakMap<object, AccessRequirement>>();

  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: CredentialVerifier,
    private readonly catalog: CollectionCatalog,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'rpc') return true;
    const requirement = this.requirementOf(context);
    if (requirement === 'public') return true;
    const principal = await this.verifier.verify(credentialFromMetadata(context.switchToRpc().getContext<Metadata>()));
    const request = context.switchToRpc().getData<unknown>();
    rememberPrincipal(request, principal);
    // Per-collection access: the collections the request names, an alias standing for its collection (a refusal
    // names it as asked).
    const collections = needsCollections(principal.access, requirement)
      ? collectionsNamedIn(request).map((asked) => ({ asked, collection: this.catalog.resolve(asked)?.name ?? asked }))
      : [];
    checkAccess(principal.access, requirement, collections);
    return true;
  }

  private requirementOf(context: ExecutionContext): AccessRequirement {
    const handler = context.getHandler();
    const controller = context.getClass();
    let byHandler = this.requirements.get(controller);
    if (byHandler === undefined) this.requirements.set(controller, (byHandler = new WeakMap()));
    let requirement = byHandler.get(handler);
    if (requirement === undefined) {
      requirement = requiredAccess({
        isPublic: this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, [handler, controller]) ?? false,
        operation: this.reflector.get<unknown>(OPERATION_KEY, handler),
      });
      byHandler.set(handler, requirement);
    }
    return requirement;
  }
}
