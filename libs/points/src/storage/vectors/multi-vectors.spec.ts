import { VectorSpace } from '../vector-space';
import { MultiSegmentVectors } from './multi-vectors';

function space(
  datatype: 'float32' | 'uint8',
  distance: 'Dot' | 'Euclid' | 'Manhattan' = 'Dot',
  dim = 4,
): Extract<VectorSpace, { kind: 'multi' }> {
  return {
    name: 'mv',
    kind: 'multi',
    dim,
    distance,
    datatype,
    hnsw: { m: 16, efConstruct: 100, fullScanThreshold: 10000, maxIndexingThreads: 1 },
    onDisk: false,
  } as Extract<VectorSpace, { kind: 'multi' }>;
}

const rows = [Float32Array.from([1.05, 1.61, 1.76, 1.74]), Float32Array.from([3.99, -2.5, 300.7, 0])];

describe('MultiSegmentVectors', () => {
  it('should keep uint8 values as Qdrant converts them: truncated toward zero, saturated to 0..255', () => {
    const store = MultiSegmentVectors.create(space('uint8'));
    store.set(0, { kind: 'multi', vectors: rows });
    const back = store.get(0);
    expect(back?.kind === 'multi' && back.vectors.map((r) => Array.from(r))).toEqual([
      [1, 1, 1, 1],
      [3, 0, 255, 0],
    ]);
    store.dispose?.();
  });

  it('should keep float32 values as given', () => {
    const store = MultiSegmentVectors.create(space('float32'));
    store.set(0, { kind: 'multi', vectors: rows });
    const back = store.get(0);
    expect(back?.kind === 'multi' && Array.from(back.vectors[0])).toEqual(Array.from(rows[0]));
    store.dispose?.();
  });

  it('should score Euclid as Qdrant: sqrt of the summed best squared distances, lower first', () => {
    const store = MultiSegmentVectors.create(space('float32', 'Euclid', 3));
    const query = [
      [1, 2, 3],
      [3, 3, 3],
      [4, 5, 6],
    ].map((r) => Float32Array.from(r));
    store.set(1, { kind: 'multi', vectors: query });
    store.set(2, { kind: 'multi', vectors: [Float32Array.from([3, 3, 3]), Float32Array.from([4, 2, 1])] });
    const hits = store.search({ kind: 'multi', vectors: query }, 10, undefined);
    expect(Array.from(hits.slots)).toEqual([1, 2]);
    expect(hits.scores[0]).toBe(0);
    expect(hits.scores[1]).toBeCloseTo(Math.sqrt(19), 5);
    store.dispose?.();
  });

  it('should score Manhattan as the summed best distances', () => {
    const store = MultiSegmentVectors.create(space('float32', 'Manhattan', 2));
    store.set(0, { kind: 'multi', vectors: [Float32Array.from([0, 0]), Float32Array.from([5, 5])] });
    const hits = store.search(
      { kind: 'multi', vectors: [Float32Array.from([1, 1]), Float32Array.from([4, 5])] },
      1,
      undefined,
    );
    expect(hits.scores[0]).toBeCloseTo(3, 5);
    store.dispose?.();
  });
});
