import type { Principal } from '@vectorstore/auth';

/**
 * The principal a gRPC guard verified, by the request message it verified it for: a handler whose answer depends
 * on who asks (a list filtered to the granted collections) looks it up by the same message. HTTP handlers read
 * `request.user` instead.
 */
const principals = new WeakMap<object, Principal>();

export function rememberPrincipal(request: unknown, principal: Principal): void {
  if (typeof request === 'object' && request !== null) principals.set(request, principal);
}

export function principalOfMessage(request: unknown): Principal | undefined {
  return typeof request === 'object' && request !== null ? principals.get(request) : undefined;
}
