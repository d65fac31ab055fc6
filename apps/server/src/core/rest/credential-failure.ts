import type { Request } from 'express';

const FAILURE = Symbol('credentialFailure');
const VERIFIED = Symbol('verifiedPrincipal');

type WithFailure = Request & { [FAILURE]?: unknown; [VERIFIED]?: unknown };

/**
 * The body middleware verifies the caller's credential before any route runs; when that fails it
 * keeps the error here, so that an unknown URL can be answered 401 like a known one (Qdrant's auth
 * middleware runs before routing: only the open routes answer without a key).
 */
export function rememberCredentialFailure(request: Request, error: unknown): void {
  (request as WithFailure)[FAILURE] = error;
}

export function credentialFailureOf(request: Request): unknown {
  return (request as WithFailure)[FAILURE];
}

/**
 * The body middleware verified the caller's credential: the guard takes this principal instead of verifying the
 * same credential again (a second signature check per request, through passport).
 */
export function rememberVerifiedPrincipal(request: Request, principal: unknown): void {
  (request as WithFailure)[VERIFIED] = principal;
}

export function verifiedPrincipalOf(request: Request): unknown {
  return (request as WithFailure)[VERIFIED];
}
