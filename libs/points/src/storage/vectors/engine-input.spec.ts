import { DomainError, ErrorKind, httpStatusOf, toGrpcCode } from '@vectorstore/common';

/** gRPC's INVALID_ARGUMENT status code. */
const INVALID_ARGUMENT = 3;
import { EngineBusyError, EngineInputError } from '@vectorstore/engine';
import { VectorSpace } from '../vector-space';
import { DenseSegmentVectors } from './dense-vectors';
import { fromEngineError, translatingEngineErrors } from './engine-input';
import { createSegmentVectors, loadSegmentVectors } from './vector-store-factory';

const dense: VectorSpace = {
  name: '',
  kind: 'dense',
  dim: 2,
  distance: 'Dot',
  datatype: 'float32',
  hnsw: { m: 16, efConstruct: 100, fullScanThreshold: 10000, maxIndexingThreads: 1 },
  onDisk: false,
};

const vector = (...values: number[]) => ({ kind: 'dense' as const, values: Float32Array.from(values) });

function thrownBy(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

describe('fromEngineError', () => {
  it('should turn an engine input error into a validation DomainError keeping the engine message', () => {
    const error = fromEngineError(new EngineInputError('ef: expected an integer in 1..16777216, got 0'));
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe(ErrorKind.InvalidArgument);
    expect((error as DomainError).validationIssues).toEqual(['ef: expected an integer in 1..16777216, got 0']);
    expect((error as DomainError).message).toBe(
      'Validation error in body: [ef: expected an integer in 1..16777216, got 0]',
    );
  });

  it('should turn an engine busy error into UNAVAILABLE (503), never an internal error', () => {
    const mapped = fromEngineError(new EngineBusyError('engine: a search for 20000 candidates would grow the heap'));
    expect(mapped).toBeInstanceOf(DomainError);
    expect((mapped as DomainError).kind).toBe(ErrorKind.Unavailable);
    expect(httpStatusOf(mapped as DomainError)).toBe(503);
    expect((mapped as DomainError).message).toContain('20000 candidates');
  });

  it('should pass any other error through unchanged', () => {
    const other = new Error('disk full');
    expect(fromEngineError(other)).toBe(other);
    const domain = DomainError.notFound('x');
    expect(fromEngineError(domain)).toBe(domain);
  });
});

describe('translatingEngineErrors', () => {
  it('should translate errors thrown and rejected by any method, keeping results and this', async () => {
    class Store {
      private readonly base = 1;
      value = 7;
      add(n: number): number {
        return this.base + n;
      }
      bad(): never {
        throw new EngineInputError('k: expected an integer in 1..16777216, got 0');
      }
      async later(): Promise<never> {
        await Promise.resolve();
        throw new EngineInputError('query: element 0 is NaN');
      }
    }
    const store = translatingEngineErrors(new Store());
    expect(store).toBeInstanceOf(Store);
    expect(store.value).toBe(7);
    expect(store.add(2)).toBe(3);
    expect(store.add).toBe(store.add);
    expect(thrownBy(() => store.bad())).toBeInstanceOf(DomainError);
    await expect(store.later()).rejects.toBeInstanceOf(DomainError);
  });
});

describe(createSegmentVectors.name, () => {
  it('should give stores whose engine input errors are 422 on REST and INVALID_ARGUMENT on gRPC', () => {
    const store = createSegmentVectors(dense, false);
    expect(store).toBeInstanceOf(DenseSegmentVectors);
    store.set(0, vector(1, 0));
    store.set(1, vector(0, 1));
    const error = thrownBy(() => store.search(vector(1, 1), 1, undefined, { quantization: { oversampling: 0.5 } }));
    expect(error).toBeInstanceOf(DomainError);
    expect(httpStatusOf(error as DomainError)).toBe(422);
    expect(toGrpcCode((error as DomainError).kind)).toBe(INVALID_ARGUMENT);
    expect((error as DomainError).validationIssues).toEqual(['oversampling: expected a number >= 1, got 0.5']);
    expect(thrownBy(() => store.search(vector(1, 1), 1, undefined, { hnswEf: 0 }))).toBeInstanceOf(DomainError);
    expect(thrownBy(() => store.score(vector(Number.NaN, 1), [0]))).toBeInstanceOf(DomainError);
    store.dispose();
  });

  it('should translate for loaded stores too', () => {
    const saved = createSegmentVectors(dense, false);
    saved.set(0, vector(1, 0));
    const store = loadSegmentVectors(dense, saved.save());
    saved.dispose();
    expect(store.search(vector(1, 0), 1, undefined, undefined).slots).toEqual(Uint32Array.of(0));
    expect(thrownBy(() => store.search(vector(1, 0), 1, undefined, { hnswEf: 0 }))).toBeInstanceOf(DomainError);
    store.dispose();
  });
});
