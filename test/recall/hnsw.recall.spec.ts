import { Distance, VectorIndex, reference } from '@vectorstore/engine';
import { clustered, seeded } from '../support/seeded-random';

const N = 4000;
const DIM = 48;
const K = 10;
const QUERIES = 60;
const data = clustered(N, DIM, 40, 11);
const queries = clustered(QUERIES, DIM, 40, 11 + 1).map((q, i) =>
  data[(i * 67) % N].map((x, j) => x + 0.5 * (q[j] - x)),
);

function recall(
  index: VectorIndex,
  distance: Distance,
  params: Parameters<VectorIndex['search']>[1],
  accept?: (s: number) => boolean,
): number {
  let hits = 0;
  let total = 0;
  for (const q of queries) {
    const truth = reference.bruteForceRef(distance, q, data, params.k, accept);
    const got = new Set(index.search(q, params).slots);
    for (const t of truth) if (got.has(t.slot)) hits++;
    total += truth.length;
  }
  return hits / total;
}

describe(VectorIndex.name, () => {
  describe.each(['Cosine', 'Euclid', 'Dot', 'Manhattan'] as Distance[])('search with %s', (distance) => {
    const index = new VectorIndex({ dim: DIM, distance });
    index.add(data);

    it('should reach recall@10 >= 0.95 against brute force at default parameters', () => {
      expect(recall(index, distance, { k: K })).toBeGreaterThanOrEqual(0.95);
    });

    it('should return scores in Qdrant convention, best first, matching the reference', () => {
      const q = queries[0];
      const r = index.search(q, { k: K, exact: true });
      const truth = reference.bruteForceRef(distance, q, data, K);
      expect(Array.from(r.slots)).toEqual(truth.map((t) => t.slot));
      r.scores.forEach((s, i) => expect(s).toBeCloseTo(truth[i].score, 3));
    });
  });

  describe('datatypes', () => {
    it.each(['float16', 'uint8'] as const)('should search %s vectors with high recall', (datatype) => {
      const scaled =
        datatype === 'uint8'
          ? data.map((v) => v.map((x) => Math.max(0, Math.min(255, Math.round(128 + 30 * x)))))
          : data;
      const index = new VectorIndex({ dim: DIM, distance: 'Euclid', datatype });
      index.add(scaled);
      let hits = 0;
      for (const q0 of queries.slice(0, 20)) {
        const q = datatype === 'uint8' ? q0.map((x) => 128 + 30 * x) : q0;
        const truth = new Set(index.exactSearch(q, K).slots);
        for (const s of index.search(q, { k: K }).slots) if (truth.has(s)) hits++;
      }
      expect(hits / (20 * K)).toBeGreaterThanOrEqual(0.95);
    });

    it('should rank uint8 Cosine by true cosine', () => {
      const rnd = seeded(3);
      const vs = Array.from({ length: 200 }, () => Array.from({ length: 8 }, () => Math.floor(rnd() * 256)));
      const index = new VectorIndex({ dim: 8, distance: 'Cosine', datatype: 'uint8' });
      index.add(vs);
      const q = [10, 200, 3, 40, 50, 60, 70, 255];
      const r = index.exactSearch(q, 5);
      const truth = reference.bruteForceRef('Cosine', q, vs, 5);
      expect(Array.from(r.slots)).toEqual(truth.map((t) => t.slot));
      r.scores.forEach((s, i) => expect(s).toBeCloseTo(truth[i].score, 4));
    });
  });

  describe('filtered search', () => {
    const index = new VectorIndex({ dim: DIM, distance: 'Euclid', fullScanThreshold: 10 });
    index.add(data);

    it.each([0.5, 0.1, 0.01])('should return only allowed slots with high recall (fraction %p)', (fraction) => {
      const rnd = seeded(99);
      const bitmap = new Uint8Array(Math.ceil(N / 8));
      for (let s = 0; s < N; s++) if (rnd() < fraction) bitmap[s >> 3] |= 1 << (s & 7);
      const allowed = (s: number) => (bitmap[s >> 3] & (1 << (s & 7))) !== 0;
      for (const q of queries.slice(0, 10)) {
        for (const s of index.search(q, { k: K, allowed: bitmap }).slots) expect(allowed(s)).toBe(true);
        for (const s of index.search(q, { k: K, allowed }).slots) expect(allowed(s)).toBe(true);
      }
      expect(recall(index, 'Euclid', { k: K, allowed: bitmap }, allowed)).toBeGreaterThanOrEqual(0.9);
    });

    it('should keep a large beam accurate under a selective filter (the search heap grows with it)', () => {
      // 5% allowed, queries from other clusters, ef 256: the walk queues some 20 candidates per result it
      // keeps. A heap sized for ef alone (8 x ef) overflowed and dropped candidates: recall 0.975.
      const n = 20_000;
      const dim = 128;
      const big = clustered(n, dim, 40, 5);
      const far = clustered(20, dim, 40, 99);
      const walk = new VectorIndex({ dim, distance: 'Euclid', fullScanThreshold: 0, seed: 1 });
      walk.add(big);
      const rnd = seeded(3);
      const bitmap = new Uint8Array(Math.ceil(n / 8));
      for (let s = 0; s < n; s++) if (rnd() < 0.05) bitmap[s >> 3] |= 1 << (s & 7);
      let hits = 0;
      for (const q of far) {
        const truth = new Set(walk.exactSearch(q, K, bitmap).slots);
        for (const s of walk.search(q, { k: K, ef: 256, allowed: bitmap }).slots) if (truth.has(s)) hits++;
      }
      expect(hits / (far.length * K)).toBeGreaterThanOrEqual(0.995);
    });

    it('should switch to an exact scan when few points pass (full_scan_threshold)', () => {
      const only = [5, 77, 1234];
      const r = index.search(queries[0], { k: K, allowed: (s) => only.includes(s) });
      expect(Array.from(r.slots).sort((a, b) => a - b)).toEqual(only);
    });
  });

  describe('delete', () => {
    it('should never return deleted slots and keep recall', () => {
      const index = new VectorIndex({ dim: DIM, distance: 'Euclid' });
      index.add(data);
      const deleted = new Set<number>();
      for (let s = 0; s < N; s += 3) deleted.add(s);
      index.delete([...deleted]);
      expect(index.deletedCount).toBe(deleted.size);
      for (const q of queries) for (const s of index.search(q, { k: K }).slots) expect(deleted.has(s)).toBe(false);
      expect(recall(index, 'Euclid', { k: K }, (s) => !deleted.has(s))).toBeGreaterThanOrEqual(0.95);
    });
  });

  describe('save and load', () => {
    it.each([
      undefined,
      { scalar: { quantile: 0.99 } },
      { binary: { encoding: 'two_bits' as const } },
      { product: { compression: 'x8' as const } },
    ])('should give identical results after a round trip (quantization %j)', (quantization) => {
      const index = new VectorIndex({ dim: DIM, distance: 'Cosine', quantization, datatype: 'float16' });
      index.add(data.slice(0, 1500));
      if (quantization) index.quantize();
      index.delete([3, 4, 5]);
      const bytes = index.save();
      const loaded = VectorIndex.load(bytes);
      expect(loaded.size).toBe(index.size);
      expect(loaded.deletedCount).toBe(3);
      for (const q of queries.slice(0, 10)) {
        const a = index.search(q, { k: K, quantization: { oversampling: 2 } });
        const b = loaded.search(q, { k: K, quantization: { oversampling: 2 } });
        expect(Array.from(b.slots)).toEqual(Array.from(a.slots));
        expect(Array.from(b.scores)).toEqual(Array.from(a.scores));
      }
      // both keep working identically after more inserts
      index.add(data.slice(1500, 1600));
      loaded.add(data.slice(1500, 1600));
      expect(Array.from(loaded.search(queries[1], { k: K }).slots)).toEqual(
        Array.from(index.search(queries[1], { k: K }).slots),
      );
    });
  });

  describe('memory growth', () => {
    it('should keep results correct while capacity doubles many times', () => {
      const index = new VectorIndex({ dim: DIM, distance: 'Dot', initialCapacity: 1 });
      for (let i = 0; i < N; i += 37) index.add(data.slice(i, i + 37));
      expect(index.size).toBe(N);
      for (let s = 0; s < N; s += 397) expect(Array.from(index.getVector(s))).toEqual(Array.from(data[s]));
      expect(recall(index, 'Dot', { k: K })).toBeGreaterThanOrEqual(0.95);
    });
  });
});
