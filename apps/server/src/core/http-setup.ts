import { HttpException } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { json } from 'express';
import { normalisePathMiddleware, restBodyMiddleware } from './rest/rest-body.middleware';
import { isAuthRoute } from './rest/rest-routes';
import { RequestMetrics } from './metrics/request-metrics';
import { requestMetricsMiddleware } from './metrics/request-metrics.middleware';

/** Largest JSON request body accepted on the `/api/auth` routes; larger ones get 413. */
export const JSON_BODY_LIMIT = '1mb';

/**
 * HTTP setup. Paths are normalised as Qdrant does. Qdrant's API reads bodies as Qdrant does (see
 * {@link restBodyMiddleware}). The `/api/auth` routes take JSON bodies of at most {@link JSON_BODY_LIMIT}; parser failures become 4xx
 * answers in the usual `{status: {error}}` shape (Nest would answer an oversized body with 500).
 * `trust proxy` stays off, so the client address used for login throttling is the socket's,
 * not a spoofable `X-Forwarded-For`. Call before `listen` on an app created with `bodyParser: false`.
 */
export function configureHttp(app: NestExpressApplication): void {
  app.set('trust proxy', false);
  app.disable('x-powered-by');
  app.use(normalisePathMiddleware);
  app.use(requestMetricsMiddleware(app.get(RequestMetrics)));
  app.use(bodyByRoute);
  app.use(bodyParserErrors);
}

const authJson = json({ limit: JSON_BODY_LIMIT });

/** A snapshot upload is multipart and may be large: its route streams it to disk itself. */
const isSnapshotUpload = (request: Request): boolean =>
  request.method === 'POST' && /^\/collections\/[^/]+\/snapshots\/upload$/.test(request.path);

const bodyByRoute: RequestHandler = (request, response, next) => {
  if (isSnapshotUpload(request)) next();
  else if (isAuthRoute(request.path)) authJson(request, response, next);
  else restBodyMiddleware(request, response, next);
};

const bodyParserErrors: ErrorRequestHandler = (error: unknown, _request, _response, next) => {
  const { status, type, message } = (error ?? {}) as { status?: unknown; type?: unknown; message?: unknown };
  if (typeof status !== 'number' || status < 400 || status > 499) {
    next(error);
    return;
  }
  const text =
    type === 'entity.too.large'
      ? `Payload too large: request bodies are limited to ${JSON_BODY_LIMIT}`
      : type === 'entity.parse.failed'
        ? `Malformed JSON body: ${String(message)}`
        : String(message);
  next(new HttpException({ status: { error: text } }, status));
};
