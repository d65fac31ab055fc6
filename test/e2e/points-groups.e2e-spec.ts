import * as grpc from '@grpc/grpc-js';
import { valuesAt } from './support/points-brute-force';
import {
  CollectionsClient,
  createCollectionsClient,
  createPointsClient,
  credentials,
  unary,
} from './support/grpc-clients';
import {
  DistanceName,
  JsonObject,
  RetrievedPoint,
  ScoredPoint,
  caller,
  denseOf,
  expectGrpcError,
  expectSameRanking,
  fromPayload,
  higherIsBetter,
  idOf,
  keyOf,
  pid,
  score,
  toPayload,
  unnamed,
} from './support/points-helpers';
import { Rng } from '../support/seeded-random';
import { RunningServer, startServer } from './support/server-harness';

// The official client, unchanged, on the /qdrant.* paths (CommonJS build).
const { QdrantClient } = require('@qdrant/js-client-grpc') as typeof import('@qdrant/js-client-grpc');

jest.setTimeout(60_000);

/**
 * SearchGroups / RecommendGroups / QueryGroups and Discover / DiscoverBatch (and the Query API's
 * discover and context variants) against brute-force models written from Qdrant's documented
 * behaviour: groups by their best hit, each with its best `group_size` hits, arrays counting in
 * every group; discovery = sum over pairs of ±1 (closer to positive / negative) + squashed target
 * similarity; context = sum over pairs of fast_sigmoid(min(sim+ - sim- - eps, 0)).
 */

interface ModelPoint {
  id: number;
  vector: number[];
  payload: JsonObject;
}

interface PointGroup {
  id: { stringValue?: string; unsignedValue?: string; integerValue?: string; kind: string };
  hits: ScoredPoint[];
  lookup?: RetrievedPoint;
}

interface GroupsResponse {
  result: { groups: PointGroup[] };
}

const GROUPS = 'groups';
const DOCS = 'docs';
const DISCOVER_DOT = 'discover_dot';
const DISCOVER_EUCLID = 'discover_euclid';
const DIM = 4;
const Q = [0.3, -0.2, 0.8, 0.5];
const TAGS = ['red', 'green', 'blue', 'cyan'];

/** Group points: 'd0' clusters around Q (it dominates the top hits); other groups are spread out. */
function groupPoints(): ModelPoint[] {
  const rng = new Rng(7_2024);
  const points: ModelPoint[] = [];
  for (let id = 1; id <= 90; id++) {
    const dominant = id <= 24;
    const vector = dominant ? Q.map((q) => Math.fround(1.5 * q + rng.float(-0.1, 0.1))) : rng.vector(DIM);
    const payload: JsonObject = {
      num: rng.int(-3, 3),
      docId: rng.int(1, 8),
      tags: TAGS.filter(() => rng.bool(0.4)),
    };
    if (id % 13 === 0) {
      // no `doc`: such points are never grouped by it
    } else if (id % 17 === 0) {
      payload.doc = 2.5; // a float is not a group id: skipped
    } else {
      payload.doc = dominant ? 'd0' : `d${rng.int(1, 6)}`;
    }
    if (id % 11 === 0) payload.tags = ['red', true]; // one bad element: the point is skipped
    points.push({ id, vector, payload });
  }
  return points;
}

function discoverPoints(): ModelPoint[] {
  const rng = new Rng(99);
  return Array.from({ length: 40 }, (_, i) => ({
    id: i + 1,
    vector: rng.vector(3),
    payload: { grp: `g${rng.int(1, 5)}` },
  }));
}

/** Group ids of a payload value, as Qdrant: keywords and integers, each array element counting; undefined to skip. */
function groupKeysOf(payload: JsonObject, groupBy: string): string[] | undefined {
  const values = valuesAt(payload, groupBy).flatMap((v) => (Array.isArray(v) ? v : [v]));
  const keys = new Set<string>();
  for (const v of values) {
    if (typeof v === 'string') keys.add(`s:${v}`);
    else if ((typeof v === 'number' && Number.isInteger(v)) || typeof v === 'bigint') keys.add(`i:${v}`);
    else return undefined;
  }
  return keys.size === 0 ? undefined : [...keys];
}

