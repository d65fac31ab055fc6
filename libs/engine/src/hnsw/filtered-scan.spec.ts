import { Datatype, Distance } from '../distance/metric';
import { VectorIndex } from './vector-index';
import { Rng } from '../../../../test/support/seeded-random';

// The filtered exact scan (allowed bitmap and/or deletes, walked by words) against its slow twin: the
// plain exact scan of an index holding only the accepted vectors, in slot order. Both score the same rows
// with the same kernels in the same order, so their results must be identical, ties included.

const DISTANCES: Distance[] = ['Cosine', 'Euclid', 'Dot', 'Manhattan'];
const DATATYPES: Datatype[] = ['float32', 'float16', 'uint8'];

function vectors(n: number, dim: number, rng: Rng, levels?: number): Float32Array[] {
  // uint8 rows and the tie cases use small integers; the others gaussian values
  return Array.from({ length: n }, () =>
    Float32Array.from({ length: dim }, () => (levels ? rng.below(levels) : rng.gaussian())),
  );
}

function bitmapOf(n: number, pick: (slot: number) => boolean): Uint8Array {
  const bits = new Uint8Array(Math.ceil(n / 8));
  for (let s = 0; s < n; s++) if (pick(s)) bits[s >> 3] |= 1 << (s & 7);
  return bits;
}

interface Case {
  readonly distance: Distance;
  readonly datatype: Datatype;
  readonly dim: number;
  readonly n: number;
  readonly levels?: number;
}

/** The index, and the twin built from the accepted (allowed, not deleted) vectors; twin slot i is accepted[i]. */
function setUp(c: Case, allowed: (slot: number) => boolean, deleted: number[], seed: number) {
  const rng = new Rng(seed);
  const levels = c.levels ?? (c.datatype === 'uint8' ? 256 : undefined);
  const data = vectors(c.n, c.dim, rng, levels);
  const config = { dim: c.dim, distance: c.distance, datatype: c.datatype, m: 8, efConstruct: 32, seed: 1 };
  const index = new VectorIndex(config);
  index.add(data);
  if (deleted.length > 0) index.delete(deleted);
  const gone = new Set(deleted);
  const accepted: number[] = [];
  for (let s = 0; s < c.n; s++) if (allowed(s) && !gone.has(s)) accepted.push(s);
  const twin = new VectorIndex(config);
  if (accepted.length > 0) twin.add(accepted.map((s) => data[s]));
  const queries = vectors(5, c.dim, rng, levels);
  return { index, twin, accepted, queries };
}

function expectTwin(
  got: { slots: Uint32Array; scores: Float32Array },
  twin: { slots: Uint32Array; scores: Float32Array },
  accepted: number[],
): void {
  expect(Array.from(got.slots)).toEqual(Array.from(twin.slots, (s) => accepted[s]));
  expect(Array.from(got.scores)).toEqual(Array.from(twin.scores));
}

