import { ScoredPoint } from '@vectorstore/points';
import { mergeFacets, mergeGot, mergeOrderedPages, mergeScored, mergeScrollPages } from './result-merge';

const hit = (id: number, score: number): ScoredPoint => ({ id: BigInt(id), score, version: 0 });
const ids = (points: Array<{ id: unknown }>) => points.map((p) => Number(p.id));

describe('result-merge', () => {
  describe(mergeScored.name, () => {
    it('should interleave per-peer lists by score, best first, ties by id, without duplicates', () => {
      const merged = mergeScored(
        [
          [hit(1, 0.9), hit(4, 0.5), hit(7, 0.1)],
          [hit(2, 0.8), hit(3, 0.5), hit(1, 0.9)],
        ],
        { by: 'score', higherIsBetter: true },
        4,
      );
      expect(ids(merged)).toEqual([1, 2, 3, 4]);
    });

    it('should put the smallest first for distances (lower is better)', () => {
      const merged = mergeScored([[hit(1, 0.2), hit(2, 3)], [hit(3, 0.1)]], { by: 'score', higherIsBetter: false }, 3);
      expect(ids(merged)).toEqual([3, 1, 2]);
    });

    it('should merge order_by results by value, descending with higher ids first on ties', () => {
      const at = (id: number, value: number): ScoredPoint => ({ ...hit(id, 0), orderValue: { int: BigInt(value) } });
      const merged = mergeScored(
        [
          [at(1, 5), at(2, 3)],
          [at(3, 5), at(4, 1)],
        ],
        { by: 'orderValue', direction: 'Desc' },
        10,
      );
      expect(ids(merged)).toEqual([3, 1, 2, 4]);
    });
  });

  describe(mergeScrollPages.name, () => {
    it('should take the first `limit` ids over all pages and give the smallest id left as the next offset', () => {
      const page = (list: number[], next?: number) => ({
        points: list.map((id) => ({ id: BigInt(id) })),
        nextPageOffset: next === undefined ? undefined : BigInt(next),
      });
      const merged = mergeScrollPages([page([1, 4, 9], 12), page([2, 3, 5], 6), page([7])], 3);
      expect(ids(merged.points)).toEqual([1, 2, 3]);
      expect(merged.nextPageOffset).toBe(4n);
    });

    it('should end paging when no peer has more', () => {
      const merged = mergeScrollPages([{ points: [{ id: 1n }] }, { points: [{ id: 2n }] }], 5);
      expect(ids(merged.points)).toEqual([1, 2]);
      expect(merged.nextPageOffset).toBeUndefined();
    });

    it("should offer a peer's next offset when it is smaller than every point left over", () => {
      const merged = mergeScrollPages(
        [
          { points: [{ id: 1n }, { id: 2n }], nextPageOffset: 3n },
          { points: [{ id: 10n }, { id: 11n }], nextPageOffset: 12n },
        ],
        2,
      );
      expect(merged.nextPageOffset).toBe(3n);
    });
  });

  it('should order scroll-by-value pages ascending by value, then id', () => {
    const at = (id: number, value: number) => ({ id: BigInt(id), orderValue: { float: value } });
    const merged = mergeOrderedPages(
      [
        [at(5, 1), at(1, 2)],
        [at(2, 1), at(3, 0.5)],
      ],
      { key: 'n' },
      3,
    );
    expect(ids(merged)).toEqual([3, 2, 5]);
  });

  it('should sum facet counts over peers before cutting to the limit', () => {
    const merged = mergeFacets(
      [
        [
          { value: { keyword: 'a' }, count: 5 },
          { value: { keyword: 'b' }, count: 1 },
        ],
        [
          { value: { keyword: 'b' }, count: 6 },
          { value: { keyword: 'c' }, count: 5 },
        ],
      ],
      2,
    );
    expect(merged).toEqual([
      { value: { keyword: 'b' }, count: 7 },
      { value: { keyword: 'a' }, count: 5 },
    ]);
  });

  it('should return got points in the order asked, each once, skipping missing ones', () => {
    const merged = mergeGot([3n, 9n, 1n, 3n], [[{ id: 1n }], [{ id: 3n }]]);
    expect(ids(merged)).toEqual([3, 1]);
  });
});
