import type { Request } from 'express';

const FAILURE = Symbol('credentialFailure');

type WithFailure = Request & { [FAILURE]?: unknown };

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
