import { HttpException } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { ErrorRequestHandler } from 'express';

/** Largest JSON request body accepted on HTTP; larger ones get 413. */
export const JSON_BODY_LIMIT = '1mb';

/**
 * HTTP setup: JSON bodies only, at most {@link JSON_BODY_LIMIT}; parser failures become 4xx
 * answers in the usual `{status: {error}}` shape (Nest would answer an oversized body with 500).
 * `trust proxy` stays off, so the client address used for login throttling is the socket's,
 * not a spoofable `X-Forwarded-For`. Call before `listen` on an app created with `bodyParser: false`.
 */
export function configureHttp(app: NestExpressApplication): void {
  app.set('trust proxy', false);
  app.disable('x-powered-by');
  app.useBodyParser('json', { limit: JSON_BODY_LIMIT });
  app.use(bodyParserErrors);
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