describe('VectorIndex exact scan with a filter', () => {
  describe('search (exact)', () => {
    for (const distance of DISTANCES) {
      for (const datatype of DATATYPES) {
        it(`should return the top k of a brute force over the accepted slots (${distance}, ${datatype})`, () => {
          const n = 1500 + 37; // the last bitmap word is partial
          const c = { distance, datatype, dim: 20, n };
          const rng = new Rng(3);
          const deleted = Array.from({ length: 60 }, () => rng.below(n));
          for (const [name, pick] of [
            ['10%', (s: number) => (s * 2654435761) % 10 === 3],
            ['1%', (s: number) => s % 97 === 5],
            ['50% random', () => rng.next() < 0.5],
            ['all', () => true],
          ] as const) {
            const allowedBits = bitmapOf(n, pick);
            const { index, twin, accepted, queries } = setUp(
              c,
              (s) => (allowedBits[s >> 3] & (1 << (s & 7))) !== 0,
              deleted,
              11,
            );
            for (const q of queries) {
              for (const k of [1, 10, accepted.length + 5]) {
                const got = index.search(q, { k, exact: true, allowed: allowedBits });
                expect(got.slots.length).toBe(Math.min(k, accepted.length));
                expectTwin(got, twin.search(q, { k, exact: true }), accepted);
              }
            }
            expect(name).toBeDefined();
          }
        });
      }
    }

    it('should keep ties as the plain scan does (many equal distances)', () => {
      for (const distance of DISTANCES) {
        const n = 700;
        const pick = (s: number) => s % 3 !== 1;
        const { index, twin, accepted, queries } = setUp(
          { distance, datatype: 'float32', dim: 3, n, levels: 3 },
          pick,
          [4, 5, 6, 64, 127, 128, 699],
          5,
        );
        for (const q of queries) {
          for (const k of [1, 7, 64, 300]) {
            expectTwin(
              index.search(q, { k, exact: true, allowed: bitmapOf(n, pick) }),
              twin.search(q, { k, exact: true }),
              accepted,
            );
          }
        }
      }
    });

    it('should scan deleted points out without a filter', () => {
      const n = 1000;
      const deleted = Array.from({ length: 200 }, (_, i) => (i * 37) % n);
      const { index, twin, accepted, queries } = setUp(
        { distance: 'Euclid', datatype: 'float32', dim: 128, n },
        () => true,
        deleted,
        8,
      );
      for (const q of queries)
        expectTwin(index.search(q, { k: 25, exact: true }), twin.search(q, { k: 25, exact: true }), accepted);
    });

    it('should return nothing for an empty bitmap, and the one allowed slot for a single bit', () => {
      const n = 333;
      const { index, queries } = setUp({ distance: 'Dot', datatype: 'float32', dim: 16, n }, () => true, [], 9);
      expect(
        index.search(queries[0], { k: 10, exact: true, allowed: new Uint8Array(Math.ceil(n / 8)) }).slots,
      ).toHaveLength(0);
      for (const only of [0, 63, 64, 332]) {
        const got = index.search(queries[0], { k: 10, exact: true, allowed: bitmapOf(n, (s) => s === only) });
        expect(Array.from(got.slots)).toEqual([only]);
      }
      // a bit past the last slot is ignored
      const past = new Uint8Array(Math.ceil(n / 8) + 8).fill(0xff);
      expect(index.search(queries[0], { k: n + 10, exact: true, allowed: past }).slots).toHaveLength(n);
    });

    it('should match a predicate filter and the bitmap of the same slots', () => {
      const n = 900;
      const pick = (s: number) => s % 7 === 2 || s % 11 === 0;
      const { index, queries } = setUp({ distance: 'Cosine', datatype: 'float32', dim: 32, n }, () => true, [], 10);
      for (const q of queries) {
        const a = index.search(q, { k: 20, exact: true, allowed: pick });
        const b = index.search(q, { k: 20, exact: true, allowed: bitmapOf(n, pick) });
        expect(Array.from(a.slots)).toEqual(Array.from(b.slots));
      }
    });
  });

  describe('search (exact) against scoreSlots of every slot', () => {
    // scoreSlots scores each row in full with the distance kernels, independently of the scans
    for (const distance of DISTANCES) {
      it(`should keep the k best scores of the accepted slots, with or without a filter (${distance})`, () => {
        const n = 2000;
        const rng = new Rng(14);
        const data = vectors(n, 128, rng);
        const index = new VectorIndex({ dim: 128, distance, m: 8, efConstruct: 32 });
        index.add(data);
        const all = Array.from({ length: n }, (_, s) => s);
        const better = distance === 'Euclid' || distance === 'Manhattan' ? -1 : 1; // sign: higher score first
        // no filter and no deletes (the sequential scan), two filters (the bitmap walk), then with deletes
        for (const deletes of [[], [5, 6, 7, 1000]]) {
          index.delete(deletes);
          for (const pick of [undefined, (s: number) => s % 10 === 3, (s: number) => s % 3 !== 0]) {
            const allowed = pick && bitmapOf(n, pick);
            for (const q of vectors(4, 128, rng)) {
              const scores = index.scoreSlots(q, all);
              const ranked = all
                .filter((s) => (pick?.(s) ?? true) && !index.isDeleted(s))
                .map((s) => scores[s])
                .sort((a, b) => better * (b - a));
              for (const k of [1, 10, 100]) {
                const got = index.search(q, { k, exact: true, allowed });
                expect(Array.from(got.scores)).toEqual(ranked.slice(0, k));
                for (let i = 0; i < got.slots.length; i++) {
                  expect((pick?.(got.slots[i]) ?? true) && !index.isDeleted(got.slots[i])).toBe(true);
                  expect(scores[got.slots[i]]).toBe(got.scores[i]);
                }
              }
            }
          }
        }
      });
    }
  });

  describe('searchCandidates (exact, quantized codes)', () => {
    for (const quantization of [
      { scalar: { type: 'int8' as const } },
      { binary: {} },
      { product: { compression: 'x4' as const } },
    ]) {
      it(`should give the best allowed candidates of the unfiltered code ranking (${Object.keys(quantization)[0]})`, () => {
        const n = 1200;
        const rng = new Rng(12);
        const data = vectors(n, 32, rng);
        const index = new VectorIndex({ dim: 32, distance: 'Euclid', quantization, seed: 2 });
        index.add(data);
        index.quantize();
        index.delete([1, 2, 3, 500, 1199]);
        const pick = (s: number) => s % 10 === 1 || s % 10 === 2;
        const allowed = bitmapOf(n, pick);
        for (const q of vectors(4, 32, rng)) {
          const all = index.searchCandidates(q, { k: n, exact: true });
          const got = index.searchCandidates(q, { k: 15, exact: true, allowed });
          const want = Array.from(all.slots.keys())
            .filter((i) => pick(all.slots[i]))
            .slice(0, 15);
          // same scores in the same order; slots the same up to ties at equal scores
          expect(Array.from(got.scores)).toEqual(want.map((i) => all.scores[i]));
          for (const s of got.slots) expect(pick(s) && !index.isDeleted(s)).toBe(true);
          expect(new Set(got.slots).size).toBe(got.slots.length);
        }
      });
    }
  });

  describe('searchAsync (exact, on a worker)', () => {
    const n = 3000;
    const pick = (s: number) => s % 10 === 4;
    const { index, twin, accepted, queries } = setUp(
      { distance: 'Euclid', datatype: 'float32', dim: 64, n },
      pick,
      [4, 14, 2994],
      13,
    );
    afterAll(() => index.dispose());

    it('should return what the twin scan returns', async () => {
      for (const q of queries) {
        const got = await index.searchAsync(q, { k: 10, exact: true, allowed: bitmapOf(n, pick) });
        expectTwin(got, twin.search(q, { k: 10, exact: true }), accepted);
      }
    });
  });
});