const groupKeyOf = (id: PointGroup['id']): string =>
  id.kind === 'stringValue' ? `s:${id.stringValue}` : `i:${id.unsignedValue ?? id.integerValue}`;

interface ExpectedGroup {
  key: string;
  hits: Array<[string, number]>;
}

/** Brute-force groups: every point scored, groups ranked by their best hit, `size` best hits each. */
function expectedGroups(
  distance: DistanceName,
  query: number[],
  points: ModelPoint[],
  options: { groupBy: string; limit: number; size: number; keep?: (p: ModelPoint) => boolean },
): ExpectedGroup[] {
  const higher = higherIsBetter(distance);
  const better = (a: number, b: number) => (higher ? b - a : a - b);
  const groups = new Map<string, Array<[string, number]>>();
  for (const p of points) {
    if (options.keep && !options.keep(p)) continue;
    const keys = groupKeysOf(p.payload, options.groupBy);
    if (!keys) continue;
    const hit: [string, number] = [keyOf(p.id), score(distance, query, p.vector)];
    for (const key of keys) groups.set(key, [...(groups.get(key) ?? []), hit]);
  }
  return [...groups.entries()]
    .map(([key, hits]) => ({ key, hits: hits.sort((a, b) => better(a[1], b[1])) }))
    .sort((a, b) => better(a.hits[0][1], b.hits[0][1]))
    .slice(0, options.limit)
    .map((g) => ({ key: g.key, hits: g.hits.slice(0, options.size) }));
}

function expectGroups(actual: PointGroup[], expected: ExpectedGroup[]): void {
  expect(actual.map((g) => groupKeyOf(g.id))).toEqual(expected.map((g) => g.key));
  actual.forEach((group, i) =>
    expectSameRanking(
      group.hits.map((h) => [idOf(h.id), h.score]),
      expected[i].hits,
      expected[i].hits.length,
    ),
  );
}

/** Raw similarity as Qdrant's custom queries compare it: dot, or minus the squared Euclid distance. */
function similarity(distance: 'Dot' | 'Euclid', a: number[], b: number[]): number {
  return distance === 'Dot' ? score('Dot', a, b) : -(score('Euclid', a, b) ** 2);
}

const fastSigmoid = (x: number) => x / (1 + Math.abs(x));

interface Pair {
  positive: number[];
  negative: number[];
}

function discoveryScore(distance: 'Dot' | 'Euclid', v: number[], target: number[], pairs: Pair[]): number {
  const rank = pairs.reduce(
    (s, p) => s + Math.sign(similarity(distance, v, p.positive) - similarity(distance, v, p.negative)),
    0,
  );
  return rank + 0.5 * (fastSigmoid(similarity(distance, v, target)) + 1);
}

function contextScore(distance: 'Dot' | 'Euclid', v: number[], pairs: Pair[]): number {
  return pairs.reduce(
    (s, p) =>
      s +
      fastSigmoid(
        Math.min(similarity(distance, v, p.positive) - similarity(distance, v, p.negative) - 1.1920929e-7, 0),
      ),
    0,
  );
}

