import { HttpException } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { json } from 'express';
import { CredentialVerifier } from '@vectorstore/auth';
import { credentialFromRequest } from '../auth/http/credential-from-request';
import { rememberCredentialFailure, rememberVerifiedPrincipal } from './rest/credential-failure';
import { normalisePathMiddleware, restBodyMiddleware } from './rest/rest-body.middleware';
import { isAuthRoute } from './rest/rest-routes';
import { REQUEST_LOG } from './logging/request-log';
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
  // No ETag on API answers (Qdrant sends none): a SHA-1 of every answer for nothing. Static files keep theirs.
  app.set('etag', false);
  app.use(app.get<RequestHandler>(REQUEST_LOG));
  app.use(normalisePathMiddleware);
  app.use(requestMetricsMiddleware(app.get(RequestMetrics)));
  app.use(bodyForAuthenticated(app.get(CredentialVerifier)));
  app.use(bodyParserErrors);
}

const authJson = json({ limit: JSON_BODY_LIMIT });

/**
 * A snapshot upload (full, collection, shard, or partial shard recovery) is multipart and may be large:
 * its route streams it to disk itself.
 */
const isSnapshotUpload = (request: Request): boolean =>
  request.method === 'POST' &&
  /^(?:\/snapshots\/upload|\/backups\/upload|\/collections\/[^/]+\/(?:snapshots\/upload|shards\/[^/]+\/(?:snapshots\/upload|snapshot\/partial\/recover)))$/i.test(
    request.path,
  );

/**
 * Reads a Qdrant API body only for a caller whose credential is valid. Guards run after middleware, so
 * without this an anonymous client could make the server buffer and parse 32 MiB per request before
 * its 401. A caller without a valid credential gets no body read; the guard then answers 401 as usual.
 * (Access by operation is still the guard's decision.) The login and refresh routes are open by
 * nature and have their own 1 MB limit.
 */
function bodyForAuthenticated(verifier: CredentialVerifier): RequestHandler {
  return (request, response, next) => {
    if (isAuthRoute(request.path)) {
      authJson(request, response, next);
      return;
    }
    verifier.verify(credentialFromRequest(request) ?? undefined).then(
      (principal) => {
        rememberVerifiedPrincipal(request, principal);
        if (isSnapshotUpload(request)) next();
        else restBodyMiddleware(request, response, next);
      },
      (error: unknown) => {
        rememberCredentialFailure(request, error);
        next();
      },
    );
  };
}

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
