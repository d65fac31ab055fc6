import { DomainError, ErrorKind } from './domain-error';

/** gRPC status codes (numeric, per the gRPC spec) so this library needs no transport dependency. */
export const GrpcCode = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

/** The one place that decides which gRPC status each domain failure gets. */
export function toGrpcCode(kind: ErrorKind): number {
  switch (kind) {
    case ErrorKind.InvalidArgument:
      return GrpcCode.INVALID_ARGUMENT;
    case ErrorKind.NotFound:
      return GrpcCode.NOT_FOUND;
    case ErrorKind.AlreadyExists:
      return GrpcCode.ALREADY_EXISTS;
    case ErrorKind.FailedPrecondition:
      return GrpcCode.FAILED_PRECONDITION;
    case ErrorKind.ResourceExhausted:
      return GrpcCode.RESOURCE_EXHAUSTED;
    case ErrorKind.Unauthenticated:
      return GrpcCode.UNAUTHENTICATED;
    case ErrorKind.PermissionDenied:
      return GrpcCode.PERMISSION_DENIED;
    case ErrorKind.Unimplemented:
      return GrpcCode.UNIMPLEMENTED;
    case ErrorKind.Internal:
      return GrpcCode.INTERNAL;
    case ErrorKind.Unavailable:
      return GrpcCode.UNAVAILABLE;
    case ErrorKind.DeadlineExceeded:
      return GrpcCode.DEADLINE_EXCEEDED;
    // gRPC's own definition of the code: "some resource has been exhausted, ... or the entire file system is out of
    // space". Rate limits share it; the transport adds Qdrant's `qdrant-insufficient-storage` marker to tell them apart.
    case ErrorKind.InsufficientStorage:
      return GrpcCode.RESOURCE_EXHAUSTED;
  }
}

/** The one place that decides which HTTP status each domain failure gets. */
export function toHttpStatus(kind: ErrorKind): number {
  switch (kind) {
    case ErrorKind.InvalidArgument:
      return 400;
    case ErrorKind.NotFound:
      return 404;
    case ErrorKind.AlreadyExists:
      return 409;
    case ErrorKind.FailedPrecondition:
      return 412;
    case ErrorKind.ResourceExhausted:
      return 429;
    case ErrorKind.Unauthenticated:
      return 401;
    case ErrorKind.PermissionDenied:
      return 403;
    // Qdrant's REST answers operations a standalone node cannot do with 405 (gRPC: UNIMPLEMENTED).
    case ErrorKind.Unimplemented:
      return 405;
    case ErrorKind.Internal:
      return 500;
    case ErrorKind.Unavailable:
      return 503;
    case ErrorKind.DeadlineExceeded:
      return 504;
    case ErrorKind.InsufficientStorage:
      return 507;
  }
}

/** The HTTP status of one failure: rule violations are 422 as in Qdrant's REST API, the rest by kind. */
export function httpStatusOf(error: DomainError): number {
  return error.validationIssues ? 422 : toHttpStatus(error.kind);
}

const LOCATION_TEXT = { body: 'JSON body', query: 'query parameters', path: 'path parameters' } as const;

/** The message REST shows: rule violations say where, as Qdrant does (`Validation error in JSON body: […]`). */
export function httpMessageOf(error: DomainError, fieldPath: (issue: string) => string = (issue) => issue): string {
  if (!error.validationIssues) return error.message;
  const issues = error.validationIssues.map(fieldPath).join('; ');
  return `Validation error in ${LOCATION_TEXT[error.validationLocation ?? 'body']}: [${issues}]`;
}
