import type { Response } from 'express';

/**
 * The one Trusted Types policy the page may create: it turns exactly the vector map's worker URL
 * (`/dashboard/map-worker.js`, same origin) into a TrustedScriptURL for `new Worker()`, and throws for anything else
 * (apps/dashboard/src/ui/umap-runner.ts).
 */
export const DASHBOARD_WORKER_POLICY = 'vectorstore-worker';

/**
 * The Content-Security-Policy of the dashboard's routes: scripts, workers, styles and API calls from this origin
 * only, no inline script or style, no plugins, frames or form posts, and Trusted Types so that no string can reach
 * an HTML or script sink (the dashboard renders everything through DOM text nodes; its one policy only names the
 * map's worker).
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  `trusted-types ${DASHBOARD_WORKER_POLICY}`,
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
