import { JsonObject } from '@vectorstore/common';
import { Filter } from '../model/filter.model';
import { matchesFilter } from '../filter/filter-evaluator';
import {
  collectGroups,
  GROUP_FILLING_ROUNDS,
  GROUP_FINDING_ROUNDS,
  groupIdsOf,
  groupPointId,
  GroupsAggregator,
} from './grouping';

interface Hit {
  key: string;
  score: number;
}

const hit = (id: number, score: number): Hit => ({ key: String(id), score });

describe('groupIdsOf', () => {
  it('should take keywords and integers, one id per distinct array element', () => {
    expect(groupIdsOf({ g: 'a' }, 'g')).toEqual(['a']);
    expect(groupIdsOf({ g: 7n }, 'g')).toEqual([7n]);
    expect(groupIdsOf({ g: ['a', 3n, 'a'] }, 'g')).toEqual(['a', 3n]);
    expect(groupIdsOf({ doc: { id: -2n } }, 'doc.id')).toEqual([-2n]);
    expect(groupIdsOf({ docs: [{ id: 'x' }, { id: 'y' }] }, 'docs[].id')).toEqual(['x', 'y']);
  });

  it('should skip points without the key or with a value that is not a keyword or an integer', () => {
    expect(groupIdsOf({}, 'g')).toBeUndefined();
    expect(groupIdsOf({ g: [] }, 'g')).toBeUndefined();
    expect(groupIdsOf({ g: 1.5 }, 'g')).toBeUndefined();
    expect(groupIdsOf({ g: true }, 'g')).toBeUndefined();
    expect(groupIdsOf({ g: null }, 'g')).toBeUndefined();
    expect(groupIdsOf({ g: ['a', false] }, 'g')).toBeUndefined();
    expect(groupIdsOf({ g: { a: 1n } }, 'g')).toBeUndefined();
  });
});

describe('groupPointId', () => {
  it('should accept u64 integers and canonical UUIDs only', () => {
    expect(groupPointId(5n)).toBe(5n);
    expect(groupPointId(-1n)).toBeUndefined();
    expect(groupPointId(1n << 64n)).toBeUndefined();
    expect(groupPointId('550e8400-e29b-41d4-a716-446655440000')).toBe('550e8400-e29b-41d4-a716-446655440000');
    expect(groupPointId('550E8400-E29B-41D4-A716-446655440000')).toBeUndefined();
    expect(groupPointId('7')).toBeUndefined();
  });
});

describe(GroupsAggregator.name, () => {
  describe('distill', () => {
    it('should put a point with several values in each group and order groups by their best hit', () => {
      const aggregator = new GroupsAggregator<Hit>(3, 2, true);
      aggregator.add(hit(1, 0.99), ['a']);
      aggregator.add(hit(2, 0.85), ['a', 'b']);
      aggregator.add(hit(3, 0.75), ['b']);
      const groups = aggregator.distill();
      expect(groups.map((g) => [g.id, g.hits.map((h) => h.key)])).toEqual([
        ['a', ['1', '2']],
        ['b', ['2', '3']],
      ]);
    });

    it('should keep the best `limit` groups and the best `groupSize` hits, lower first for distances', () => {
      const aggregator = new GroupsAggregator<Hit>(2, 2, false);
      [hit(1, 5), hit(2, 1), hit(3, 3), hit(4, 0.5), hit(5, 2), hit(6, 9)].forEach((h, i) =>
        aggregator.add(h, [['x', 'y', 'x', 'z', 'y', 'x'][i]]),
      );
      const groups = aggregator.distill();
      expect(groups.map((g) => [g.id, g.hits.map((h) => h.score)])).toEqual([
        ['z', [0.5]],
        ['y', [1, 2]],
      ]);
      expect(aggregator.filledBestCount()).toBe(1);
      expect(aggregator.unfilledBestGroupIds()).toEqual(['z']);
      expect(aggregator.filledGroupIds().sort()).toEqual(['x', 'y']);
    });

    it('should not count a point twice in a group', () => {
      const aggregator = new GroupsAggregator<Hit>(1, 3, true);
      aggregator.add(hit(1, 0.9), ['a']);
      aggregator.add(hit(1, 0.9), ['a']);
      expect(aggregator.distill()[0].hits).toHaveLength(1);
      expect([...aggregator.pointKeys]).toEqual(['1']);
    });
  });
});

