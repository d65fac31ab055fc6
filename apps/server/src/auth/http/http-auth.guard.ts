import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import {
  AuthErrors,
  checkAccess,
  CredentialVerifier,
  IS_PUBLIC_KEY,
  needsCollections,
  Principal,
  OPERATION_KEY,
  requiredAccess,
} from '@vectorstore/auth';
import { CollectionCatalog } from '@vectorstore/collections';
import { verifiedPrincipalOf } from '../../core/rest/credential-failure';
import { collectionsNamedIn } from '../request-collections';
import { ErrorKind, isDomainError } from '@vectorstore/common';
import type { Request, Response } from 'express';
import { bearerChallenge } from './bearer-challenge';
import { credentialFromRequest } from './credential-from-request';

/**
 * Global HTTP guard: every route needs a credential unless `@Public()`. API keys are compared
 * first (constant time); anything else goes through passport-jwt. A 401 carries
 * `WWW-Authenticate: Bearer`; too little access is 403.
 */
@Injectable()
export class HttpAuthGuard extends AuthGuard('jwt') {
  constructor(
    private readonly reflector: Reflector,
    private readonly verifier: CredentialVerifier,
    private readonly catalog: CollectionCatalog,
  ) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const targets = [context.getHandler(), context.getClass()];
    const requirement = requiredAccess({
      isPublic: this.reflector.getAllAndOverride<boolean>(IS_PUBLIC_KEY, targets) ?? false,
      operation: this.reflector.get<unknown>(OPERATION_KEY, context.getHandler()),
    });
    if (requirement === 'public') return true;
    const request = context.switchToHttp().getRequest<Request & { user?: Principal }>();
    try {
      const credential = credentialFromRequest(request);
      if (credential === null) throw AuthErrors.missingCredential();
      const verified = verifiedPrincipalOf(request) as Principal | undefined;
      const keyPrincipal = verified ? undefined : this.verifier.matchApiKey(credential);
      if (verified) {
        request.user = verified;
      } else if (keyPrincipal) {
        request.user = keyPrincipal;
      } else {
        await super.canActivate(context);
      }
      const principal = request.user as Principal;
      // Per-collection access: the collection of the path and those the body's lookups read from, an alias
      // standing for its collection (a refusal names it as asked).
      const collections = needsCollections(principal.access, requirement)
        ? [
            ...new Set(
              [request.params?.collection_name, ...collectionsNamedIn(request.body)].filter(
                (name): name is string => typeof name === 'string' && name !== '',
              ),
            ),
          ].map((asked) => ({ asked, collection: this.catalog.resolve(asked)?.name ?? asked }))
        : [];
      checkAccess(principal.access, requirement, collections);
      return true;
    } catch (error) {
      if (isDomainError(error) && error.kind === ErrorKind.Unauthenticated) {
        context.switchToHttp().getResponse<Response>().setHeader('WWW-Authenticate', bearerChallenge(error.message));
      }
      throw error;
    }
  }

  /** passport's outcome: the principal, or Unauthenticated (never passport's own 401 or a 500). */
  override handleRequest<TUser = Principal>(error: unknown, user: unknown, info: unknown): TUser {
    if (isDomainError(error)) throw error;
    if (error || !user) {
      const expired = info instanceof Error && info.name === 'TokenExpiredError';
      throw expired ? AuthErrors.invalidCredential('token expired') : AuthErrors.invalidCredential();
    }
    return user as TUser;
  }
}
