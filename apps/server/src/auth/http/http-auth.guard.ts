import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import {
  assertAccess,
  AuthErrors,
  CredentialVerifier,
  IS_PUBLIC_KEY,
  Principal,
  OPERATION_KEY,
  requiredAccess,
} from '@vectorstore/auth';
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
      const keyPrincipal = this.verifier.matchApiKey(credential);
      if (keyPrincipal) {
        request.user = keyPrincipal;
      } else {
        await super.canActivate(context);
      }
      assertAccess((request.user as Principal).access, requirement);
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
