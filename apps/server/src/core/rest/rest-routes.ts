/** Area B's own routes (`/api/auth/*`) keep their shapes; every other HTTP route is Qdrant's API. */
export const AUTH_ROUTES_PREFIX = '/api/auth';

/** Express routes ignore case, so this does too: `/API/AUTH/login` reaches the same handler. */
export function isAuthRoute(path: string): boolean {
  const lower = path.toLowerCase();
  return lower === AUTH_ROUTES_PREFIX || lower.startsWith(`${AUTH_ROUTES_PREFIX}/`);
}
