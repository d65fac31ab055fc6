import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { DomainError, toHttpStatus } from '@vectorstore/common';
import type { Response } from 'express';
import { randomUUID } from 'node:crypto';
import { Observable, throwError } from 'rxjs';
import { toGrpcErrorPayload } from './grpc/grpc-error.payload';

/**
 * The one global filter: DomainErrors get their status from the mappers in @vectorstore/common,
 * on HTTP and on gRPC; anything unexpected is logged with a correlation id and answered
 * INTERNAL / 500 with a generic message.
 */
@Catch()
export class TransportExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('errors');

  catch(exception: unknown, host: ArgumentsHost): Observable<never> | void {
    if (host.getType() === 'rpc') {
      return throwError(() => toGrpcErrorPayload(exception, () => this.unexpected(exception)));
    }
    const response = host.switchToHttp().getResponse<Response>();
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

  private unexpected(exception: unknown): string {
    const correlationId = randomUUID();
    this.logger.error({ err: exception, correlationId }, 'unhandled error');
    return `Service internal error (correlation id ${correlationId})`;
  }
}
