import { Distance, QuantizationConfig, VectorIndex } from '@vectorstore/engine';
import { clustered } from '../support/seeded-random';

const N = 4000;
const DIM = 64;
const K = 10;
const data = clustered(N, DIM, 30, 21);
const queries = clustered(40, DIM, 30, 22).map((q, i) => data[(i * 89) % N].map((x, j) => x + 0.5 * (q[j] - x)));

function recallVsExact(index: VectorIndex, oversampling: number, exact = false, ignore = false): number {
  let hits = 0;
  for (const q of queries) {
    const truth = new Set(index.exactSearch(q, K).slots);
    for (const s of index.search(q, { k: K, ef: 200, exact, quantization: { rescore: true, oversampling, ignore } })
      .slots)
      if (truth.has(s)) hits++;
  }
  return hits / (queries.length * K);
}

// Documented thresholds (docs/engine.md), on 64-d clustered data: int8 (oversampling 2) >= 0.95;
// binary (oversampling 10; binary codes of 64-128 bits are coarse) >= 0.75; PQ x8 (oversampling 4) >= 0.9.
const CASES: [string, QuantizationConfig, number, number][] = [
  ['int8', { scalar: { quantile: 0.99 } }, 2, 0.95],
  ['binary one_bit', { binary: { encoding: 'one_bit' } }, 10, 0.75],
  ['binary two_bits', { binary: { encoding: 'two_bits' } }, 10, 0.75],
  ['binary one_and_half_bits', { binary: { encoding: 'one_and_half_bits' } }, 10, 0.75],
  ['binary one_bit scalar8bits query', { binary: { encoding: 'one_bit', queryEncoding: 'scalar8bits' } }, 10, 0.75],
  ['binary two_bits scalar4bits query', { binary: { encoding: 'two_bits', queryEncoding: 'scalar4bits' } }, 10, 0.75],
  ['PQ x8', { product: { compression: 'x8' } }, 4, 0.9],
];

describe(VectorIndex.name, () => {
  describe.each(['Euclid', 'Cosine', 'Dot', 'Manhattan'] as Distance[])('quantized search with %s', (distance) => {
    it.each(CASES)('should keep recall after rescoring: %s', (_name, quantization, oversampling, threshold) => {
      const index = new VectorIndex({ dim: DIM, distance, quantization });
      index.add(data);
      index.quantize();
      // exact scan over codes + rescoring isolates the quantizer's loss
      expect(recallVsExact(index, oversampling, true)).toBeGreaterThanOrEqual(threshold);
      // graph traversal over codes loses at most the same on top of the f32 graph's own recall
      const graphF32 = recallVsExact(index, 1, false, true);
      expect(recallVsExact(index, oversampling)).toBeGreaterThanOrEqual(threshold * graphF32 - 0.02);
    });
  });

  it('should encode vectors added after training', () => {
    const index = new VectorIndex({ dim: DIM, distance: 'Euclid', quantization: { scalar: {} } });
    index.add(data.slice(0, 2000));
    index.quantize();
    index.add(data.slice(2000));
    expect(recallVsExact(index, 2)).toBeGreaterThanOrEqual(0.95);
  });

  it('should search originals when quantization is ignored', () => {
    const index = new VectorIndex({ dim: DIM, distance: 'Euclid', quantization: { product: { compression: 'x64' } } });
    index.add(data);
    const exact = index.exactSearch(queries[0], K);
    const r = index.search(queries[0], { k: K, exact: true, quantization: { ignore: true } });
    expect(Array.from(r.slots)).toEqual(Array.from(exact.slots));
  });
});
