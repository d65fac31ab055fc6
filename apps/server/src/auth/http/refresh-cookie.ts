import type { CookieOptions, Request, Response } from 'express';
import type { CookieSecureMode } from '@vectorstore/config';
import { AUTH_ROUTES_PREFIX } from '../../core/rest/rest-routes';

/**
 * The refresh-token cookie, for browser clients such as the dashboard (docs/auth.md, "Refresh token in a cookie").
 *
 * A client opts in per request with the header `X-Vectorstore-Session: cookie`. Then login and refresh put the refresh
 * token in an HttpOnly, SameSite=Strict cookie scoped to `/api/auth` (Secure as VECTORSTORE_COOKIE_SECURE says) and leave
 * it out of the JSON answer, so page scripts never see it; refresh and logout read it from that cookie. Without the
 * header the cookie is neither set nor read, and the JSON-body behaviour is unchanged. Requiring a custom header
 * is the CSRF defence on top of SameSite: a cross-site form or image cannot send one, and a cross-site `fetch` with
 * one needs a CORS preflight that this server never grants.
 */
export const SESSION_HEADER = 'x-vectorstore-session';
export const SESSION_HEADER_COOKIE = 'cookie';
export const REFRESH_COOKIE_NAME = 'vectorstore_refresh';
/**
 * The name with VECTORSTORE_COOKIE_SECURE=always. Browsers accept a `__Secure-` cookie only with `Secure` from a
 * secure origin, so no plain-HTTP page on the same host (or a network attacker) can set or overwrite it.
 */
export const SECURE_REFRESH_COOKIE_NAME = `__Secure-${REFRESH_COOKIE_NAME}`;

/** Whether the request asks for the cookie scheme. */
export function wantsRefreshCookie(request: Request): boolean {
  const value = request.headers[SESSION_HEADER];
  return typeof value === 'string' && value.trim().toLowerCase() === SESSION_HEADER_COOKIE;
}

/**
 * Reads, sets and clears the refresh cookie. `mode` (VECTORSTORE_COOKIE_SECURE) decides `Secure`: `auto` when the
 * request itself came over TLS (the server sees the TCP connection; `trust proxy` is off, so a proxy's
 * `X-Forwarded-Proto` is not believed), `always` behind a TLS-terminating proxy, with the `__Secure-` name.
 */
export class RefreshCookie {
  readonly name: string;

  constructor(private readonly mode: CookieSecureMode) {
    this.name = mode === 'always' ? SECURE_REFRESH_COOKIE_NAME : REFRESH_COOKIE_NAME;
  }

  /** The refresh token in the request's cookie, or null. Parsed by hand: one cookie needs no parser dependency. */
  read(request: Request): string | null {
    const header = request.headers.cookie;
    if (typeof header !== 'string') return null;
    for (const part of header.split(';')) {
      const at = part.indexOf('=');
      if (at < 0 || part.slice(0, at).trim() !== this.name) continue;
      const value = part.slice(at + 1).trim();
      // Our tokens are base64url; anything else was not set by us.
      return /^[A-Za-z0-9_-]{1,512}$/.test(value) ? value : null;
    }
    return null;
  }

  /** Sets the cookie to `token` for `maxAgeSeconds` (the refresh token's lifetime). */
  set(request: Request, response: Response, token: string, maxAgeSeconds: number): void {
    response.cookie(this.name, token, { ...this.options(request), maxAge: maxAgeSeconds * 1000 });
  }

  /** Tells the browser to drop the cookie. */
  clear(request: Request, response: Response): void {
    response.clearCookie(this.name, this.options(request));
  }

  private options(request: Request): CookieOptions {
    const secure = this.mode === 'always' || request.secure;
    return { httpOnly: true, secure, sameSite: 'strict', path: AUTH_ROUTES_PREFIX };
  }
}
