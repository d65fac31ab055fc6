import * as grpc from '@grpc/grpc-js';
import {
  CollectionsClient,
  ProtoPackage,
  createCollectionsClient,
  createPointsClient,
  credentials,
  unary,
} from './support/grpc-clients';
import {
  Id,
  JsonObject,
  OperationResponse,
  RetrievedPoint,
  ScoredPoint,
  caller,
  compareKeys,
  denseOf,
  expectGrpcError,
  expectSameRanking,
  fromPayload,
  idOf,
  keyOf,
  pid,
  pollUntil,
  score,
  toPayload,
  topK,
  unnamed,
} from './support/points-helpers';
import { RunningServer, startServer } from './support/server-harness';

jest.setTimeout(60_000);

const U1 = '98a9a4b1-4ef2-46fb-8315-a97d874fe1d7';
const U2 = 'f0e09527-b096-42a8-94e9-ea94d342b925';
const BIG_ID = '9007199254740993'; // 2^53 + 1: not representable as a double
const Q = [0.2, 0.1, 0.9, 0.7];

interface ModelPoint {
  id: Id;
  vector: number[];
  payload: JsonObject;
  flat: boolean;
}

/** The points of Qdrant's basic_grpc_test.sh, plus the kinds of payload values it does not cover. */
const BASIC_POINTS: ModelPoint[] = [
  {
    id: 1,
    vector: [0.05, 0.61, 0.76, 0.74],
    flat: true,
    payload: {
      city: 'Berlin',
      country: 'Germany',
      count: 1000000,
      square: 12.5,
      coords: { lat: 1.5, lon: 2.5 },
      rank: 10,
    },
  },
  { id: 2, vector: [0.19, 0.81, 0.75, 0.11], flat: true, payload: { city: ['Berlin', 'London'], rank: 30 } },
  { id: 3, vector: [0.36, 0.55, 0.47, 0.94], flat: false, payload: { city: ['Berlin', 'Moscow'], rank: 20 } },
  { id: 4, vector: [0.18, 0.01, 0.85, 0.8], flat: false, payload: { city: ['London', 'Moscow'], rank: 40 } },
  {
    id: BIG_ID,
    vector: [0.3, 0.2, 0.1, 0.9],
    flat: false,
    payload: {
      big: 9223372036854775807n,
      neg: -9007199254740993n,
      ratio: 0.125,
      flag: true,
      nothing: null,
      mixed: ['a', 1, 2.5, false, null, { k: 'v' }],
      nested: { deep: { deeper: [1, 2], name: 'x' } },
    },
  },
  { id: U1, vector: [0.24, 0.18, 0.22, 0.44], flat: false, payload: { count: [0], rank: 5 } },
  { id: U2, vector: [0.35, 0.08, 0.11, 0.44], flat: true, payload: { count: [0], flag: false } },
];
const EMPTY_PAYLOAD_POINT: ModelPoint = { id: 7, vector: [0.5, 0.4, 0.3, 0.2], flat: false, payload: {} };
const SPARSE_POINT = {
  id: 8,
  vector: [0.1, 0.9, 0.1, 0.9],
  sparse: { indices: [1, 3], values: [0.5, 0.7] },
  payload: { kind: 'sparse' },
};

const pointStruct = (p: ModelPoint) => ({
  id: pid(p.id),
  vectors: unnamed(p.vector, p.flat),
  payload: toPayload(p.payload),
});
const keyword = (key: string, value: string) => ({ field: { key, match: { keyword: value } } });
const idsOf = (points: Array<{ id: RetrievedPoint['id'] }>) => points.map((p) => idOf(p.id));
const ranked = (points: ScoredPoint[]): Array<[string, number]> => points.map((p) => [idOf(p.id), p.score]);

/** The default (unnamed) dense vector of a retrieved point, whichever output shape the server chose. */
function defaultDense(point: RetrievedPoint): number[] | undefined {
  return denseOf(point.vectors?.vector) ?? denseOf(point.vectors?.vectors?.vectors['']);
}

function expectClose(actual: number[] | undefined, expected: number[]): void {
  expect(actual).toBeDefined();
  expect(actual!.length).toBe(expected.length);
  actual!.forEach((x, i) => expect(x).toBeCloseTo(expected[i], 5));
}

