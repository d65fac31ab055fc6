import { QueryRequest } from '../model/query.model';
import { Segment } from '../storage/segment';
import { setSearchOffload } from '../storage/vectors/search-offload';
import { CollectionContexts } from './collection-context';
import { QueryEngine } from './query-engine';
import { openQueryEngine, QueryEngineFixture } from './query-engine.spec-helper';

const dense = (...values: number[]) => ({ kind: 'dense' as const, values: Float32Array.from(values) });
const request = (over: Partial<QueryRequest>): QueryRequest => ({
  prefetch: [],
  query: { nearest: { vector: dense(1, 0) } },
  limit: 5,
  offset: 0,
  withPayload: { enable: true },
  withVectors: { enable: true },
  ...over,
});

describe(QueryEngine.name, () => {
  let fixture: QueryEngineFixture;
  let contexts: CollectionContexts;
  let engine: QueryEngine;

  beforeAll(() => setSearchOffload('always'));
  afterAll(() => setSearchOffload('auto'));

  beforeEach(async () => {
    fixture = await openQueryEngine('vs-query-async-');
    ({ contexts, engine } = fixture);
    await fixture.collections.create({
      name: 'c',
      vectors: { params: { size: 2, distance: 'Dot' } },
    });
    // Points 1..300 in an optimizer-built (graph-indexed) segment, 301..310 in the active one.
    const context = contexts.resolve('c');
    const shard = [...context.storage.shards.values()][0].shard;
    const built = Array.from({ length: 300 }, (_, i) => ({
      id: BigInt(i + 1),
      vectors: { '': dense(i + 1, 1) },
      payload: { even: (i + 1) % 2 === 0 },
      version: 1,
    }));
    await shard.swapSegments([], Segment.build(context.storage.spaces as never, built, []));
    await shard.update({
      upsert: {
        points: Array.from({ length: 10 }, (_, i) => ({
          id: BigInt(301 + i),
          vectors: { '': dense(0.5 + i, 1) },
          payload: { even: i % 2 === 1 },
        })),
      },
    });
  });

  afterEach(() => fixture.close());

  describe('queryAsync', () => {
    const cases: [string, Partial<QueryRequest>][] = [
      ['a plain search', {}],
      ['an offset and a score threshold', { offset: 3, limit: 4, scoreThreshold: 296 }],
      ['a filter', { filter: { must: [{ field: { key: 'even', match: { boolean: true } } }] } }],
      ['an exact search by a stored point', { query: { nearest: { pointId: 7n } }, params: { exact: true } }],
      ['a prefetch (answered synchronously)', { prefetch: [request({ limit: 20 })] }],
    ];
    it.each(cases)('should answer %s as query does', async (_, over) => {
      const want = engine.query('c', request(over));
      const got = await engine.queryAsync('c', request(over));
      expect(got.map((p) => [p.id, p.score])).toEqual(want.map((p) => [p.id, p.score]));
      expect(got.map((p) => p.payload)).toEqual(want.map((p) => p.payload));
      expect(got.length).toBeGreaterThan(0);
    });

    const bad: [string, string, Partial<QueryRequest>][] = [
      ['a wrong dimension', 'c', { query: { nearest: { vector: dense(1, 2, 3) } } }],
      ['a missing vector name', 'c', { using: 'nope' }],
      ['hnsw_ef 0', 'c', { params: { hnswEf: 0 } }],
      ['a missing point', 'c', { query: { nearest: { pointId: 999n } } }],
      ['a missing collection', 'nope', {}],
    ];
    it.each(bad)('should refuse %s with the error query gives', async (_, name, over) => {
      let want: unknown;
      try {
        engine.query(name, request(over));
      } catch (error) {
        want = error;
      }
      expect(want).toBeDefined();
      await expect(engine.queryAsync(name, request(over))).rejects.toEqual(want);
    });
  });
});
