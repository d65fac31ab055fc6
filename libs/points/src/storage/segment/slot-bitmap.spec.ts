import { Rng } from '../../../../../test/support/seeded-random';
import { Filter } from '../../model/filter.model';
import { IdTracker } from './id-tracker';
import { Segment } from './segment';
import { clearBitsOf, setSlotBits } from './slot-bitmap';

const bitsOf = (bitmap: Uint8Array, n: number) =>
  Array.from({ length: n }, (_, s) => (bitmap[s >> 3] & (1 << (s & 7))) !== 0);

describe('slot bitmaps', () => {
  describe(setSlotBits.name, () => {
    it('should set exactly the given slots', () => {
      const bitmap = new Uint8Array(20);
      setSlotBits(bitmap, Uint32Array.of(0, 7, 8, 63, 64, 159));
      expect(bitsOf(bitmap, 160).flatMap((on, s) => (on ? [s] : []))).toEqual([0, 7, 8, 63, 64, 159]);
    });
  });

  describe(clearBitsOf.name, () => {
    it('should clear the bits set in the other bitmap, aligned or not, over the common length', () => {
      const rng = new Rng(21);
      for (const [offA, offB, lenA, lenB] of [
        [0, 0, 64, 64],
        [0, 0, 37, 64],
        [0, 0, 64, 13],
        [1, 0, 40, 40],
        [0, 3, 40, 40],
      ]) {
        const a = Uint8Array.from({ length: offA + lenA }, () => rng.below(256)).subarray(offA);
        const b = Uint8Array.from({ length: offB + lenB }, () => rng.below(256)).subarray(offB);
        const want = Array.from(a, (x, i) => (i < b.length ? x & ~b[i] & 0xff : x));
        clearBitsOf(a, b);
        expect(Array.from(a)).toEqual(want);
      }
    });
  });
});

describe('Segment.filterPredicate (payload index answers the filter)', () => {
  it('should allow exactly the live slots the plain evaluator matches', () => {
    const segment = Segment.create(new Map(), { appendable: true, indexed: false });
    const rng = new Rng(22);
    const n = 3001;
    for (let i = 0; i < n; i++) segment.upsert(i + 1, BigInt(i + 1), {}, { tag: `t${rng.below(10)}` });
    segment.createFieldIndex('tag', 'Keyword');
    for (let i = 0; i < 400; i++) segment.delete(n + 1 + i, rng.below(n));
    const filters: Filter[] = [
      { must: [{ field: { key: 'tag', match: { keyword: 't3' } } }] },
      {
        should: [
          { field: { key: 'tag', match: { keyword: 't1' } } },
          { field: { key: 'tag', match: { keyword: 't2' } } },
        ],
      },
      { must: [{ field: { key: 'tag', match: { keyword: 'none' } } }] },
    ];
    for (const filter of filters) {
      const predicate = segment.filterPredicate(filter);
      expect(predicate.bitmap).toBeDefined();
      const got = bitsOf(predicate.bitmap!, n);
      const want = Array.from({ length: n }, (_, s) => !segment.isDeleted(s) && segment.matches(s, filter));
      expect(got).toEqual(want);
    }
  });
});

describe('IdTracker.clearDeleted', () => {
  it('should clear the bits of deleted slots only', () => {
    const segment = Segment.create(new Map(), { appendable: true, indexed: false });
    for (let i = 0; i < 200; i++) segment.upsert(i + 1, BigInt(i + 1), {}, {});
    const gone = [0, 31, 32, 100, 199];
    gone.forEach((slot, i) => segment.delete(300 + i, slot));
    const bitmap = new Uint8Array(25).fill(0xff);
    (segment as unknown as { parts: { ids: IdTracker } }).parts.ids.clearDeleted(bitmap);
    expect(bitsOf(bitmap, 200).flatMap((on, s) => (on ? [] : [s]))).toEqual(gone);
  });
});

describe('setSlotBits on any slot list', () => {
  it('should equal a bit-by-bit reference for sorted, unsorted and tail slots, aligned or not', () => {
    const rng = new Rng(23);
    for (const len of [1, 4, 5, 13, 64]) {
      for (const off of [0, 1]) {
        const n = len * 8;
        const sorted = Uint32Array.from(new Set(Array.from({ length: n / 3 + 1 }, () => rng.below(n)))).sort();
        const unsorted = Uint32Array.from(Array.from({ length: 20 }, () => rng.below(n)));
        for (const slots of [sorted, unsorted, Uint32Array.of(n - 1), Uint32Array.of()]) {
          const bitmap = new Uint8Array(len + off).subarray(off);
          bitmap[0] = 0x10; // existing bits stay
          const want = bitsOf(bitmap, n);
          for (const s of slots) want[s] = true;
          setSlotBits(bitmap, slots);
          expect(bitsOf(bitmap, n)).toEqual(want);
        }
      }
    }
  });
});