describe('collectGroups', () => {
  /** A brute-force "search": every point passing the filter, best first, at most `limit`. */
  function searcher(points: Array<{ id: number; score: number; payload: JsonObject }>, limit: number) {
    const filters: Filter[] = [];
    const search = (extra: Filter): Hit[] => {
      filters.push(extra);
      return points
        .filter((p) => matchesFilter(extra, { id: BigInt(p.id), payload: p.payload, hasVector: () => true }))
        .sort((a, b) => b.score - a.score)
        .slice(0, limit)
        .map((p) => hit(p.id, p.score));
    };
    const payloadOf = (h: Hit) => points.find((p) => String(p.id) === h.key)!.payload;
    return { search, payloadOf, filters };
  }

  it('should fill groups whose hits rank far below the first round', () => {
    // 'a' dominates the top scores; 'b' and 'c' only appear further down.
    const points = [
      ...Array.from({ length: 20 }, (_, i) => ({ id: i, score: 100 - i, payload: { g: 'a' } })),
      { id: 100, score: 10, payload: { g: 'b' } },
      { id: 101, score: 9, payload: { g: 'c' } },
      { id: 102, score: 8, payload: { g: 'b' } },
      { id: 103, score: 7, payload: { g: 'c' } },
      { id: 104, score: 6, payload: {} },
    ];
    const { search, payloadOf, filters } = searcher(points, 3 * 2);
    const groups = collectGroups({ groupBy: 'g', groupSize: 2, limit: 3, higherIsBetter: true }, search, payloadOf);
    expect(groups.map((g) => [g.id, g.hits.map((h) => h.key)])).toEqual([
      ['a', ['0', '1']],
      ['b', ['100', '102']],
      ['c', ['101', '103']],
    ]);
    expect(filters.length).toBeLessThanOrEqual(GROUP_FINDING_ROUNDS + GROUP_FILLING_ROUNDS);
  });

  it('should stop when a round finds nothing new, with the groups the data allows', () => {
    const points = [
      { id: 1, score: 3, payload: { g: [1n, 2n] } },
      { id: 2, score: 2, payload: { g: 2n } },
      { id: 3, score: 1, payload: { g: 1.5 } },
    ];
    const { search, payloadOf } = searcher(points, 10 * 5);
    const groups = collectGroups({ groupBy: 'g', groupSize: 5, limit: 10, higherIsBetter: true }, search, payloadOf);
    expect(groups.map((g) => [g.id, g.hits.map((h) => h.key)])).toEqual([
      [1n, ['1']],
      [2n, ['1', '2']],
    ]);
  });

  it('should ask only for points holding the key, and leave out points and full groups already found', () => {
    const points = [
      { id: 1, score: 3, payload: { g: 'a' } },
      { id: 2, score: 2, payload: { g: 'b' } },
      { id: 3, score: 1, payload: { g: 'b' } },
    ];
    const { search, payloadOf, filters } = searcher(points, 1);
    collectGroups({ groupBy: 'g', groupSize: 1, limit: 2, higherIsBetter: true }, search, payloadOf);
    expect(filters[0]).toEqual({ must: [], mustNot: [{ isEmpty: { key: 'g' } }] });
    expect(filters[1]).toEqual({
      must: [{ field: { key: 'g', match: { exceptKeywords: ['a'] } } }],
      mustNot: [{ isEmpty: { key: 'g' } }, { hasId: [1n] }],
    });
    expect(filters).toHaveLength(2);
  });
});
