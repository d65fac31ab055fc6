import type { IncomingMessage } from 'node:http';
import { pinoHttp, type HttpLogger } from 'pino-http';

/** The provider token of the HTTP request log (a pino-http middleware; its `logger` is the root logger). */
export const REQUEST_LOG = Symbol('REQUEST_LOG');

/**
 * The HTTP request log and the server's root logger. It runs as plain Express middleware rather than
 * through nestjs-pino's, which wraps every request in an AsyncLocalStorage context: once used, that
 * storage makes Node track every promise of the process, gRPC calls included, for request-scoped log
 * bindings this server does not use.
 */
export function createRequestLog(level: string): HttpLogger<IncomingMessage> {
  return pinoHttp({
    level,
    // Health probes would drown the log.
    autoLogging: { ignore: (req) => /^\/(healthz|livez|readyz)$/.test(req.url ?? '') },
    redact: ['req.headers.authorization', 'req.headers["api-key"]', 'req.headers.cookie'],
  });
}
