import { Metadata, status } from '@grpc/grpc-js';
import { RpcException } from '@nestjs/microservices';
import { DomainError, ErrorKind, insufficientStorageOf, isDomainError, toGrpcCode } from '@vectorstore/common';

/**
 * Qdrant's marker on a RESOURCE_EXHAUSTED that means a full disk rather than a rate limit (its
 * `INSUFFICIENT_STORAGE_METADATA_KEY`): a client can tell "retry later" from "the node is out of room".
 */
export const INSUFFICIENT_STORAGE_METADATA_KEY = 'qdrant-insufficient-storage';

/** What grpc-js needs to answer a call with a status. */
export interface GrpcErrorPayload {
  code: number;
  message: string;
  metadata?: Metadata;
}

/** Maps a handler failure to a gRPC status; `onUnexpected` returns the message for unknown errors. */
export function toGrpcErrorPayload(exception: unknown, onUnexpected: () => string): GrpcErrorPayload {
  const storageFull = insufficientStorageOf(exception);
  if (storageFull) return domainErrorPayload(storageFull);
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
    payload.metadata ??= new Metadata();
    payload.metadata.set('retry-after', String(Math.ceil(error.retryAfterSeconds)));
  }
  if (error.kind === ErrorKind.InsufficientStorage) {
    payload.metadata ??= new Metadata();
    payload.metadata.set(INSUFFICIENT_STORAGE_METADATA_KEY, '1');
  }
  return payload;
}