describe('Points groups and discovery (gRPC, e2e)', () => {
  let server: RunningServer;
  let points: grpc.Client;
  let collections: CollectionsClient;
  let call: ReturnType<typeof caller>;
  const grouped = groupPoints();
  const discovered = discoverPoints();
  const vectorOf = (id: number) => discovered.find((p) => p.id === id)!.vector;

  const groupsCall = async (method: string, request: object) =>
    (await call<GroupsResponse>(method, request)).result.groups;
  const upsert = (collectionName: string, model: ModelPoint[]) =>
    call('Upsert', {
      collectionName,
      wait: true,
      points: model.map((p) => ({ id: pid(p.id), vectors: unnamed(p.vector), payload: toPayload(p.payload) })),
    });

  beforeAll(async () => {
    server = await startServer();
    points = createPointsClient(server.grpcAddress, credentials(server.apiKey));
    collections = createCollectionsClient(server.grpcAddress, credentials(server.apiKey));
    call = caller(points);
    const create = (collectionName: string, size: number, distance: string) =>
      unary(collections, 'Create', { collectionName, vectorsConfig: { params: { size, distance } } });
    await create(GROUPS, DIM, 'Dot');
    await create(DOCS, 2, 'Dot');
    await create(DISCOVER_DOT, 3, 'Dot');
    await create(DISCOVER_EUCLID, 3, 'Euclid');
    await upsert(GROUPS, grouped);
    // Lookup targets for docId 1..6; 7 and 8 have none.
    await upsert(
      DOCS,
      Array.from({ length: 6 }, (_, i) => ({ id: i + 1, vector: [i, 1], payload: { title: `Doc ${i + 1}` } })),
    );
    await upsert(DISCOVER_DOT, discovered);
    await upsert(DISCOVER_EUCLID, discovered);
  });

  afterAll(async () => {
    points?.close();
    collections?.close();
    await server?.stop();
  });

  describe('SearchGroups', () => {
    it('should group by a keyword, filling groups that rank far below the dominant one', async () => {
      const groups = await groupsCall('SearchGroups', {
        collectionName: GROUPS,
        vector: Q,
        groupBy: 'doc',
        groupSize: 3,
        limit: 4,
      });
      expect(groups).toHaveLength(4);
      expect(groups[0].id).toEqual({ stringValue: 'd0', kind: 'stringValue' });
      for (const g of groups) expect(g.hits).toHaveLength(3);
      expectGroups(groups, expectedGroups('Dot', Q, grouped, { groupBy: 'doc', limit: 4, size: 3 }));
    });

    it('should group by an integer, negative values as integer_value and others as unsigned_value', async () => {
      const groups = await groupsCall('SearchGroups', {
        collectionName: GROUPS,
        vector: Q,
        groupBy: 'num',
        groupSize: 2,
        limit: 7,
      });
      expectGroups(groups, expectedGroups('Dot', Q, grouped, { groupBy: 'num', limit: 7, size: 2 }));
      const kinds = new Map(groups.map((g) => [groupKeyOf(g.id), g.id.kind]));
      expect(kinds.get('i:-3')).toBe('integerValue');
      expect(kinds.get('i:2')).toBe('unsignedValue');
    });

    it('should put a point with an array value in the group of each element', async () => {
      const groups = await groupsCall('SearchGroups', {
        collectionName: GROUPS,
        vector: Q,
        groupBy: 'tags',
        groupSize: 5,
        limit: 4,
      });
      const expected = expectedGroups('Dot', Q, grouped, { groupBy: 'tags', limit: 4, size: 5 });
      expectGroups(groups, expected);
      const memberships = new Map<string, number>();
      for (const g of groups)
        for (const h of g.hits) memberships.set(idOf(h.id), (memberships.get(idOf(h.id)) ?? 0) + 1);
      expect(Math.max(...memberships.values())).toBeGreaterThan(1);
      // Points with a bad element ('red', true) are in no group.
      expect([...memberships.keys()]).not.toContain(keyOf(11));
    });

    it('should respect group_size and limit, with fewer groups when the data has fewer', async () => {
      const groups = await groupsCall('SearchGroups', {
        collectionName: GROUPS,
        vector: Q,
        groupBy: 'doc',
        groupSize: 1,
        limit: 50,
      });
      expectGroups(groups, expectedGroups('Dot', Q, grouped, { groupBy: 'doc', limit: 50, size: 1 }));
      expect(groups).toHaveLength(7); // d0..d6
      for (const g of groups) expect(g.hits).toHaveLength(1);
    });

    it('should apply the filter, score_threshold, with_payload and with_vectors', async () => {
      const filter = { must: [{ field: { key: 'num', range: { gte: 0 } } }] };
      const groups = await groupsCall('SearchGroups', {
        collectionName: GROUPS,
        vector: Q,
        groupBy: 'doc',
        groupSize: 2,
        limit: 3,
        filter,
        scoreThreshold: 0.2,
        withPayload: { include: { fields: ['doc'] } },
        withVectors: { enable: true },
      });
      const keep = (p: ModelPoint) => (p.payload.num as number) >= 0 && score('Dot', Q, p.vector) >= 0.2;
      expectGroups(groups, expectedGroups('Dot', Q, grouped, { groupBy: 'doc', limit: 3, size: 2, keep }));
      for (const hit of groups.flatMap((g) => g.hits)) {
        const model = grouped.find((p) => keyOf(p.id) === idOf(hit.id))!;
        expect(fromPayload(hit.payload)).toEqual({ doc: model.payload.doc });
        denseOf(hit.vectors?.vector)!.forEach((x, i) => expect(x).toBeCloseTo(model.vector[i], 5));
      }
    });

    it('should attach the point of the lookup collection whose id is the group id', async () => {
      const groups = await groupsCall('SearchGroups', {
        collectionName: GROUPS,
        vector: Q,
        groupBy: 'docId',
        groupSize: 2,
        limit: 8,
        withLookup: { collection: DOCS },
      });
      expectGroups(groups, expectedGroups('Dot', Q, grouped, { groupBy: 'docId', limit: 8, size: 2 }));
      for (const group of groups) {
        const docId = Number(group.id.unsignedValue);
        if (docId <= 6) {
          expect(group.lookup?.id).toMatchObject({ num: String(docId) });
          expect(fromPayload(group.lookup?.payload)).toEqual({ title: `Doc ${docId}` });
          expect(group.lookup?.vectors).toBeFalsy();
        } else {
          expect(group.lookup).toBeFalsy();
        }
      }
      const withVectors = await groupsCall('SearchGroups', {
        collectionName: GROUPS,
        vector: Q,
        groupBy: 'docId',
        groupSize: 1,
        limit: 8,
        withLookup: { collection: DOCS, withPayload: { enable: false }, withVectors: { enable: true } },
      });
      const looked = withVectors.find((g) => g.id.unsignedValue === '3')!.lookup!;
      expect(fromPayload(looked.payload)).toEqual({});
      expect(denseOf(looked.vectors?.vector)).toEqual([2, 1]);
      // Keyword group ids are not point ids: no lookup, no error.
      const byKeyword = await groupsCall('SearchGroups', {
        collectionName: GROUPS,
        vector: Q,
        groupBy: 'doc',
        groupSize: 1,
        limit: 2,
        withLookup: { collection: DOCS },
      });
      expect(byKeyword.every((g) => !g.lookup)).toBe(true);
    });
  });

  describe('RecommendGroups and QueryGroups', () => {
    it('should recommend in groups, leaving out the examples', async () => {
      const groups = await groupsCall('RecommendGroups', {
        collectionName: GROUPS,
        positive: [pid(30), pid(40)],
        groupBy: 'doc',
        groupSize: 2,
        limit: 3,
      });
      const target = grouped[29].vector.map((x, i) => (x + grouped[39].vector[i]) / 2);
      const others = grouped.filter((p) => p.id !== 30 && p.id !== 40);
      expectGroups(groups, expectedGroups('Dot', target, others, { groupBy: 'doc', limit: 3, size: 2 }));
    });

    it('should query in groups with defaults of 10 groups of 3', async () => {
      const groups = await groupsCall('QueryGroups', {
        collectionName: GROUPS,
        query: { nearest: { dense: { data: Q } } },
        groupBy: 'num',
      });
      expectGroups(groups, expectedGroups('Dot', Q, grouped, { groupBy: 'num', limit: 10, size: 3 }));
      expect(groups).toHaveLength(7);
    });

    it('should order groups by ascending distance for Euclid', async () => {
      const query = [0.1, 0.5, -0.2];
      const groups = await groupsCall('QueryGroups', {
        collectionName: DISCOVER_EUCLID,
        query: { nearest: { dense: { data: query } } },
        groupBy: 'grp',
        groupSize: 2,
        limit: 3,
      });
      expectGroups(groups, expectedGroups('Euclid', query, discovered, { groupBy: 'grp', limit: 3, size: 2 }));
      expect(groups[0].hits[0].score).toBeLessThan(groups[2].hits[0].score);
    });

    it('should group a query over prefetches, with a lookup', async () => {
      const rescore = [0, 1, 0, 0];
      const groups = await groupsCall('QueryGroups', {
        collectionName: GROUPS,
        prefetch: [{ query: { nearest: { dense: { data: Q } } }, limit: 5 }],
        query: { nearest: { dense: { data: rescore } } },
        groupBy: 'docId',
        groupSize: 2,
        limit: 3,
        withLookup: { collection: DOCS },
        withPayload: { enable: true },
      });
      // Each round re-runs the prefetch without the points already grouped, so only invariants are checked here.
      expect(groups).toHaveLength(3);
      for (let i = 1; i < groups.length; i++)
        expect(groups[i].hits[0].score).toBeLessThanOrEqual(groups[i - 1].hits[0].score);
      for (const g of groups) {
        const docId = Number(g.id.unsignedValue);
        expect(g.hits.length).toBeGreaterThanOrEqual(1);
        expect(g.hits.length).toBeLessThanOrEqual(2);
        for (const [i, hit] of g.hits.entries()) {
          const model = grouped.find((p) => keyOf(p.id) === idOf(hit.id))!;
          expect(fromPayload(hit.payload).docId).toBe(docId);
          expect(hit.score).toBeCloseTo(score('Dot', rescore, model.vector), 5);
          if (i > 0) expect(hit.score).toBeLessThanOrEqual(g.hits[i - 1].score);
        }
        if (docId <= 6) expect(fromPayload(g.lookup?.payload)).toEqual({ title: `Doc ${docId}` });
      }
    });
  });

  describe('Discover', () => {
    const pairs = {
      ids: [1, 2],
      vectors: [
        [0.5, -0.5, 0.2],
        [-0.3, 0.9, 0.1],
      ],
    };
    const context = [
      { positive: { id: pid(pairs.ids[0]) }, negative: { vector: { dense: { data: pairs.vectors[0] } } } },
      { positive: { vector: { data: pairs.vectors[1] } }, negative: { id: pid(pairs.ids[1]) } },
    ];
    const modelPairs: Pair[] = [
      { positive: vectorOf(1), negative: pairs.vectors[0] },
      { positive: pairs.vectors[1], negative: vectorOf(2) },
    ];
    const candidates = () => discovered.filter((p) => !pairs.ids.includes(p.id));

    it.each(['Dot', 'Euclid'] as const)(
      'should rank by context pairs, then by target similarity (%s)',
      async (distance) => {
        const target = [0.2, 0.4, -0.6];
        const hits = (
          await call<{ result: ScoredPoint[] }>('Discover', {
            collectionName: distance === 'Dot' ? DISCOVER_DOT : DISCOVER_EUCLID,
            target: { single: { vector: { dense: { data: target } } } },
            context,
            limit: 40,
          })
        ).result;
        const expected = candidates()
          .map((p) => [keyOf(p.id), discoveryScore(distance, p.vector, target, modelPairs)] as [string, number])
          .sort((a, b) => b[1] - a[1]);
        expectSameRanking(
          hits.map((h) => [idOf(h.id), h.score]),
          expected,
          38,
        );
        // Context ranks first: the integer parts never increase.
        for (let i = 1; i < hits.length; i++)
          expect(Math.floor(hits[i].score)).toBeLessThanOrEqual(Math.floor(hits[i - 1].score));
      },
    );

    it('should take a target by id and not return it, with offset and limit', async () => {
      const all = (
        await call<{ result: ScoredPoint[] }>('Discover', {
          collectionName: DISCOVER_DOT,
          target: { single: { id: pid(5) } },
          context,
          limit: 40,
        })
      ).result;
      const expected = discovered
        .filter((p) => ![1, 2, 5].includes(p.id))
        .map((p) => [keyOf(p.id), discoveryScore('Dot', p.vector, vectorOf(5), modelPairs)] as [string, number])
        .sort((a, b) => b[1] - a[1]);
      expectSameRanking(
        all.map((h) => [idOf(h.id), h.score]),
        expected,
        37,
      );
      const page = (
        await call<{ result: ScoredPoint[] }>('Discover', {
          collectionName: DISCOVER_DOT,
          target: { single: { id: pid(5) } },
          context,
          limit: 3,
          offset: 2,
        })
      ).result;
      expect(page.map((h) => idOf(h.id))).toEqual(all.slice(2, 5).map((h) => idOf(h.id)));
    });

    it('should search by context only when there is no target', async () => {
      const hits = (
        await call<{ result: ScoredPoint[] }>('Discover', {
          collectionName: DISCOVER_EUCLID,
          context,
          limit: 40,
          withPayload: { enable: true },
        })
      ).result;
      const expected = new Map(candidates().map((p) => [keyOf(p.id), contextScore('Euclid', p.vector, modelPairs)]));
      expect(hits).toHaveLength(38);
      for (const hit of hits) {
        expect(hit.score).toBeCloseTo(expected.get(idOf(hit.id))!, 4);
        expect(hit.score).toBeLessThanOrEqual(0);
      }
      for (let i = 1; i < hits.length; i++) expect(hits[i].score).toBeLessThanOrEqual(hits[i - 1].score);
      expect(hits.filter((h) => h.score === 0).length).toBe([...expected.values()].filter((s) => s === 0).length);
      expect(fromPayload(hits[0].payload).grp).toMatch(/^g\d$/);
    });

    it('should answer a batch, and match the Query discover and context variants', async () => {
      const target = [0.2, 0.4, -0.6];
      const batch = (
        await call<{ result: Array<{ result: ScoredPoint[] }> }>('DiscoverBatch', {
          collectionName: DISCOVER_DOT,
          discoverPoints: [
            {
              collectionName: DISCOVER_DOT,
              target: { single: { vector: { dense: { data: target } } } },
              context,
              limit: 5,
            },
            {
              collectionName: DISCOVER_DOT,
              context,
              limit: 5,
              filter: { must: [{ field: { key: 'grp', match: { keyword: 'g1' } } }] },
            },
          ],
        })
      ).result;
      expect(batch).toHaveLength(2);
      const queryContext = [
        { positive: { id: pid(1) }, negative: { dense: { data: pairs.vectors[0] } } },
        { positive: { dense: { data: pairs.vectors[1] } }, negative: { id: pid(2) } },
      ];
      const discover = (
        await call<{ result: ScoredPoint[] }>('Query', {
          collectionName: DISCOVER_DOT,
          query: { discover: { target: { dense: { data: target } }, context: { pairs: queryContext } } },
          limit: 5,
        })
      ).result;
      expect(discover.map((h) => [idOf(h.id), h.score])).toEqual(batch[0].result.map((h) => [idOf(h.id), h.score]));
      const byContext = (
        await call<{ result: ScoredPoint[] }>('Query', {
          collectionName: DISCOVER_DOT,
          query: { context: { pairs: queryContext } },
          filter: { must: [{ field: { key: 'grp', match: { keyword: 'g1' } } }] },
          limit: 5,
        })
      ).result;
      expect(byContext.map((h) => h.score)).toEqual(batch[1].result.map((h) => h.score));
      for (const hit of byContext) expect(discovered.find((p) => keyOf(p.id) === idOf(hit.id))!.payload.grp).toBe('g1');
      expect(byContext.map((h) => idOf(h.id))).not.toContain(keyOf(1));
    });

    it('should rescore prefetched candidates with a discover query', async () => {
      const target = [0.2, 0.4, -0.6];
      const hits = (
        await call<{ result: ScoredPoint[] }>('Query', {
          collectionName: DISCOVER_DOT,
          prefetch: [{ query: { nearest: { dense: { data: [1, 0, 0] } } }, limit: 10 }],
          query: {
            discover: {
              target: { dense: { data: target } },
              context: {
                pairs: [{ positive: { dense: { data: [0, 1, 0] } }, negative: { dense: { data: [0, -1, 0] } } }],
              },
            },
          },
          limit: 10,
        })
      ).result;
      const pool = [...discovered]
        .sort((a, b) => score('Dot', [1, 0, 0], b.vector) - score('Dot', [1, 0, 0], a.vector))
        .slice(0, 10);
      const expected = pool
        .map(
          (p) =>
            [keyOf(p.id), discoveryScore('Dot', p.vector, target, [{ positive: [0, 1, 0], negative: [0, -1, 0] }])] as [
              string,
              number,
            ],
        )
        .sort((a, b) => b[1] - a[1]);
      expectSameRanking(
        hits.map((h) => [idOf(h.id), h.score]),
        expected,
        10,
      );
    });
  });

  describe('errors', () => {
    it('should reject a missing group_by, group_size 0 and limit 0 by field', async () => {
      await expectGrpcError(
        call('SearchGroups', { collectionName: GROUPS, vector: Q, groupSize: 1, limit: 1 }),
        grpc.status.INVALID_ARGUMENT,
        /Validation error in body: \[group_by: must not be empty\]/,
      );
      await expectGrpcError(
        call('SearchGroups', { collectionName: GROUPS, vector: Q, groupBy: 'doc', groupSize: 0, limit: 1 }),
        grpc.status.INVALID_ARGUMENT,
        /group_size: value 0 invalid, must be 1 or larger/,
      );
      await expectGrpcError(
        call('RecommendGroups', { collectionName: GROUPS, positive: [pid(1)], groupBy: 'doc', groupSize: 1 }),
        grpc.status.INVALID_ARGUMENT,
        /limit: value 0 invalid/,
      );
      await expectGrpcError(
        call('QueryGroups', { collectionName: GROUPS, groupBy: 'doc', groupSize: 0 }),
        grpc.status.INVALID_ARGUMENT,
        /group_size/,
      );
      await expectGrpcError(
        call('Discover', { collectionName: DISCOVER_DOT, context: [] }),
        grpc.status.INVALID_ARGUMENT,
        /limit: value 0 invalid/,
      );
    });

    it('should answer NOT_FOUND for an unknown collection or lookup collection', async () => {
      await expectGrpcError(
        call('SearchGroups', { collectionName: 'nope', vector: Q, groupBy: 'doc', groupSize: 1, limit: 1 }),
        grpc.status.NOT_FOUND,
        /Collection `nope` doesn't exist/,
      );
      await expectGrpcError(
        call('QueryGroups', { collectionName: 'nope', groupBy: 'doc' }),
        grpc.status.NOT_FOUND,
        /nope/,
      );
      await expectGrpcError(
        call('Discover', { collectionName: 'nope', context: [], limit: 1 }),
        grpc.status.NOT_FOUND,
        /nope/,
      );
      await expectGrpcError(
        call('SearchGroups', {
          collectionName: GROUPS,
          vector: Q,
          groupBy: 'doc',
          groupSize: 1,
          limit: 1,
          withLookup: { collection: 'nope' },
        }),
        grpc.status.NOT_FOUND,
        /nope/,
      );
      await expectGrpcError(
        call('Discover', { collectionName: DISCOVER_DOT, target: { single: { id: pid(999) } }, limit: 1 }),
        grpc.status.NOT_FOUND,
        /999/,
      );
    });

    it('should reject a discovery without target and context, or with half a pair', async () => {
      const context = [{ positive: { id: pid(1) } }];
      await expectGrpcError(
        call('Discover', { collectionName: DISCOVER_DOT, limit: 3 }),
        grpc.status.INVALID_ARGUMENT,
        /target and\/or context_pairs must be specified/,
      );
      await expectGrpcError(
        call('DiscoverBatch', { collectionName: DISCOVER_DOT, discoverPoints: [{ limit: 1, context }] }),
        grpc.status.INVALID_ARGUMENT,
        /discover_points\[0\].context\[0\].negative: must be set/,
      );
    });

    it('should reject a wrong vector size in an example', async () => {
      await expectGrpcError(
        call('Discover', {
          collectionName: DISCOVER_DOT,
          target: { single: { vector: { dense: { data: [1, 2] } } } },
          limit: 1,
        }),
        grpc.status.INVALID_ARGUMENT,
        /expected dim: 3, got 2/,
      );
    });
  });

  describe('official @qdrant/js-client-grpc', () => {
    let client: InstanceType<typeof QdrantClient>;

    beforeAll(() => {
      client = new QdrantClient({
        host: '127.0.0.1',
        port: server.grpcPort,
        https: false,
        apiKey: server.apiKey,
        checkCompatibility: false,
        timeout: 20_000,
      });
      jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    });

    it('should search groups with a lookup', async () => {
      const response = await client.api('points').searchGroups({
        collectionName: GROUPS,
        vector: Q,
        groupBy: 'docId',
        groupSize: 2,
        limit: 3,
        withLookup: { collection: DOCS },
      });
      const expected = expectedGroups('Dot', Q, grouped, { groupBy: 'docId', limit: 3, size: 2 });
      const groups = response.result!.groups;
      expect(groups.map((g) => `i:${g.id!.kind.value}`)).toEqual(expected.map((g) => g.key));
      expect(groups.map((g) => g.id!.kind.case)).toEqual(['unsignedValue', 'unsignedValue', 'unsignedValue']);
      groups.forEach((g, i) =>
        expect(g.hits.map((h) => `n:${h.id!.pointIdOptions.value}`)).toEqual(expected[i].hits.map(([key]) => key)),
      );
      for (const g of groups) {
        const docId = Number(g.id!.kind.value);
        if (docId <= 6) expect(g.lookup?.payload.title?.kind).toEqual({ case: 'stringValue', value: `Doc ${docId}` });
      }
    });

    it('should query groups and discover', async () => {
      const points = client.api('points');
      const queried = await points.queryGroups({
        collectionName: GROUPS,
        query: { variant: { case: 'nearest', value: { variant: { case: 'dense', value: { data: Q } } } } },
        groupBy: 'doc',
        groupSize: 2n,
        limit: 2n,
      });
      expect(queried.result!.groups.map((g) => g.id!.kind.value)).toEqual(
        expectedGroups('Dot', Q, grouped, { groupBy: 'doc', limit: 2, size: 2 }).map((g) => g.key.slice(2)),
      );

      const num = (value: bigint) => ({ pointIdOptions: { case: 'num' as const, value } });
      const discovered = await points.discover({
        collectionName: DISCOVER_DOT,
        target: { target: { case: 'single', value: { example: { case: 'id', value: num(5n) } } } },
        context: [
          {
            positive: { example: { case: 'id', value: num(1n) } },
            negative: { example: { case: 'id', value: num(2n) } },
          },
        ],
        limit: 5n,
      });
      const ours = (
        await call<{ result: ScoredPoint[] }>('Discover', {
          collectionName: DISCOVER_DOT,
          target: { single: { id: pid(5) } },
          context: [{ positive: { id: pid(1) }, negative: { id: pid(2) } }],
          limit: 5,
        })
      ).result;
      expect(discovered.result.map((p) => `n:${p.id!.pointIdOptions.value}`)).toEqual(ours.map((p) => idOf(p.id)));
      discovered.result.forEach((p, i) => expect(p.score).toBeCloseTo(ours[i].score, 6));
      expect(discovered.result.map((p) => p.id!.pointIdOptions.value)).not.toContain(5n);
    });
  });
});
