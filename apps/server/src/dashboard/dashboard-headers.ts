import type { Response } from 'express';

/**
 * The Content-Security-Policy of the dashboard's routes: scripts, styles and API calls from this origin only, no
 * inline script or style, no plugins, frames or form posts, and Trusted Types so that no string can reach an
 * HTML sink (the dashboard renders everything through DOM text nodes).
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

/** Security headers on every dashboard answer, the 404s included. */
export function setDashboardHeaders(response: Response): void {
  response.setHeader('Content-Security-Policy', DASHBOARD_CSP);
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.setHeader('X-Frame-Options', 'DENY');
  response.setHeader('Referrer-Policy', 'no-referrer');
  response.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  response.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
}