describe('Points service (gRPC, e2e)', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer();
  });

  afterAll(async () => {
    if (process.env.E2E_SERVER_LOG) process.stdout.write(server?.output() ?? '');
    await server?.stop();
  });

  describe.each<ProtoPackage>(['vectorstore', 'qdrant'])('basic gRPC flow at /%s.Points/*', (pkg) => {
    // Each package gets its own collection, so a failure in one flow cannot leak into the other.
    const COLLECTION = pkg === 'qdrant' ? 'test_collection' : 'test_collection_vs';
    let points: grpc.Client;
    let collections: CollectionsClient;
    let call: ReturnType<typeof caller>;
    const model = new Map<string, { vector: number[]; payload: JsonObject }>();
    const collectionCall = <Res = { result: boolean }>(method: string, request: object) =>
      unary<object, Res>(collections, method, request);
    const info = async () =>
      (
        await collectionCall<{
          result: {
            pointsCount?: string;
            payloadSchema: Record<string, { dataType: string; points?: string }>;
            status: string;
          };
        }>('Get', { collectionName: COLLECTION })
      ).result;
    const getOne = async (id: Id, extra: object = {}) =>
      (
        await call<{ result: RetrievedPoint[] }>('Get', {
          collectionName: COLLECTION,
          ids: [pid(id)],
          withPayload: { enable: true },
          ...extra,
        })
      ).result;
    const search = async (request: object) =>
      (await call<{ result: ScoredPoint[] }>('Search', { collectionName: COLLECTION, ...request })).result;
    const query = async (request: object) =>
      (await call<{ result: ScoredPoint[] }>('Query', { collectionName: COLLECTION, ...request })).result;
    const candidates = (exclude: Id[] = []) =>
      [...model.entries()]
        .filter(([key]) => !exclude.map(keyOf).includes(key))
        .map(([key, p]) => [key, p.vector] as [string, number[]]);

    beforeAll(() => {
      points = createPointsClient(server.grpcAddress, credentials(server.apiKey), pkg);
      collections = createCollectionsClient(server.grpcAddress, credentials(server.apiKey), pkg);
      call = caller(points);
    });

    afterAll(() => {
      points?.close();
      collections?.close();
    });

    it('should delete a missing collection without failing and create test_collection with a sparse vector', async () => {
      expect(typeof (await collectionCall('Delete', { collectionName: COLLECTION })).result).toBe('boolean');
      const created = await collectionCall('Create', {
        collectionName: COLLECTION,
        vectorsConfig: { params: { size: 4, distance: 'Dot' } },
        sparseVectorsConfig: { map: { sparse: { index: { onDisk: true } } } },
      });
      expect(created.result).toBe(true);
      const list = await collectionCall<{ collections: Array<{ name: string }> }>('List', {});
      expect(list.collections.map((c) => c.name)).toContain(COLLECTION);
    });

    it('should upsert points with num and UUID ids, flat and dense vectors and every payload kind', async () => {
      const response = await call('Upsert', {
        collectionName: COLLECTION,
        wait: true,
        points: BASIC_POINTS.map(pointStruct),
      });
      expect(response.result.status).toBe('Completed');
      for (const p of BASIC_POINTS) model.set(keyOf(p.id), { vector: p.vector, payload: p.payload });

      const got = (
        await call<{ result: RetrievedPoint[] }>('Get', {
          collectionName: COLLECTION,
          ids: BASIC_POINTS.map((p) => pid(p.id)),
          withPayload: { enable: true },
          withVectors: { enable: true },
        })
      ).result;
      expect(idsOf(got).sort()).toEqual(BASIC_POINTS.map((p) => keyOf(p.id)).sort());
      for (const point of got) {
        const expected = model.get(idOf(point.id))!;
        expect(fromPayload(point.payload)).toEqual(expected.payload);
        expectClose(defaultDense(point), expected.vector);
      }
    });

    it('should round-trip integers beyond 2^53 exactly, both as payload values and as point ids', async () => {
      const [point] = await getOne(BIG_ID);
      expect(point.id).toMatchObject({ num: BIG_ID });
      expect(point.payload?.big).toMatchObject({ integerValue: '9223372036854775807' });
      expect(point.payload?.neg).toMatchObject({ integerValue: '-9007199254740993' });
      expect(point.payload?.ratio).toMatchObject({ doubleValue: 0.125 });
      expect(point.payload?.nothing).toMatchObject({ nullValue: 'NULL_VALUE' });
    });

    it('should upsert a point with an empty payload and return an empty payload', async () => {
      const response = await call('Upsert', {
        collectionName: COLLECTION,
        wait: true,
        points: [pointStruct(EMPTY_PAYLOAD_POINT)],
      });
      expect(response.result.status).toBe('Completed');
      model.set(keyOf(7), { vector: EMPTY_PAYLOAD_POINT.vector, payload: {} });
      const [point] = await getOne(7);
      expect(idOf(point.id)).toBe('n:7');
      expect(Object.keys(point.payload ?? {})).toEqual([]);
    });

    it('should reject a sparse vector with a duplicate index with "Validation error in body"', async () => {
      const invalid = (sparse: object) => ({
        collectionName: COLLECTION,
        wait: true,
        points: [{ id: pid(8), vectors: { vectors: { vectors: { sparse } } }, payload: {} }],
      });
      await expectGrpcError(
        call('Upsert', invalid({ sparse: { indices: [1, 1], values: [0.1, 0.2] } })),
        grpc.status.INVALID_ARGUMENT,
        'Validation error in body',
      );
      // the deprecated flat form: data + indices
      await expectGrpcError(
        call('Upsert', invalid({ data: [0.1, 0.2], indices: { data: [3, 3] } })),
        grpc.status.INVALID_ARGUMENT,
        'Validation error in body',
      );
      expect(await getOne(8)).toEqual([]);
    });

    it('should accept the default vector by its empty name in a named map', async () => {
      const valid = await call('Upsert', {
        collectionName: COLLECTION,
        wait: true,
        points: [
          {
            id: pid(8),
            vectors: { vectors: { vectors: { '': { dense: { data: SPARSE_POINT.vector } } } } },
            payload: toPayload(SPARSE_POINT.payload),
          },
        ],
      });
      expect(valid.result.status).toBe('Completed');
      model.set(keyOf(8), { vector: SPARSE_POINT.vector, payload: SPARSE_POINT.payload });
      const [point] = await getOne(8, { withVectors: { enable: true } });
      expectClose(defaultDense(point), SPARSE_POINT.vector);
    });

    it('should create a keyword index with wait (Completed) and integer/bool indexes without wait (Acknowledged)', async () => {
      const city = await call('CreateFieldIndex', {
        collectionName: COLLECTION,
        fieldName: 'city',
        fieldType: 'FieldTypeKeyword',
        fieldIndexParams: { keywordIndexParams: {} },
        wait: true,
      });
      expect(city.result.status).toBe('Completed');
      const count = await call('CreateFieldIndex', {
        collectionName: COLLECTION,
        fieldName: 'count',
        fieldType: 'FieldTypeInteger',
      });
      expect(count.result.status).toBe('Acknowledged');
      expect(count.result.operationId).toMatch(/^\d+$/);
      const flag = await call('CreateFieldIndex', {
        collectionName: COLLECTION,
        fieldName: 'flag',
        fieldType: 'FieldTypeBool',
      });
      expect(flag.result.status).toBe('Acknowledged');
      const rank = await call('CreateFieldIndex', {
        collectionName: COLLECTION,
        fieldName: 'rank',
        fieldType: 'FieldTypeInteger',
        wait: true,
      });
      expect(rank.result.status).toBe('Completed');
    });

    it('should report payload_schema with per-field point counts and points_count through Collections/Get', async () => {
      const result = await pollUntil(async () => {
        const i = await info();
        return i.payloadSchema.count && i.payloadSchema.flag ? i : undefined;
      }, 5_000);
      expect(result).toBeDefined();
      expect(result!.pointsCount).toBe('9');
      expect(result!.payloadSchema.city).toMatchObject({ dataType: 'Keyword', points: '4' });
      expect(result!.payloadSchema.count).toMatchObject({ dataType: 'Integer', points: '3' });
      expect(result!.payloadSchema.flag).toMatchObject({ dataType: 'Bool', points: '2' });
      expect(result!.payloadSchema.rank).toMatchObject({ dataType: 'Integer', points: '5' });
    });

    it('should search by vector and match a brute-force Dot ranking', async () => {
      const hits = await search({ vector: Q, limit: 3 });
      expectSameRanking(ranked(hits), topK('Dot', Q, candidates(), 4), 3);
    });

    it('should search with a should keyword filter', async () => {
      const hits = await search({ vector: Q, limit: 3, filter: { should: [keyword('city', 'London')] } });
      expect(idsOf(hits).sort()).toEqual(['n:2', 'n:4']);
    });

    it('should apply score_threshold and offset', async () => {
      const all = topK('Dot', Q, candidates(), 9);
      const threshold = (all[2][1] + all[3][1]) / 2;
      const above = await search({ vector: Q, limit: 10, scoreThreshold: threshold });
      expectSameRanking(ranked(above), all, 3);
      const page = await search({ vector: Q, limit: 2, offset: 1 });
      expectSameRanking(ranked(page), all.slice(1), 2);
      const queried = await query({ query: { nearest: { dense: { data: Q } } }, limit: 2, offset: 1 });
      expectSameRanking(ranked(queried), all.slice(1), 2);
      const thresholded = await query({
        query: { nearest: { dense: { data: Q } } },
        limit: 10,
        scoreThreshold: threshold,
      });
      expectSameRanking(ranked(thresholded), all, 3);
    });

    it('should scroll with a filter page by page through next_page_offset', async () => {
      const seen: string[] = [];
      let offset: object | undefined;
      for (let page = 0; page < 10; page++) {
        const response = await call<{ result: RetrievedPoint[]; nextPageOffset?: RetrievedPoint['id'] }>('Scroll', {
          collectionName: COLLECTION,
          filter: { must: [keyword('city', 'Berlin')] },
          limit: 1,
          ...(offset ? { offset } : {}),
        });
        seen.push(...idsOf(response.result));
        if (!response.nextPageOffset) break;
        offset = {
          [response.nextPageOffset.num !== undefined ? 'num' : 'uuid']:
            response.nextPageOffset.num ?? response.nextPageOffset.uuid,
        };
      }
      expect(seen).toEqual(['n:1', 'n:2', 'n:3']);
    });

    it('should scroll every point exactly once in id order (numbers, then UUIDs) with pagination', async () => {
      const seen: string[] = [];
      let offset: object | undefined;
      for (let page = 0; page < 20; page++) {
        const response = await call<{ result: RetrievedPoint[]; nextPageOffset?: RetrievedPoint['id'] }>('Scroll', {
          collectionName: COLLECTION,
          limit: 2,
          withPayload: { enable: false },
          ...(offset ? { offset } : {}),
        });
        expect(response.result.length).toBeLessThanOrEqual(2);
        for (const point of response.result) expect(Object.keys(point.payload ?? {})).toEqual([]);
        seen.push(...idsOf(response.result));
        if (!response.nextPageOffset) break;
        offset =
          response.nextPageOffset.num !== undefined
            ? { num: response.nextPageOffset.num }
            : { uuid: response.nextPageOffset.uuid };
      }
      const expected = [...model.keys()].sort(compareKeys);
      expect(seen).toEqual(expected);
      expect(expected.slice(-2)).toEqual([`u:${U1}`, `u:${U2}`]);
    });

    it('should get several ids with include and exclude payload selectors and with_vectors', async () => {
      const ids = [pid(1), pid(U2), pid(999)];
      const included = (
        await call<{ result: RetrievedPoint[] }>('Get', {
          collectionName: COLLECTION,
          ids,
          withPayload: { include: { fields: ['city', 'rank'] } },
        })
      ).result;
      expect(idsOf(included)).toEqual(['n:1', `u:${U2}`]);
      expect(fromPayload(included[0].payload)).toEqual({ city: 'Berlin', rank: 10 });
      expect(fromPayload(included[1].payload)).toEqual({});
      expect(included[0].vectors).toBeUndefined();

      const excluded = (
        await call<{ result: RetrievedPoint[] }>('Get', {
          collectionName: COLLECTION,
          ids,
          withPayload: { exclude: { fields: ['city', 'coords'] } },
          withVectors: { enable: true },
        })
      ).result;
      expect(fromPayload(excluded[0].payload)).toEqual({ country: 'Germany', count: 1000000, square: 12.5, rank: 10 });
      expect(fromPayload(excluded[1].payload)).toEqual({ count: [0], flag: false });
      expectClose(defaultDense(excluded[0]), BASIC_POINTS[0].vector);

      const nestedInclude = (
        await call<{ result: RetrievedPoint[] }>('Get', {
          collectionName: COLLECTION,
          ids: [pid(BIG_ID)],
          withPayload: { include: { fields: ['nested.deep.name'] } },
        })
      ).result;
      expect(fromPayload(nestedInclude[0].payload)).toEqual({ nested: { deep: { name: 'x' } } });
    });

    it('should count exactly, with and without a filter', async () => {
      expect(
        (await call<{ result: { count: string } }>('Count', { collectionName: COLLECTION, exact: true })).result.count,
      ).toBe('9');
      expect((await call<{ result: { count: string } }>('Count', { collectionName: COLLECTION })).result.count).toBe(
        '9',
      );
      const berlin = await call<{ result: { count: string } }>('Count', {
        collectionName: COLLECTION,
        exact: true,
        filter: { must: [keyword('city', 'Berlin')] },
      });
      expect(berlin.result.count).toBe('3');
    });

    it('should recommend with the AverageVector strategy (2·avg(positive) − avg(negative))', async () => {
      const hits = (
        await call<{ result: ScoredPoint[] }>('Recommend', {
          collectionName: COLLECTION,
          positive: [pid(1)],
          negative: [pid(4)],
          strategy: 'AverageVector',
          limit: 3,
        })
      ).result;
      const v1 = model.get('n:1')!.vector;
      const v4 = model.get('n:4')!.vector;
      const target = v1.map((x, i) => 2 * x - v4[i]);
      expectSameRanking(ranked(hits), topK('Dot', target, candidates([1, 4]), 4), 3);
    });

    it('should recommend with the BestScore strategy', async () => {
      const hits = (
        await call<{ result: ScoredPoint[] }>('Recommend', {
          collectionName: COLLECTION,
          positive: [pid(1), pid(3)],
          negative: [pid(4)],
          strategy: 'BestScore',
          limit: 10,
        })
      ).result;
      const pos = [model.get('n:1')!.vector, model.get('n:3')!.vector];
      const neg = model.get('n:4')!.vector;
      // Better than any negative: ranked by the best positive similarity. Otherwise: below all of those, ranked by the
      // best negative similarity ascending. Any monotone scaling of the scores keeps this order.
      const rows = candidates([1, 3, 4]).map(([key, v]) => {
        const p = Math.max(...pos.map((x) => score('Dot', x, v)));
        const n = score('Dot', neg, v);
        return { key, group: p > n ? 0 : 1, order: p > n ? -p : n };
      });
      rows.sort((a, b) => a.group - b.group || a.order - b.order);
      expect(idsOf(hits)).toEqual(rows.map((r) => r.key));
      for (let i = 1; i < hits.length; i++) expect(hits[i].score).toBeLessThanOrEqual(hits[i - 1].score);
    });

    it('should query nearest by vector and by point id', async () => {
      const byVector = await query({ query: { nearest: { dense: { data: Q } } }, limit: 3 });
      expectSameRanking(ranked(byVector), topK('Dot', Q, candidates(), 4), 3);

      // the point given by id is an input, not a result (Qdrant excludes it)
      const byId = await query({ query: { nearest: { id: pid(3) } }, limit: 8 });
      expect(ranked(byId).map(([key]) => key)).not.toContain('n:3');
      expectSameRanking(ranked(byId), topK('Dot', model.get('n:3')!.vector, candidates([3]), 9), 8);
      const recommended = await query({
        query: { recommend: { positive: [{ id: pid(3) }, { id: pid(4) }] } },
        limit: 8,
      });
      expect(ranked(recommended).map(([key]) => key)).not.toContain('n:3');
      expect(ranked(recommended).map(([key]) => key)).not.toContain('n:4');
    });

    it('should fuse prefetches with RRF and DBSF', async () => {
      const qB = [0.25, 0.1, 0.85, 0.7];
      const topA = topK('Dot', Q, candidates(), 4).map(([k]) => k);
      const topB = topK('Dot', qB, candidates(), 4).map(([k]) => k);
      const union = new Set([...topA, ...topB]);
      for (const fusion of ['RRF', 'DBSF']) {
        const hits = await query({
          prefetch: [
            { query: { nearest: { dense: { data: Q } } }, limit: 4 },
            { query: { nearest: { dense: { data: qB } } }, limit: 4 },
          ],
          query: { fusion },
          limit: 5,
        });
        expect(hits.length).toBe(Math.min(5, union.size));
        for (const key of idsOf(hits)) expect(union.has(key)).toBe(true);
        expect(new Set(idsOf(hits)).size).toBe(hits.length);
        for (let i = 1; i < hits.length; i++) expect(hits[i].score).toBeLessThanOrEqual(hits[i - 1].score);
        if (topA[0] === topB[0]) expect(idOf(hits[0].id)).toBe(topA[0]);
      }
    });

    it('should order by an integer index in Query and Scroll', async () => {
      const desc = await query({ query: { orderBy: { key: 'rank', direction: 'Desc' } }, limit: 10 });
      expect(idsOf(desc)).toEqual(['n:4', 'n:2', 'n:3', 'n:1', `u:${U1}`]);
      const asc = await call<{ result: RetrievedPoint[] }>('Scroll', {
        collectionName: COLLECTION,
        orderBy: { key: 'rank' },
        limit: 3,
      });
      expect(idsOf(asc.result)).toEqual([`u:${U1}`, 'n:1', 'n:3']);
      expect(asc.result.map((p) => p.orderValue?.int)).toEqual(['5', '10', '20']);
    });

    it('should answer SearchBatch, QueryBatch and RecommendBatch like the single calls', async () => {
      const s1 = { collectionName: COLLECTION, vector: Q, limit: 3 };
      const s2 = { collectionName: COLLECTION, vector: Q, limit: 3, filter: { should: [keyword('city', 'London')] } };
      const searchBatch = await call<{ result: Array<{ result: ScoredPoint[] }> }>('SearchBatch', {
        collectionName: COLLECTION,
        searchPoints: [s1, s2],
      });
      expect(searchBatch.result).toHaveLength(2);
      expect(idsOf(searchBatch.result[0].result)).toEqual(idsOf(await search(s1)));
      expect(idsOf(searchBatch.result[1].result).sort()).toEqual(['n:2', 'n:4']);

      const q1 = { collectionName: COLLECTION, query: { nearest: { dense: { data: Q } } }, limit: 2 };
      const q2 = {
        collectionName: COLLECTION,
        query: { nearest: { dense: { data: Q } } },
        limit: 5,
        filter: { must: [keyword('city', 'Moscow')] },
      };
      const queryBatch = await call<{ result: Array<{ result: ScoredPoint[] }> }>('QueryBatch', {
        collectionName: COLLECTION,
        queryPoints: [q1, q2],
      });
      expect(queryBatch.result).toHaveLength(2);
      expect(idsOf(queryBatch.result[0].result)).toEqual(idsOf(await query(q1)));
      expect(idsOf(queryBatch.result[1].result).sort()).toEqual(['n:3', 'n:4']);

      const r1 = { collectionName: COLLECTION, positive: [pid(1)], limit: 3 };
      const r2 = { collectionName: COLLECTION, positive: [pid(2)], negative: [pid(3)], limit: 2 };
      const recommendBatch = await call<{ result: Array<{ result: ScoredPoint[] }> }>('RecommendBatch', {
        collectionName: COLLECTION,
        recommendPoints: [r1, r2],
      });
      expect(recommendBatch.result.map((r) => idsOf(r.result))).toEqual([
        idsOf((await call<{ result: ScoredPoint[] }>('Recommend', r1)).result),
        idsOf((await call<{ result: ScoredPoint[] }>('Recommend', r2)).result),
      ]);
    });

    it('should reject a RecommendBatch whose inner request names no collection with "Validation error in body"', async () => {
      await expectGrpcError(
        call('RecommendBatch', { collectionName: COLLECTION, recommendPoints: [{ positive: [pid(1)] }] }),
        grpc.status.INVALID_ARGUMENT,
        'Validation error in body',
      );
    });

    it('should accept a Recommend without limit, as Qdrant does (no rule on it), and answer no points', async () => {
      const answer = await call<{ result: ScoredPoint[] }>('Recommend', {
        collectionName: COLLECTION,
        positive: [pid(1)],
      });
      expect(answer.result).toEqual([]);
    });

    it('should count keyword values with Facet', async () => {
      const exact = await call<{ hits: Array<{ value: { stringValue?: string }; count: string }> }>('Facet', {
        collectionName: COLLECTION,
        key: 'city',
        exact: true,
      });
      expect(exact.hits.map((h) => [h.value.stringValue, h.count])).toEqual([
        ['Berlin', '3'],
        ['London', '2'],
        ['Moscow', '2'],
      ]);
      const filtered = await call<{ hits: Array<{ value: { stringValue?: string }; count: string }> }>('Facet', {
        collectionName: COLLECTION,
        key: 'city',
        exact: true,
        limit: 1,
        filter: { must: [keyword('city', 'Moscow')] },
      });
      expect(filtered.hits.map((h) => [h.value.stringValue, h.count])).toEqual([['Moscow', '2']]);
      const approximate = await call<{ hits: Array<{ value: { stringValue?: string } }> }>('Facet', {
        collectionName: COLLECTION,
        key: 'city',
      });
      expect(approximate.hits.map((h) => h.value.stringValue).sort()).toEqual(['Berlin', 'London', 'Moscow']);
    });

    it('should update a dense vector and delete the default vector of a point', async () => {
      const updated = await call('UpdateVectors', {
        collectionName: COLLECTION,
        wait: true,
        points: [{ id: pid(1), vectors: unnamed([1, 0, 0, 0]) }],
      });
      expect(updated.result.status).toBe('Completed');
      model.get('n:1')!.vector = [1, 0, 0, 0];
      const [one] = await getOne(1, { withVectors: { enable: true } });
      expectClose(defaultDense(one), [1, 0, 0, 0]);
      expect(fromPayload(one.payload)).toEqual(BASIC_POINTS[0].payload);

      const deleted = await call('DeleteVectors', {
        collectionName: COLLECTION,
        wait: true,
        pointsSelector: { points: { ids: [pid(7)] } },
        vectors: { names: [''] },
      });
      expect(deleted.result.status).toBe('Completed');
      const [seven] = await getOne(7, { withVectors: { enable: true } });
      expect(idOf(seven.id)).toBe('n:7');
      expect(defaultDense(seven)).toBeUndefined();
      model.delete('n:7');
      const hits = await search({ vector: Q, limit: 20 });
      expect(idsOf(hits)).not.toContain('n:7');
      expectSameRanking(ranked(hits), topK('Dot', Q, candidates(), 20), 20);
    });

    it('should merge payload with SetPayload, also under a nested key and by filter', async () => {
      expect(
        (
          await call('SetPayload', {
            collectionName: COLLECTION,
            wait: true,
            payload: toPayload({ color: 'red' }),
            pointsSelector: { points: { ids: [pid(1), pid(2)] } },
          })
        ).result.status,
      ).toBe('Completed');
      await call('SetPayload', {
        collectionName: COLLECTION,
        wait: true,
        payload: toPayload({ alt: 7 }),
        key: 'coords',
        pointsSelector: { points: { ids: [pid(1)] } },
      });
      await call('SetPayload', {
        collectionName: COLLECTION,
        wait: true,
        payload: toPayload({ east: true }),
        pointsSelector: { filter: { must: [keyword('city', 'Moscow')] } },
      });

      const [one] = await getOne(1);
      expect(fromPayload(one.payload)).toEqual({
        ...BASIC_POINTS[0].payload,
        color: 'red',
        coords: { lat: 1.5, lon: 2.5, alt: 7 },
      });
      const [two] = await getOne(2);
      expect(fromPayload(two.payload)).toEqual({ ...BASIC_POINTS[1].payload, color: 'red' });
      const east = await call<{ result: RetrievedPoint[] }>('Scroll', {
        collectionName: COLLECTION,
        filter: { must: [{ field: { key: 'east', match: { boolean: true } } }] },
      });
      expect(idsOf(east.result)).toEqual(['n:3', 'n:4']);
    });

    it('should replace payload with OverwritePayload, remove keys with DeletePayload (incl. nested) and clear with ClearPayload', async () => {
      await call('OverwritePayload', {
        collectionName: COLLECTION,
        wait: true,
        payload: toPayload({ only: 'this' }),
        pointsSelector: { points: { ids: [pid(2)] } },
      });
      expect(fromPayload((await getOne(2))[0].payload)).toEqual({ only: 'this' });

      await call('DeletePayload', {
        collectionName: COLLECTION,
        wait: true,
        keys: ['color', 'coords.alt'],
        pointsSelector: { points: { ids: [pid(1)] } },
      });
      expect(fromPayload((await getOne(1))[0].payload)).toEqual(BASIC_POINTS[0].payload);

      expect(
        (await call('ClearPayload', { collectionName: COLLECTION, wait: true, points: { points: { ids: [pid(3)] } } }))
          .result.status,
      ).toBe('Completed');
      expect(fromPayload((await getOne(3))[0].payload)).toEqual({});
    });

    it('should delete points by ids and by filter', async () => {
      expect(
        (await call('Delete', { collectionName: COLLECTION, wait: true, points: { points: { ids: [pid(U1)] } } }))
          .result.status,
      ).toBe('Completed');
      expect(await getOne(U1)).toEqual([]);
      // only point 4 still has London (point 2 was overwritten)
      await call('Delete', {
        collectionName: COLLECTION,
        wait: true,
        points: { filter: { must: [keyword('city', 'London')] } },
      });
      expect(await getOne(4)).toEqual([]);
      model.delete(keyOf(U1));
      model.delete(keyOf(4));
      expect(
        (await call<{ result: { count: string } }>('Count', { collectionName: COLLECTION, exact: true })).result.count,
      ).toBe('7');
      expect((await info()).pointsCount).toBe('7');
    });

    it('should apply several operations in order with UpdateBatch', async () => {
      const batch = await call<{ result: OperationResponse['result'][] }>('UpdateBatch', {
        collectionName: COLLECTION,
        wait: true,
        operations: [
          {
            upsert: {
              points: [
                pointStruct({ id: 20, vector: [0, 1, 0, 0], payload: { b: 1 }, flat: false }),
                pointStruct({ id: 21, vector: [0, 0, 1, 0], payload: { b: 2 }, flat: true }),
              ],
            },
          },
          { setPayload: { payload: toPayload({ s: 'x' }), pointsSelector: { points: { ids: [pid(20)] } } } },
          { overwritePayload: { payload: toPayload({ o: 1 }), pointsSelector: { points: { ids: [pid(21)] } } } },
          { deletePayload: { keys: ['b'], pointsSelector: { points: { ids: [pid(20)] } } } },
          { updateVectors: { points: [{ id: pid(20), vectors: unnamed([0, 0, 0, 1]) }] } },
          { deleteVectors: { pointsSelector: { points: { ids: [pid(21)] } }, vectors: { names: [''] } } },
          { deletePoints: { points: { points: { ids: [pid(21)] } } } },
          { clearPayload: { points: { points: { ids: [pid(1)] } } } },
        ],
      });
      expect(batch.result.map((r) => r.status)).toEqual(Array(8).fill('Completed'));
      const [twenty] = await getOne(20, { withVectors: { enable: true } });
      expect(fromPayload(twenty.payload)).toEqual({ s: 'x' });
      expectClose(defaultDense(twenty), [0, 0, 0, 1]);
      expect(await getOne(21)).toEqual([]);
      expect(fromPayload((await getOne(1))[0].payload)).toEqual({});
    });

    it('should search through an alias, a renamed alias, and fail after the alias is deleted', async () => {
      const alias = `test_alias_${pkg}`;
      const renamed = `${alias}_renamed`;
      expect(
        (
          await collectionCall('UpdateAliases', {
            actions: [{ createAlias: { collectionName: COLLECTION, aliasName: alias } }],
          })
        ).result,
      ).toBe(true);
      const direct = idsOf(await search({ vector: Q, limit: 3 }));
      expect(
        idsOf((await call<{ result: ScoredPoint[] }>('Search', { collectionName: alias, vector: Q, limit: 3 })).result),
      ).toEqual(direct);
      await collectionCall('UpdateAliases', {
        actions: [{ renameAlias: { oldAliasName: alias, newAliasName: renamed } }],
      });
      expect(
        idsOf(
          (await call<{ result: ScoredPoint[] }>('Search', { collectionName: renamed, vector: Q, limit: 3 })).result,
        ),
      ).toEqual(direct);
      await expectGrpcError(call('Search', { collectionName: alias, vector: Q, limit: 3 }), grpc.status.NOT_FOUND);
      await collectionCall('UpdateAliases', { actions: [{ deleteAlias: { aliasName: renamed } }] });
      await expectGrpcError(call('Search', { collectionName: renamed, vector: Q, limit: 3 }), grpc.status.NOT_FOUND);
    });
  });

  describe('sparse vectors', () => {
    const NAME = 'sparse_collection';
    let points: grpc.Client;
    let call: ReturnType<typeof caller>;
    const sparseOf = (point: RetrievedPoint) => {
      const out = point.vectors?.vectors?.vectors.sparse;
      if (!out) return undefined;
      return out.sparse ?? { indices: out.indices?.data ?? [], values: out.data ?? [] };
    };
    const getSparse = async (id: number) =>
      (
        await call<{ result: RetrievedPoint[] }>('Get', {
          collectionName: NAME,
          ids: [pid(id)],
          withVectors: { enable: true },
        })
      ).result[0];

    beforeAll(async () => {
      points = createPointsClient(server.grpcAddress, credentials(server.apiKey), 'qdrant');
      call = caller(points);
      const collections = createCollectionsClient(server.grpcAddress, credentials(server.apiKey));
      await unary(collections, 'Create', {
        collectionName: NAME,
        vectorsConfig: { params: { size: 4, distance: 'Dot' } },
        sparseVectorsConfig: { map: { sparse: { index: { onDisk: true } } } },
      });
      collections.close();
    });

    afterAll(() => points?.close());

    it('should upsert sparse vectors (oneof and deprecated flat form) and read them back', async () => {
      const response = await call('Upsert', {
        collectionName: NAME,
        wait: true,
        points: [
          {
            id: pid(8),
            vectors: {
              vectors: {
                vectors: { '': { dense: { data: SPARSE_POINT.vector } }, sparse: { sparse: SPARSE_POINT.sparse } },
              },
            },
            payload: toPayload(SPARSE_POINT.payload),
          },
          { id: pid(9), vectors: { vectors: { vectors: { sparse: { data: [0.25, 1], indices: { data: [3, 7] } } } } } },
        ],
      });
      expect(response.result.status).toBe('Completed');
      const eight = await getSparse(8);
      expect(sparseOf(eight)).toEqual({ indices: [1, 3], values: [0.5, 0.699999988079071] });
      expectClose(defaultDense(eight), SPARSE_POINT.vector);
      expect(sparseOf(await getSparse(9))).toEqual({ indices: [3, 7], values: [0.25, 1] });
      const onlySparse = (
        await call<{ result: RetrievedPoint[] }>('Get', {
          collectionName: NAME,
          ids: [pid(8)],
          withVectors: { include: { names: ['sparse'] } },
        })
      ).result;
      expect(Object.keys(onlySparse[0].vectors?.vectors?.vectors ?? {})).toEqual(['sparse']);
    });

    it('should search and query the sparse vector by name', async () => {
      const hits = (
        await call<{ result: ScoredPoint[] }>('Search', {
          collectionName: NAME,
          vector: [1, 2],
          sparseIndices: { data: [1, 3] },
          vectorName: 'sparse',
          limit: 5,
        })
      ).result;
      expect(ranked(hits).map(([k, v]) => [k, Number(v.toFixed(4))])).toEqual([
        ['n:8', 1.9],
        ['n:9', 0.5],
      ]);
      const queried = (
        await call<{ result: ScoredPoint[] }>('Query', {
          collectionName: NAME,
          using: 'sparse',
          query: { nearest: { sparse: { indices: [7], values: [2] } } },
        })
      ).result;
      expect(ranked(queried).map(([k, v]) => [k, Number(v.toFixed(4))])).toEqual([['n:9', 2]]);
    });

    it('should update and delete a sparse vector, keeping the dense one', async () => {
      await call('UpdateVectors', {
        collectionName: NAME,
        wait: true,
        points: [
          { id: pid(8), vectors: { vectors: { vectors: { sparse: { sparse: { indices: [2], values: [0.25] } } } } } },
        ],
      });
      expect(sparseOf(await getSparse(8))).toEqual({ indices: [2], values: [0.25] });
      expectClose(defaultDense(await getSparse(8)), SPARSE_POINT.vector);
      await call('DeleteVectors', {
        collectionName: NAME,
        wait: true,
        pointsSelector: { points: { ids: [pid(8)] } },
        vectors: { names: ['sparse'] },
      });
      const eight = await getSparse(8);
      expect(sparseOf(eight)).toBeUndefined();
      expectClose(defaultDense(eight), SPARSE_POINT.vector);
      const hits = (
        await call<{ result: ScoredPoint[] }>('Search', {
          collectionName: NAME,
          vector: [1],
          sparseIndices: { data: [2] },
          vectorName: 'sparse',
          limit: 5,
        })
      ).result;
      expect(hits).toEqual([]);
    });

    it('should keep accepting writes', async () => {
      const response = await call('SetPayload', {
        collectionName: NAME,
        wait: true,
        payload: toPayload({ more: 1 }),
        pointsSelector: { points: { ids: [pid(9)] } },
      });
      expect(response.result.status).toBe('Completed');
    });
  });

  describe('errors', () => {
    let points: grpc.Client;
    let readOnly: grpc.Client;
    let call: ReturnType<typeof caller>;
    const NAME = 'errors';

    beforeAll(async () => {
      points = createPointsClient(server.grpcAddress, credentials(server.apiKey));
      readOnly = createPointsClient(server.grpcAddress, credentials(server.readOnlyApiKey), 'qdrant');
      call = caller(points);
      const collections = createCollectionsClient(server.grpcAddress, credentials(server.apiKey));
      await unary(collections, 'Create', {
        collectionName: NAME,
        vectorsConfig: {
          paramsMap: { map: { a: { size: 4, distance: 'Cosine' }, b: { size: 2, distance: 'Euclid' } } },
        },
      });
      collections.close();
      await call('Upsert', {
        collectionName: NAME,
        wait: true,
        points: [
          {
            id: pid(1),
            vectors: { vectors: { vectors: { a: { dense: { data: [1, 0, 0, 0] } }, b: { dense: { data: [0, 1] } } } } },
          },
        ],
      });
    });

    afterAll(() => {
      points?.close();
      readOnly?.close();
    });

    it('should answer NOT_FOUND for an unknown collection', async () => {
      const missing = 'no_such_collection';
      await expectGrpcError(
        call('Search', { collectionName: missing, vector: [1, 0, 0, 0], limit: 1 }),
        grpc.status.NOT_FOUND,
        "Collection `no_such_collection` doesn't exist",
      );
      await expectGrpcError(
        call('Upsert', {
          collectionName: missing,
          wait: true,
          points: [{ id: pid(1), vectors: unnamed([1, 0, 0, 0]) }],
        }),
        grpc.status.NOT_FOUND,
      );
      await expectGrpcError(call('Get', { collectionName: missing, ids: [pid(1)] }), grpc.status.NOT_FOUND);
      await expectGrpcError(call('Scroll', { collectionName: missing }), grpc.status.NOT_FOUND);
      await expectGrpcError(call('Count', { collectionName: missing }), grpc.status.NOT_FOUND);
      await expectGrpcError(call('Query', { collectionName: missing }), grpc.status.NOT_FOUND);
    });

    it('should answer INVALID_ARGUMENT for an update of no vectors and a lookup of a vector name that does not exist', async () => {
      await expectGrpcError(
        call('UpdateVectors', {
          collectionName: NAME,
          wait: true,
          points: [{ id: pid(1), vectors: { vectors: { vectors: {} } } }],
        }),
        grpc.status.INVALID_ARGUMENT,
        'must specify vectors to update for point',
      );
      await expectGrpcError(
        call('Query', {
          collectionName: NAME,
          using: 'a',
          query: { recommend: { positive: [{ id: pid(1) }] } },
          lookupFrom: { collectionName: NAME, vectorName: 'nope' },
        }),
        grpc.status.INVALID_ARGUMENT,
        'Wrong input: Not existing vector name error: nope',
      );
    });

    it('should answer INVALID_ARGUMENT "Vector dimension error" for a wrong dimension', async () => {
      const named = (data: number[]) => ({ vectors: { vectors: { a: { dense: { data } } } } });
      await expectGrpcError(
        call('Upsert', { collectionName: NAME, wait: true, points: [{ id: pid(2), vectors: named([1, 2, 3]) }] }),
        grpc.status.INVALID_ARGUMENT,
        /Vector dimension error: expected dim: 4, got 3/,
      );
      await expectGrpcError(
        call('Search', { collectionName: NAME, vectorName: 'a', vector: [1, 2, 3], limit: 1 }),
        grpc.status.INVALID_ARGUMENT,
        'Vector dimension error',
      );
      await expectGrpcError(
        call('Query', { collectionName: NAME, using: 'b', query: { nearest: { dense: { data: [1, 2, 3] } } } }),
        grpc.status.INVALID_ARGUMENT,
        'Vector dimension error',
      );
      await expectGrpcError(
        call('UpdateVectors', {
          collectionName: NAME,
          wait: true,
          points: [{ id: pid(1), vectors: named([1, 2, 3, 4, 5]) }],
        }),
        grpc.status.INVALID_ARGUMENT,
        'Vector dimension error',
      );
      expect((await call<{ result: RetrievedPoint[] }>('Get', { collectionName: NAME, ids: [pid(2)] })).result).toEqual(
        [],
      );
    });

    it('should answer INVALID_ARGUMENT for an unknown vector name', async () => {
      await expectGrpcError(
        call('Search', { collectionName: NAME, vectorName: 'nope', vector: [1, 0, 0, 0], limit: 1 }),
        grpc.status.INVALID_ARGUMENT,
        'nope',
      );
      await expectGrpcError(
        call('Upsert', {
          collectionName: NAME,
          wait: true,
          points: [{ id: pid(3), vectors: { vectors: { vectors: { nope: { dense: { data: [1, 0] } } } } } }],
        }),
        grpc.status.INVALID_ARGUMENT,
        'nope',
      );
      await expectGrpcError(
        call('Query', { collectionName: NAME, using: 'nope', query: { nearest: { dense: { data: [1, 0, 0, 0] } } } }),
        grpc.status.INVALID_ARGUMENT,
        'nope',
      );
    });

    it('should answer INVALID_ARGUMENT for limit 0', async () => {
      await expectGrpcError(
        call('Search', { collectionName: NAME, vectorName: 'a', vector: [1, 0, 0, 0], limit: 0 }),
        grpc.status.INVALID_ARGUMENT,
        'limit',
      );
      await expectGrpcError(call('Scroll', { collectionName: NAME, limit: 0 }), grpc.status.INVALID_ARGUMENT, 'limit');
      await expectGrpcError(
        call('Query', {
          collectionName: NAME,
          using: 'a',
          query: { nearest: { dense: { data: [1, 0, 0, 0] } } },
          limit: 0,
        }),
        grpc.status.INVALID_ARGUMENT,
        'limit',
      );
    });

    it('should answer NOT_FOUND for SetPayload on a missing point', async () => {
      await expectGrpcError(
        call('SetPayload', {
          collectionName: NAME,
          wait: true,
          payload: toPayload({ a: 1 }),
          pointsSelector: { points: { ids: [pid(424242)] } },
        }),
        grpc.status.NOT_FOUND,
        '424242',
      );
    });

    it('should deny writes to the read-only key with PERMISSION_DENIED but let it search', async () => {
      const ro = caller(readOnly);
      await expectGrpcError(
        ro('Upsert', {
          collectionName: NAME,
          wait: true,
          points: [{ id: pid(9), vectors: { vectors: { vectors: { a: { dense: { data: [0, 1, 0, 0] } } } } } }],
        }),
        grpc.status.PERMISSION_DENIED,
      );
      await expectGrpcError(
        ro('Delete', { collectionName: NAME, wait: true, points: { points: { ids: [pid(1)] } } }),
        grpc.status.PERMISSION_DENIED,
      );
      await expectGrpcError(
        ro('CreateFieldIndex', { collectionName: NAME, fieldName: 'x', fieldType: 'FieldTypeKeyword' }),
        grpc.status.PERMISSION_DENIED,
      );
      const hits = await ro<{ result: ScoredPoint[] }>('Search', {
        collectionName: NAME,
        vectorName: 'a',
        vector: [1, 0, 0, 0],
        limit: 1,
      });
      expect(idsOf(hits.result)).toEqual(['n:1']);
      expect((await ro<{ result: { count: string } }>('Count', { collectionName: NAME })).result.count).toBe('1');
    });
  });
  // Last, because a failure here may affect every later collection operation of the server.
  describe('deleting collections with their points', () => {
    it.each(['errors', 'test_collection_vs', 'test_collection', 'sparse_collection'])(
      'should delete %s and answer NOT_FOUND for its points afterwards',
      async (name) => {
        const collections = createCollectionsClient(server.grpcAddress, credentials(server.apiKey));
        const points = createPointsClient(server.grpcAddress, credentials(server.apiKey));
        try {
          expect(
            (await unary<object, { result: boolean }>(collections, 'Delete', { collectionName: name })).result,
          ).toBe(true);
          await expectGrpcError(unary(points, 'Get', { collectionName: name, ids: [pid(1)] }), grpc.status.NOT_FOUND);
        } finally {
          collections.close();
          points.close();
        }
      },
    );
  });
});
