import type { Request } from 'express';

/**
 * The credential of an HTTP request, where Qdrant's clients put it: the `api-key` header first,
 * else `Authorization: Bearer <token>`. Either may hold an API key or an access token.
 */
export function credentialFromRequest(request: Request): string | null {
  const apiKey = request.headers['api-key'];
  if (typeof apiKey === 'string' && apiKey !== '') return apiKey;
  const authorization = request.headers.authorization;
  const match = typeof authorization === 'string' ? /^Bearer +(\S+) *$/i.exec(authorization) : null;
  return match ? match[1] : null;
}
