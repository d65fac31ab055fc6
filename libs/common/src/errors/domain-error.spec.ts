import { DomainError, ErrorKind, isDomainError } from './domain-error';

describe(DomainError.name, () => {
  describe('constructor', () => {
    it('should be an Error named DomainError carrying kind, message and options', () => {
      const cause = new Error('disk full');
      const error = new DomainError(ErrorKind.ResourceExhausted, 'slow down', { retryAfterSeconds: 3, cause });

      expect(error).toBeInstanceOf(Error);
      expect(error.name).toBe('DomainError');
      expect(error.kind).toBe(ErrorKind.ResourceExhausted);
      expect(error.message).toBe('slow down');
      expect(error.retryAfterSeconds).toBe(3);
      expect(error.cause).toBe(cause);
    });

    it('should leave retryAfterSeconds and cause undefined when not given', () => {
      const error = new DomainError(ErrorKind.Internal, 'boom');

      expect(error.retryAfterSeconds).toBeUndefined();
      expect(error.cause).toBeUndefined();
    });
  });

  describe('factories', () => {
    const cases: Array<[string, () => DomainError, ErrorKind]> = [
      ['invalidArgument', () => DomainError.invalidArgument('m'), ErrorKind.InvalidArgument],
      ['notFound', () => DomainError.notFound('m'), ErrorKind.NotFound],
      ['alreadyExists', () => DomainError.alreadyExists('m'), ErrorKind.AlreadyExists],
      ['failedPrecondition', () => DomainError.failedPrecondition('m'), ErrorKind.FailedPrecondition],
      ['resourceExhausted', () => DomainError.resourceExhausted('m'), ErrorKind.ResourceExhausted],
      ['unauthenticated', () => DomainError.unauthenticated('m'), ErrorKind.Unauthenticated],
      ['permissionDenied', () => DomainError.permissionDenied('m'), ErrorKind.PermissionDenied],
      ['unimplemented', () => DomainError.unimplemented('m'), ErrorKind.Unimplemented],
      ['internal', () => DomainError.internal('m'), ErrorKind.Internal],
      ['unavailable', () => DomainError.unavailable('m'), ErrorKind.Unavailable],
      ['deadlineExceeded', () => DomainError.deadlineExceeded('m'), ErrorKind.DeadlineExceeded],
      ['insufficientStorage', () => DomainError.insufficientStorage('m'), ErrorKind.InsufficientStorage],
    ];

    it.each(cases)('should make %s errors of the matching kind with the given message', (_name, make, kind) => {
      const error = make();

      expect(error).toBeInstanceOf(DomainError);
      expect(error.kind).toBe(kind);
      expect(error.message).toMatch(/^(Insufficient storage: )?m$/);
    });

    it('should cover every ErrorKind with a factory', () => {
      expect(new Set(cases.map(([, make]) => make().kind))).toEqual(new Set(Object.values(ErrorKind)));
    });

    it('should keep retryAfterSeconds on resourceExhausted', () => {
      expect(DomainError.resourceExhausted('rate limit', 7).retryAfterSeconds).toBe(7);
    });

    it('should word insufficientStorage as Qdrant does and keep the cause', () => {
      const cause = new Error('ENOSPC');
      const error = DomainError.insufficientStorage('No space left on device', cause);

      expect(error.message).toBe('Insufficient storage: No space left on device');
      expect(error.cause).toBe(cause);
    });

    it('should keep the cause on internal', () => {
      const cause = new Error('root');

      expect(DomainError.internal('oops', cause).cause).toBe(cause);
    });
  });

  describe('validation', () => {
    it("should format issues in Qdrant's 'Validation error in body' form joined by '; '", () => {
      const error = DomainError.validation(['a', 'b']);

      expect(error.kind).toBe(ErrorKind.InvalidArgument);
      expect(error.message).toBe('Validation error in body: [a; b]');
    });

    it('should format a single issue without a separator', () => {
      expect(DomainError.validation(['size: bad']).message).toBe('Validation error in body: [size: bad]');
    });
  });
});

describe('isDomainError', () => {
  it('should be true for a DomainError', () => {
    expect(isDomainError(DomainError.notFound('x'))).toBe(true);
  });

  it.each([new Error('plain'), 'text', undefined, null, { kind: ErrorKind.NotFound, message: 'x' }])(
    'should be false for %p',
    (value) => {
      expect(isDomainError(value)).toBe(false);
    },
  );
});
