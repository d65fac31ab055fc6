import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger, NotFoundException } from '@nestjs/common';
import {
  DomainError,
  ErrorKind,
  httpMessageOf,
  httpStatusOf,
  insufficientStorageOf,
  toHttpStatus,
} from '@vectorstore/common';
import type { Request, Response } from 'express';
import { randomUUID } from 'node:crypto';
import { Observable, throwError } from 'rxjs';
import { toGrpcErrorPayload } from './grpc/grpc-error.payload';
import { credentialFailureOf } from './rest/credential-failure';
import { restIssuePath } from './rest/rest-field-paths';
import { isAuthRoute } from './rest/rest-routes';

/** Paths Qdrant leaves open by prefix, known or not. */
const OPEN_PREFIXES = /^\/(?:readyz|livez)/;

/**
 * The one global filter. DomainErrors get their status from the mappers in @vectorstore/common:
 * gRPC codes; on Qdrant's REST routes `{status: {error}, time}` with Qdrant's codes (422 for rule
 * violations, 400 for bad input); on `/api/auth` the older `{status: {error}}` shape. A full disk (ENOSPC or
 * EDQUOT from the file system, however wrapped) is answered as Qdrant's InsufficientStorage: 507 /
 * RESOURCE_EXHAUSTED, logged with its path. Anything else unexpected is logged with a correlation id and
 * answered INTERNAL / 500 with a generic message.
 */
@Catch()
export class TransportExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('errors');

  catch(thrown: unknown, host: ArgumentsHost): Observable<never> | void {
    const exception = this.storageFull(thrown) ?? thrown;
    if (host.getType() === 'rpc') {
      return throwError(() => toGrpcErrorPayload(exception, () => this.unexpected(exception)));
    }
    const request = host.switchToHttp().getRequest<Request>();
    const response = host.switchToHttp().getResponse<Response>();
    if (response.headersSent) return;
    if (isAuthRoute(request.path)) {
      this.answerAuthRoute(exception, response);
      return;
    }
    // An unknown path or a wrong verb, for a caller whose credential failed: 401 as on a known path.
    // (Qdrant opens `/readyz*` and `/livez*` by prefix: there an unknown path stays 404.)
    const error =
      exception instanceof NotFoundException && !OPEN_PREFIXES.test(request.path)
        ? asDomainError(credentialFailureOf(request) ?? exception)
        : asDomainError(exception);
    if (error) {
      if (error.retryAfterSeconds !== undefined) {
        response.setHeader('Retry-After', String(Math.ceil(error.retryAfterSeconds)));
      }
      if (error.kind === ErrorKind.Unauthenticated) {
        // Qdrant's auth middleware answers 401 in plain text.
        response.status(401).type('text/plain').send(error.message);
        return;
      }
      response.status(httpStatusOf(error)).json({ status: { error: httpMessageOf(error, restIssuePath) }, time: 0 });
      return;
    }
    if (exception instanceof NotFoundException) {
      // An unknown path or a wrong verb: Qdrant's router answers 404 with an empty body.
      response.status(404).end();
      return;
    }
    if (exception instanceof HttpException) {
      response.status(exception.getStatus()).json({ status: { error: exception.message }, time: 0 });
      return;
    }
    response.status(500).json({ status: { error: this.unexpected(exception) }, time: 0 });
  }

  private answerAuthRoute(exception: unknown, response: Response): void {
    if (exception instanceof DomainError) {
      if (exception.retryAfterSeconds !== undefined) {
        response.setHeader('Retry-After', String(Math.ceil(exception.retryAfterSeconds)));
      }
      response.status(toHttpStatus(exception.kind)).json({ status: { error: exception.message } });
      return;
    }
    if (exception instanceof HttpException) {
      const body = exception.getResponse();
      response.status(exception.getStatus()).json(typeof body === 'string' ? { message: body } : body);
      return;
    }
    response.status(500).json({ status: { error: this.unexpected(exception) } });
  }

  /** The InsufficientStorage answer for a full disk, logged once with what failed (the client sees no path). */
  private storageFull(exception: unknown): DomainError | undefined {
    const error = insufficientStorageOf(exception);
    if (error !== undefined && error !== exception) {
      this.logger.warn({ err: exception }, 'write refused: the disk holding the data folder is full');
    }
    return error;
  }

  private unexpected(exception: unknown): string {
    const correlationId = randomUUID();
    this.logger.error({ err: exception, correlationId }, 'unhandled error');
    return `Service internal error (correlation id ${correlationId})`;
  }
}

/** DomainErrors, and the one failure a client can cause that is not one: input nested past the stack's depth. */
function asDomainError(exception: unknown): DomainError | undefined {
  if (exception instanceof DomainError) return exception;
  if (exception instanceof RangeError && /call stack/i.test(exception.message)) {
    return DomainError.invalidArgument('Format error in JSON body: recursion limit exceeded');
  }
  return undefined;
}
