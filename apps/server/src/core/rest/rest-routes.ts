/** Area B's own routes (`/api/auth/*`) keep their shapes; every other HTTP route is Qdrant's API. */
export const AUTH_ROUTES_PREFIX = '/api/auth';

export function isAuthRoute(path: string): boolean {
  return path === AUTH_ROUTES_PREFIX || path.startsWith(`${AUTH_ROUTES_PREFIX}/`);
}
