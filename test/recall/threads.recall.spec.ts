import { VectorIndex, reference } from '@vectorstore/engine';
import { clustered } from '../support/seeded-random';

const N = 8000;
const DIM = 32;
const data = clustered(N, DIM, 40, 31);
const queries = clustered(40, DIM, 40, 32);

describe(VectorIndex.name, () => {
  describe('add with maxIndexingThreads = 2', () => {
    const index = new VectorIndex({ dim: DIM, distance: 'Euclid', maxIndexingThreads: 2 });
    afterAll(() => index.dispose());

    it('should build a graph with recall@10 >= 0.95 (ef 200)', () => {
      index.add(data.slice(0, 5000));
      index.add(data.slice(5000));
      expect(index.size).toBe(N);
      let hits = 0;
      for (const q of queries) {
        const truth = new Set(reference.bruteForceRef('Euclid', q, data, 10).map((t) => t.slot));
        for (const s of index.search(q, { k: 10, ef: 200 }).slots) if (truth.has(s)) hits++;
      }
      expect(hits / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
    });

    it('should give the same results from searchAsync as from search, also concurrently', async () => {
      const sync = queries.map((q) => index.search(q, { k: 10, ef: 64 }));
      const asyncResults = await Promise.all(queries.map((q) => index.searchAsync(q, { k: 10, ef: 64 })));
      asyncResults.forEach((r, i) => {
        expect(Array.from(r.slots)).toEqual(Array.from(sync[i].slots));
        expect(Array.from(r.scores)).toEqual(Array.from(sync[i].scores));
      });
      const exact = await index.searchAsync(queries[0], { k: 5, exact: true, allowed: (s) => s % 2 === 1 });
      expect(Array.from(exact.slots)).toEqual(Array.from(index.exactSearch(queries[0], 5, (s) => s % 2 === 1).slots));
    });

    it('should refuse to add while async searches run, and take deletes at once', async () => {
      const pending = index.searchAsync(queries[1], { k: 10, exact: true });
      expect(index.pendingSearches).toBe(1);
      expect(() => index.add([queries[0]])).toThrow(/async searches are pending/);
      const before = index.search(queries[2], { k: 3, exact: true }).slots[0];
      expect(() => index.delete(before)).not.toThrow();
      await pending;
      expect(index.pendingSearches).toBe(0);
      const after = await index.searchAsync(queries[2], { k: 3, exact: true });
      expect(Array.from(after.slots)).not.toContain(before);
    });

    it('should score many slots beside running async searches without moving their memory', async () => {
      const slots = Array.from({ length: 3000 }, (_, i) => i + 1);
      const want = index.scoreSlots(queries[3], slots);
      const pending = Promise.all(queries.map((q) => index.searchAsync(q, { k: 10, ef: 64 })));
      expect(Array.from(index.scoreSlots(queries[3], slots))).toEqual(Array.from(want));
      const results = await pending;
      expect(results.every((r) => r.slots.length === 10)).toBe(true);
    });

    it('should size the heap at an async search so that no synchronous beam up to the index size grows it', async () => {
      // Growing the heap beside running workers is refused (EngineBusyError): after one async search, a
      // synchronous search of every point must fit the heap as it is.
      await index.searchAsync(queries[4], { k: 10, ef: 64 });
      const capacity = (index as unknown as { heapCap: number }).heapCap;
      const all = index.search(queries[5], { k: N, exact: true });
      expect(all.slots.length).toBe(N - index.deletedCount);
      expect((index as unknown as { heapCap: number }).heapCap).toBe(capacity);
    });

    /** 3000 of the points in an index with int8 quantization configured, not yet trained. */
    const int8Index = (): VectorIndex => {
      const index = new VectorIndex({
        dim: DIM,
        distance: 'Euclid',
        maxIndexingThreads: 2,
        quantization: { scalar: { type: 'int8' } },
      });
      index.add(data.slice(0, 3000));
      return index;
    };

    it('should search the original vectors beside a pending async search rather than train its quantizer', async () => {
      const other = int8Index();
      // This async search skips the quantizer, so it does not train it; training now would move its memory.
      const pending = other.searchAsync(queries[0], { k: 10, exact: true, quantization: { ignore: true } });
      const sync = other.search(queries[1], { k: 10, exact: true });
      expect(sync.slots.length).toBe(10);
      expect(other.quantization).toBeUndefined();
      expect((await pending).slots.length).toBe(10);
      await other.dispose();
    });

    it('should train a configured quantizer at the first async search', async () => {
      const other = int8Index();
      expect(other.quantization).toBeUndefined();
      const results = await Promise.all(queries.slice(0, 4).map((q) => other.searchAsync(q, { k: 10, ef: 64 })));
      expect(other.quantization).toBeDefined();
      expect(results.every((r) => r.slots.length === 10)).toBe(true);
      await other.dispose();
    });

    it('should dispose only after running async searches settled', async () => {
      const other = new VectorIndex({ dim: DIM, distance: 'Euclid', maxIndexingThreads: 2 });
      other.add(data.slice(0, 2000));
      const pending = other.searchAsync(queries[0], { k: 5, ef: 32 });
      await other.dispose();
      expect((await pending).slots.length).toBe(5);
    });
  });
});
