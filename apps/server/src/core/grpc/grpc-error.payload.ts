import { Metadata, status } from '@grpc/grpc-js';
import { RpcException } from '@nestjs/microservices';
import { DomainError, isDomainError, toGrpcCode } from '@vectorstore/common';

/** What grpc-js needs to answer a call with a status. */
export interface GrpcErrorPayload {
  code: number;
  message: string;
  metadata?: Metadata;
}

/** Maps a handler failure to a gRPC status; `onUnexpected` returns the message for unknown errors. */
export function toGrpcErrorPayload(exception: unknown, onUnexpected: () => string): GrpcErrorPayload {
  if (isDomainError(exception)) return domainErrorPayload(exception);
  if (exception instanceof RangeError && /call stack/i.test(exception.message)) {
    return { code: status.INVALID_ARGUMENT, message: 'Validation error in body: [request: nested too deeply]' };
  }
  if (exception instanceof RpcException) {
    const error = exception.getError();
    if (typeof error === 'object' && error !== null && 'code' in error) return error as GrpcErrorPayload;
  }
  return { code: status.INTERNAL, message: onUnexpected() };
}

function domainErrorPayload(error: DomainError): GrpcErrorPayload {
  const payload: GrpcErrorPayload = { code: toGrpcCode(error.kind), message: error.message };
  if (error.retryAfterSeconds !== undefined) {
    const metadata = new Metadata();
    metadata.set('retry-after', String(Math.ceil(error.retryAfterSeconds)));
    payload.metadata = metadata;
  }
  return payload;
}
