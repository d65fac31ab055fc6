import { Vector } from '../model/vectors.model';
import { VectorSpace } from '../storage/vector-space';
import { createSegmentVectors } from '../storage/vectors/vector-store-factory';
import { seeded } from '../../../../test/support/seeded-random';
import { mmrOrder, mmrPick, pairScore } from './mmr';

const hnsw = { m: 16, efConstruct: 100, fullScanThreshold: 10000, maxIndexingThreads: 1 };
type Distance = 'Cosine' | 'Dot' | 'Euclid' | 'Manhattan';
const denseSpace = (distance: Distance, datatype: 'float32' | 'float16' | 'uint8' = 'float32'): VectorSpace => ({
  name: 'v',
  kind: 'dense',
  dim: 5,
  distance,
  datatype,
  hnsw,
  onDisk: false,
});

describe('mmr', () => {
  const random = seeded(11);
  const denseVector = (uint8: boolean): Vector => ({
    kind: 'dense',
    values: Float32Array.from({ length: 5 }, () => (uint8 ? Math.round(random() * 255) : random() * 2 - 1)),
  });

  describe(pairScore.name, () => {
    // The pairs MMR compares must be scored as a segment scores them (the engine's kernels).
    for (const distance of ['Cosine', 'Dot', 'Euclid', 'Manhattan'] as const) {
      for (const datatype of ['float32', 'uint8'] as const) {
        it(`should score ${distance} ${datatype} pairs as a segment's store does`, () => {
          const space = denseSpace(distance, datatype);
          const store = createSegmentVectors(space, false);
          try {
            const vectors = Array.from({ length: 6 }, () => denseVector(datatype === 'uint8'));
            // Read back as stored (Cosine vectors normalised, uint8 as is), as peers and mmrSelect see them.
            vectors.forEach((v, slot) => store.set(slot, v));
            const stored = vectors.map((_, slot) => store.get(slot)!);
            const query = denseVector(datatype === 'uint8');
            const expected = store.score(query, [0, 1, 2, 3, 4, 5]);
            const score = pairScore(space);
            stored.forEach((v, slot) => {
              const at = Array.from(expected.slots).indexOf(slot);
              expect(score(query, v)).toBeCloseTo(expected.scores[at], 3);
            });
          } finally {
            store.dispose();
          }
        });
      }
    }

    it('should score sparse pairs by their dot product over shared indices', () => {
      const score = pairScore({ name: 's', kind: 'sparse', idf: true });
      const a: Vector = { kind: 'sparse', indices: Uint32Array.of(1, 4, 9), values: Float32Array.of(1, 2, 3) };
      const b: Vector = { kind: 'sparse', indices: Uint32Array.of(9, 2, 4), values: Float32Array.of(0.5, 7, 0.25) };
      expect(score(a, b)).toBeCloseTo(3 * 0.5 + 2 * 0.25, 6);
    });
  });

  describe(mmrOrder.name, () => {
    // Three candidates: 0 and 1 near-duplicates, 2 different and a little less relevant.
    const relevance = [0.9, 0.89, 0.8];
    const similarity = (i: number, j: number) => ((i === 0 && j === 1) || (i === 1 && j === 0) ? 0.99 : 0.1);

    it('should pick the most relevant first, then the diverse one', () => {
      expect(mmrOrder(relevance, similarity, 0.5, 3)).toEqual([0, 2, 1]);
    });

    it('should follow relevance alone with lambda 1, and stop at the limit', () => {
      expect(mmrOrder(relevance, similarity, 1, 2)).toEqual([0, 1]);
      expect(mmrOrder([0.3], similarity, 0.5, 3)).toEqual([0]);
    });
  });

  describe(mmrPick.name, () => {
    it('should skip a near-duplicate of the first pick for a farther, diverse point (Euclid)', () => {
      const v = (...values: number[]): Vector => ({ kind: 'dense', values: Float32Array.from(values) });
      const space = { ...denseSpace('Euclid'), dim: 2 } as VectorSpace;
      const candidates = [v(1, 0), v(1.01, 0), v(0, 1.2)];
      expect(mmrPick(space, v(1, 0.1), candidates, 0.5, 2)).toEqual([0, 2]);
      expect(mmrPick(space, v(1, 0.1), candidates, 1, 2)).toEqual([0, 1]);
    });
  });
});
