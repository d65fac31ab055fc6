import { VectorIndex } from './vector-index';

describe('search bounds', () => {
  const index = new VectorIndex({
    dim: 8,
    distance: 'Euclid',
    m: 8,
    efConstruct: 32,
    quantization: { scalar: { type: 'int8' } },
  });
  index.add(Float32Array.from({ length: 200 * 8 }, (_, i) => Math.sin(i)));
  const query = Array.from({ length: 8 }, (_, i) => Math.cos(i));

  it('should not size its heap by an ef, k or oversampling far beyond the slots there are', async () => {
    const before = index.memoryBytes;
    const huge = 1 << 24;
    const results = [
      index.search(query, { k: 10, ef: huge }),
      index.search(query, { k: huge }),
      index.search(query, { k: 10, quantization: { oversampling: 1e9 } }),
      index.searchCandidates(query, { k: huge, ef: huge }),
      await index.searchAsync(query, { k: huge, ef: huge }),
    ];
    expect(results.map((r) => r.slots.length)).toEqual([10, 200, 10, 200, 200]);
    // a heap for 16M candidates would take gigabytes; the slots bound it
    expect(index.memoryBytes - before).toBeLessThan(1 << 20);
    expect(index.search(query, { k: 10, ef: huge }).slots).toEqual(index.search(query, { k: 10, ef: 200 }).slots);
  });

  it('should honour a filter when k outgrows the heap (the bitmap is written after the heap is sized)', async () => {
    // An appendable segment's index: a tiny heap (ef_construct 4), points added one by one.
    const big = new VectorIndex({ dim: 4, distance: 'Cosine', m: 2, efConstruct: 4, initialCapacity: 256 });
    for (let p = 0; p < 3000; p++)
      big.add(Float32Array.from({ length: 4 }, (_, i) => Math.abs(Math.sin((p * 4 + i) * 0.37))));
    const allowed = (slot: number): boolean => slot < 100;
    const query = Array.from({ length: 4 }, (_, i) => Math.abs(Math.cos(i)));
    for (const k of [999, 1000, 5000, 10]) {
      const found = big.search(query, { k, allowed, exact: true });
      expect(found.slots.length).toBe(Math.min(k, 100));
      expect(Array.from(found.slots).every(allowed)).toBe(true);
      expect((await big.searchAsync(query, { k, allowed })).slots.length).toBe(Math.min(k, 100));
    }
    await big.dispose();
  });

  afterAll(() => index.dispose());
});
