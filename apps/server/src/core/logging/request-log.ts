import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';

/** The provider token of the HTTP request log (a pino-http middleware; its `logger` is the root logger). */
export const REQUEST_LOG = Symbol('REQUEST_LOG');

/** The HTTP request log: Express middleware, and the root logger it writes to. */
export interface RequestLog {
  (request: IncomingMessage, response: ServerResponse, next: () => void): void;
  logger: Logger;
}

/**
 * The HTTP request log and the server's root logger. It runs as plain Express middleware rather than
 * through nestjs-pino's, which wraps every request in an AsyncLocalStorage context: once used, that
 * storage makes Node track every promise of the process, gRPC calls included, for request-scoped log
 * bindings this server does not use.
 *
 * pino-http logs every request at info and failed ones (5xx) at error. Below info (the default is warn) only the
 * failed ones would be written, yet pino-http still built a child logger, a request id and serializers for every
 * request (~0.03 ms of CPU per REST call): then a lean middleware writes the same error line and nothing else.
 */
export function createRequestLog(level: string): RequestLog {
  const full = pinoHttp({
    level,
    // Health probes would drown the log.
    autoLogging: { ignore: (req) => /^\/(healthz|livez|readyz)$/.test(req.url ?? '') },
    redact: ['req.headers.authorization', 'req.headers["api-key"]', 'req.headers.cookie'],
  });
  if (full.logger.isLevelEnabled('info')) return full as unknown as RequestLog;
  const logger = full.logger;
  const lean = ((request: IncomingMessage, response: ServerResponse, next: () => void) => {
    if (logger.isLevelEnabled('error')) {
      const started = performance.now();
      response.once('finish', () => {
        if (response.statusCode < 500) return;
        logger.error(
          {
            req: { method: request.method, url: request.url },
            res: { statusCode: response.statusCode },
            responseTime: Math.round(performance.now() - started),
          },
          'request errored',
        );
      });
    }
    next();
  }) as RequestLog;
  lean.logger = logger;
  return lean;
}
