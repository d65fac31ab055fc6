import { DomainError, ErrorKind } from './domain-error';
import { insufficientStorageOf } from './insufficient-storage';

/** An error as Node's fs gives it: message, errno code, syscall. */
function fsError(code: string, syscall = 'write'): NodeJS.ErrnoException {
  const text = code === 'ENOSPC' ? 'no space left on device' : code === 'EDQUOT' ? 'disk quota exceeded' : 'i/o error';
  return Object.assign(new Error(`${code}: ${text}, ${syscall}`), { code, syscall, errno: -28 });
}

describe(insufficientStorageOf.name, () => {
  it('should make a full device an InsufficientStorage error naming the cause in Qdrant wording', () => {
    const cause = fsError('ENOSPC');
    const error = insufficientStorageOf(cause);

    expect(error?.kind).toBe(ErrorKind.InsufficientStorage);
    expect(error?.message).toBe(
      'Insufficient storage: No space left on device (ENOSPC): the write could not be stored; free disk space and retry',
    );
    expect(error?.cause).toBe(cause);
  });

  it('should make an exceeded quota one too', () => {
    expect(insufficientStorageOf(fsError('EDQUOT'))?.message).toMatch(
      /^Insufficient storage: Disk quota exceeded \(EDQUOT\)/,
    );
  });

  it('should find a full disk wrapped in a cause, an internal DomainError or an AggregateError', () => {
    const wrapped = new Error('flush failed', { cause: fsError('ENOSPC', 'rename') });

    expect(insufficientStorageOf(wrapped)?.kind).toBe(ErrorKind.InsufficientStorage);
    expect(insufficientStorageOf(DomainError.internal('snapshot failed', wrapped))?.kind).toBe(
      ErrorKind.InsufficientStorage,
    );
    expect(insufficientStorageOf(new AggregateError([new Error('x'), fsError('EDQUOT')]))?.kind).toBe(
      ErrorKind.InsufficientStorage,
    );
  });

  it("should recognise Node's message when the code was lost (an error rebuilt from a worker thread)", () => {
    expect(insufficientStorageOf(new Error('ENOSPC: no space left on device, write'))?.kind).toBe(
      ErrorKind.InsufficientStorage,
    );
  });

  it('should keep an InsufficientStorage DomainError as it is', () => {
    const error = DomainError.insufficientStorage('already decided');

    expect(insufficientStorageOf(error)).toBe(error);
  });

  it.each([
    ['another errno', fsError('EIO')],
    ['a plain error', new Error('boom')],
    ['a message that only mentions ENOSPC', new Error('retrying after ENOSPC: no space left on device')],
    [
      'a decided DomainError wrapping a full disk',
      new DomainError(ErrorKind.NotFound, 'x', { cause: fsError('ENOSPC') }),
    ],
    ['a code named like an Object member', Object.assign(new Error('x'), { code: 'constructor' })],
    ['a string', 'ENOSPC'],
    ['undefined', undefined],
  ])('should leave %s alone', (_name, error) => {
    expect(insufficientStorageOf(error)).toBeUndefined();
  });

  it('should stop at a cycle of causes', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    Object.assign(a, { cause: b });

    expect(insufficientStorageOf(a)).toBeUndefined();
  });
});
