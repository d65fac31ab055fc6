/** The closed set of failure kinds the domain can report; each transport maps them exhaustively. */
export enum ErrorKind {
  InvalidArgument = 'InvalidArgument',
  NotFound = 'NotFound',
  AlreadyExists = 'AlreadyExists',
  FailedPrecondition = 'FailedPrecondition',
  ResourceExhausted = 'ResourceExhausted',
  Unauthenticated = 'Unauthenticated',
  PermissionDenied = 'PermissionDenied',
  Unimplemented = 'Unimplemented',
  Internal = 'Internal',
  /** A dependency (the cluster's metadata store, a peer) cannot be reached: nothing was applied. */
  Unavailable = 'Unavailable',
  /** A dependency did not answer in time: the change may or may not have been applied. */
  DeadlineExceeded = 'DeadlineExceeded',
  /**
   * The disk (or the quota) holding the data folder is full: the write was refused, nothing of it was acknowledged,
   * and the same request succeeds once space is freed. Qdrant's `InsufficientStorage` (REST 507).
   */
  InsufficientStorage = 'InsufficientStorage',
}

/** Where a request's invalid values were: REST names it (`in JSON body`, `in query parameters`…). */
export type ValidationLocation = 'body' | 'query' | 'path';

export interface DomainErrorOptions {
  /** Seconds a client should wait before retrying (rate limits). */
  retryAfterSeconds?: number;
  cause?: unknown;
  /** Set on rule violations (`path: rule` each): REST answers them 422, apart from 400 for bad input. */
  validationIssues?: readonly string[];
  validationLocation?: ValidationLocation;
}

/**
 * An expected failure with a message safe to show to the client.
 * Messages keep Qdrant's wording where clients may match on it.
 */
export class DomainError extends Error {
  readonly retryAfterSeconds?: number;
  readonly validationIssues?: readonly string[];
  readonly validationLocation?: ValidationLocation;

  constructor(
    readonly kind: ErrorKind,
    message: string,
    options: DomainErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DomainError';
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.validationIssues = options.validationIssues;
    this.validationLocation = options.validationLocation;
  }

  static invalidArgument(message: string): DomainError {
    return new DomainError(ErrorKind.InvalidArgument, message);
  }

  /** Qdrant's format for request validation failures: `Validation error in body: [path: rule; ...]`. */
  static validation(issues: readonly string[], location: ValidationLocation = 'body'): DomainError {
    return new DomainError(ErrorKind.InvalidArgument, `Validation error in body: [${issues.join('; ')}]`, {
      validationIssues: issues,
      validationLocation: location,
    });
  }

  static notFound(message: string): DomainError {
    return new DomainError(ErrorKind.NotFound, message);
  }

  static alreadyExists(message: string): DomainError {
    return new DomainError(ErrorKind.AlreadyExists, message);
  }

  static failedPrecondition(message: string): DomainError {
    return new DomainError(ErrorKind.FailedPrecondition, message);
  }

  static resourceExhausted(message: string, retryAfterSeconds?: number): DomainError {
    return new DomainError(ErrorKind.ResourceExhausted, message, { retryAfterSeconds });
  }

  static unauthenticated(message: string): DomainError {
    return new DomainError(ErrorKind.Unauthenticated, message);
  }

  static permissionDenied(message: string): DomainError {
    return new DomainError(ErrorKind.PermissionDenied, message);
  }

  static unimplemented(message: string): DomainError {
    return new DomainError(ErrorKind.Unimplemented, message);
  }

  static internal(message: string, cause?: unknown): DomainError {
    return new DomainError(ErrorKind.Internal, message, { cause });
  }

  static unavailable(message: string, cause?: unknown): DomainError {
    return new DomainError(ErrorKind.Unavailable, message, { cause });
  }

  static deadlineExceeded(message: string, cause?: unknown): DomainError {
    return new DomainError(ErrorKind.DeadlineExceeded, message, { cause });
  }

  /** Qdrant's wording: `Insufficient storage: <description>`. */
  static insufficientStorage(description: string, cause?: unknown): DomainError {
    return new DomainError(ErrorKind.InsufficientStorage, `Insufficient storage: ${description}`, { cause });
  }
}

export function isDomainError(error: unknown): error is DomainError {
  return error instanceof DomainError;
}
