import { ErrorKind } from './domain-error';
import { GrpcCode, toGrpcCode, toHttpStatus } from './status-mappers';

const ALL_KINDS = Object.values(ErrorKind);

describe('toGrpcCode', () => {
  const expected: Record<ErrorKind, number> = {
    [ErrorKind.InvalidArgument]: 3,
    [ErrorKind.NotFound]: 5,
    [ErrorKind.AlreadyExists]: 6,
    [ErrorKind.FailedPrecondition]: 9,
    [ErrorKind.ResourceExhausted]: 8,
    [ErrorKind.Unauthenticated]: 16,
    [ErrorKind.PermissionDenied]: 7,
    [ErrorKind.Unimplemented]: 12,
    [ErrorKind.Internal]: 13,
    [ErrorKind.Unavailable]: 14,
    [ErrorKind.DeadlineExceeded]: 4,
    [ErrorKind.InsufficientStorage]: 8,
  };

  it.each(ALL_KINDS)('should map %s to its gRPC status code', (kind) => {
    expect(toGrpcCode(kind)).toBe(expected[kind]);
  });

  it('should return a defined numeric code for every ErrorKind', () => {
    for (const kind of ALL_KINDS) {
      expect(typeof toGrpcCode(kind)).toBe('number');
    }
  });

  it('should never map a domain error to OK', () => {
    for (const kind of ALL_KINDS) {
      expect(toGrpcCode(kind)).not.toBe(GrpcCode.OK);
    }
  });

  it('should give distinct codes to distinct kinds, apart from a full disk sharing RESOURCE_EXHAUSTED', () => {
    const kinds = ALL_KINDS.filter((kind) => kind !== ErrorKind.InsufficientStorage);

    expect(new Set(kinds.map(toGrpcCode)).size).toBe(kinds.length);
    expect(toGrpcCode(ErrorKind.InsufficientStorage)).toBe(toGrpcCode(ErrorKind.ResourceExhausted));
  });
});

describe('toHttpStatus', () => {
  const expected: Record<ErrorKind, number> = {
    [ErrorKind.InvalidArgument]: 400,
    [ErrorKind.NotFound]: 404,
    [ErrorKind.AlreadyExists]: 409,
    [ErrorKind.FailedPrecondition]: 412,
    [ErrorKind.ResourceExhausted]: 429,
    [ErrorKind.Unauthenticated]: 401,
    [ErrorKind.PermissionDenied]: 403,
    [ErrorKind.Unimplemented]: 405,
    [ErrorKind.Internal]: 500,
    [ErrorKind.Unavailable]: 503,
    [ErrorKind.DeadlineExceeded]: 504,
    [ErrorKind.InsufficientStorage]: 507,
  };

  it.each(ALL_KINDS)('should map %s to its HTTP status', (kind) => {
    expect(toHttpStatus(kind)).toBe(expected[kind]);
  });

  it('should map every ErrorKind to a 4xx or 5xx status', () => {
    for (const kind of ALL_KINDS) {
      const status = toHttpStatus(kind);
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThan(600);
    }
  });
});
