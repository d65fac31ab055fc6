import * as grpc from '@grpc/grpc-js';
import {
  CollectionsClient,
  createCollectionsClient,
  createPointsClient,
  credentials,
  unary,
} from './support/grpc-clients';
import { BrutePoint, geoDistance, matches } from './support/points-brute-force';
import {
  DistanceName,
  JsonObject,
  RetrievedPoint,
  ScoredPoint,
  caller,
  compareKeys,
  expectSameRanking,
  idOf,
  pid,
  pollUntil,
  toPayload,
  topK,
} from './support/points-helpers';
import { Rng } from '../support/seeded-random';
import { RunningServer, startServer } from './support/server-harness';

jest.setTimeout(60_000);

const NAME = 'filters';
const DIM = 8;
const COUNT = 300;
const COLORS = ['red', 'green', 'blue', 'yellow', 'black'] as const;
const WORDS = [
  'apple',
  'river',
  'stone',
  'cloud',
  'forest',
  'engine',
  'silver',
  'garden',
  'window',
  'rocket',
  'marble',
  'tiger',
  'orange',
  'violet',
  'copper',
];
const DISTANCES: Record<string, DistanceName> = { dot: 'Dot', cos: 'Cosine', euc: 'Euclid', man: 'Manhattan' };

/** Seeded data: every payload kind the filters need, with gaps (missing, null, [], [null]) on purpose. */
function generatePoints(): BrutePoint[] {
  const rng = new Rng(20240611);
  const refs = Array.from({ length: 8 }, () => rng.uuid());
  const points: BrutePoint[] = [];
  const year = Date.UTC(2024, 0, 1);
  for (let i = 0; i < COUNT; i++) {
    const key = i < COUNT - 20 ? `n:${i * 3 + 1}` : `u:${rng.uuid()}`;
    const p: JsonObject = {};
    if (rng.bool(0.9))
      p.kw = rng.bool(0.2) ? Array.from({ length: rng.int(0, 3) }, () => rng.pick(COLORS)) : rng.pick(COLORS);
    if (rng.bool(0.85)) p.n = rng.bool(0.1) ? [rng.int(-50, 50), rng.int(-50, 50)] : rng.int(-50, 50);
    if (rng.bool(0.85)) p.f = Math.round(rng.float(-50, 50) * 1000) / 1000 + 0.0005;
    if (rng.bool(0.8)) p.flag = rng.bool();
    if (rng.bool(0.7)) p.meta = { level: rng.int(0, 5), tag: rng.pick(['x', 'y', 'z']) };
    if (rng.bool(0.7))
      p.items = Array.from({ length: rng.int(0, 3) }, () => ({ color: rng.pick(COLORS), qty: rng.int(0, 10) }));
    if (rng.bool(0.8)) p.loc = { lon: rng.float(-10, 10), lat: rng.float(40, 60) };
    if (rng.bool(0.8)) {
      const ms = year + rng.int(0, 365 * 24 * 3600 - 1) * 1000 + rng.int(1, 999);
      const iso = new Date(ms).toISOString(); // 2024-05-06T07:08:09.123Z
      const variant = rng.int(0, 2);
      if (variant === 0) p.when = iso;
      else if (variant === 1) p.when = `${iso.slice(0, 19)}Z`;
      else p.when = `${new Date(ms + 2 * 3600 * 1000).toISOString().slice(0, 23)}+02:00`;
    }
    if (rng.bool(0.8)) p.text = Array.from({ length: rng.int(3, 8) }, () => rng.pick(WORDS)).join(' ');
    const maybe = rng.next();
    if (maybe < 0.2) p.maybe = null;
    else if (maybe < 0.45) p.maybe = 'v';
    else if (maybe < 0.6) p.maybe = [];
    else if (maybe < 0.65) p.maybe = [null];
    else if (maybe < 0.7) p.maybe = ['v', null];
    if (rng.bool(0.6)) p.ref = rng.pick(refs);
    const vectors: Record<string, number[]> = { dot: rng.vector(DIM) };
    if (rng.bool(0.9)) vectors.cos = rng.vector(DIM);
    if (rng.bool(0.7)) vectors.euc = rng.vector(DIM);
    if (rng.bool(0.8)) vectors.man = rng.vector(DIM);
    points.push({ key, payload: p, vectors });
  }
  return points;
}

const POINTS = generatePoints();
const REFS = [...new Set(POINTS.map((p) => p.payload.ref).filter((r): r is string => typeof r === 'string'))].sort();

const f = (key: string, rest: object) => ({ field: { key, ...rest } });
const kw = (key: string, keyword: string) => f(key, { match: { keyword } });
const int = (key: string, integer: number) => f(key, { match: { integer: String(integer) } });
const range = (key: string, r: object) => f(key, { range: r });
const ts = (iso: string) => ({ seconds: String(Math.floor(Date.parse(iso) / 1000)), nanos: 0 });
const idFor = (key: string) => (key.startsWith('n:') ? { num: key.slice(2) } : { uuid: key.slice(2) });

/** A radius with no point within 0.5% of its edge, so rounding differences cannot flip a point. */
function clearRadius(center: { lon: number; lat: number }, wanted: number): number {
  const distances = POINTS.map((p) => p.payload.loc as { lon: number; lat: number } | undefined)
    .filter((g): g is { lon: number; lat: number } => !!g)
    .map((g) => geoDistance(center, g));
  let r = wanted;
  while (distances.some((d) => Math.abs(d - r) < r * 0.005)) r *= 1.013;
  return r;
}

const CENTER = { lon: 0.5, lat: 50.2 };
const SOME_IDS = [
  POINTS[3].key,
  POINTS[17].key,
  POINTS[150].key,
  POINTS[COUNT - 1].key,
  POINTS[COUNT - 5].key,
  'n:999999',
];

/** ~60 filters covering every condition kind and their combinations. */
const FILTERS: Array<[string, object]> = [
  ['match keyword', { must: [kw('kw', 'red')] }],
  ['match keyword (should)', { should: [kw('kw', 'blue')] }],
  ['match integer', { must: [int('n', 7)] }],
  ['match negative integer', { must: [int('n', -13)] }],
  ['match bool true', { must: [f('flag', { match: { boolean: true } })] }],
  ['match bool false', { must: [f('flag', { match: { boolean: false } })] }],
  ['match any keywords', { must: [f('kw', { match: { keywords: { strings: ['red', 'black'] } } })] }],
  ['match except keywords', { must: [f('kw', { match: { exceptKeywords: { strings: ['red', 'green'] } } })] }],
  ['match any integers', { must: [f('n', { match: { integers: { integers: ['1', '2', '3', '-4', '40'] } } })] }],
  [
    'match except integers',
    { must: [f('n', { match: { exceptIntegers: { integers: ['0', '1', '2', '3', '4', '5'] } } })] },
  ],
  ['match text one word', { must: [f('text', { match: { text: 'river' } })] }],
  ['match text another word', { must: [f('text', { match: { text: 'copper' } })] }],
  ['match text two words', { must: [f('text', { match: { text: 'stone cloud' } })] }],
  ['range integer gte/lte', { must: [range('n', { gte: -10, lte: 10 })] }],
  ['range integer lt', { must: [range('n', { lt: -40 })] }],
  ['range float gt/lt', { must: [range('f', { gt: 0, lt: 25.5 })] }],
  ['range float lte', { must: [range('f', { lte: -30.25 })] }],
  ['range nested object field', { must: [range('meta.level', { gte: 3 })] }],
  ['range over array element field', { must: [range('items[].qty', { gt: 8 })] }],
  [
    'datetime range gte/lt',
    { must: [f('when', { datetimeRange: { gte: ts('2024-03-01T00:00:00Z'), lt: ts('2024-06-01T00:00:00Z') } })] },
  ],
  ['datetime range gt', { must: [f('when', { datetimeRange: { gt: ts('2024-11-15T12:00:00Z') } })] }],
  ['datetime range lte', { must: [f('when', { datetimeRange: { lte: ts('2024-01-20T00:00:00Z') } })] }],
  ['geo radius', { must: [f('loc', { geoRadius: { center: CENTER, radius: clearRadius(CENTER, 400_000) } })] }],
  [
    'geo radius small',
    {
      must: [
        f('loc', { geoRadius: { center: { lon: -5, lat: 45 }, radius: clearRadius({ lon: -5, lat: 45 }, 150_000) } }),
      ],
    },
  ],
  [
    'geo bounding box',
    {
      must: [f('loc', { geoBoundingBox: { topLeft: { lon: -3.3, lat: 55.5 }, bottomRight: { lon: 4.1, lat: 47.2 } } })],
    },
  ],
  [
    'geo polygon',
    {
      must: [
        f('loc', {
          geoPolygon: {
            exterior: {
              points: [
                { lon: -8, lat: 42 },
                { lon: 8, lat: 44 },
                { lon: 6, lat: 58 },
                { lon: -6, lat: 55 },
                { lon: -8, lat: 42 },
              ],
            },
          },
        }),
      ],
    },
  ],
  [
    'geo polygon with a hole',
    {
      must: [
        f('loc', {
          geoPolygon: {
            exterior: {
              points: [
                { lon: -9, lat: 41 },
                { lon: 9, lat: 41 },
                { lon: 9, lat: 59 },
                { lon: -9, lat: 59 },
                { lon: -9, lat: 41 },
              ],
            },
            interiors: [
              {
                points: [
                  { lon: -3, lat: 47 },
                  { lon: 3, lat: 47 },
                  { lon: 3, lat: 53 },
                  { lon: -3, lat: 53 },
                  { lon: -3, lat: 47 },
                ],
              },
            ],
          },
        }),
      ],
    },
  ],
  ['values_count gte 2', { must: [f('kw', { valuesCount: { gte: '2' } })] }],
  ['values_count lt 2 on array of objects', { must: [f('items', { valuesCount: { lt: '2' } })] }],
  ['values_count gt 0 lte 1', { must: [f('n', { valuesCount: { gt: '0', lte: '1' } })] }],
  ['is_empty on a gappy field', { must: [{ isEmpty: { key: 'maybe' } }] }],
  ['is_empty on array of objects', { must: [{ isEmpty: { key: 'items' } }] }],
  ['is_empty on a missing field', { must: [{ isEmpty: { key: 'does_not_exist' } }] }],
  ['is_null', { must: [{ isNull: { key: 'maybe' } }] }],
  ['not is_null', { mustNot: [{ isNull: { key: 'maybe' } }] }],
  ['not is_empty', { mustNot: [{ isEmpty: { key: 'kw' } }] }],
  ['has_id', { must: [{ hasId: { hasId: SOME_IDS.map(idFor) } }] }],
  ['not has_id', { mustNot: [{ hasId: { hasId: SOME_IDS.map(idFor) } }] }],
  ['has_vector euc', { must: [{ hasVector: { hasVector: 'euc' } }] }],
  ['has_vector cos', { must: [{ hasVector: { hasVector: 'cos' } }] }],
  ['lacks vector man', { mustNot: [{ hasVector: { hasVector: 'man' } }] }],
  [
    'nested: same element',
    { must: [{ nested: { key: 'items', filter: { must: [kw('color', 'red'), range('qty', { gte: 5 })] } } }] },
  ],
  [
    'nested with must_not inside',
    {
      must: [{ nested: { key: 'items', filter: { must: [kw('color', 'blue')], mustNot: [range('qty', { lt: 3 })] } } }],
    },
  ],
  ['array path: any element', { must: [kw('items[].color', 'blue')] }],
  [
    'array path: two conditions on different elements',
    { must: [kw('items[].color', 'red'), range('items[].qty', { gte: 5 })] },
  ],
  ['nested object keyword', { must: [kw('meta.tag', 'x')] }],
  ['nested object integer', { must: [int('meta.level', 2)] }],
  ['uuid keyword', { must: [kw('ref', REFS[0])] }],
  ['uuid any', { must: [f('ref', { match: { keywords: { strings: REFS.slice(2, 5) } } })] }],
  ['must: two fields', { must: [kw('kw', 'red'), f('flag', { match: { boolean: true } })] }],
  ['should: keyword or range', { should: [kw('kw', 'green'), range('n', { gt: 40 })] }],
  ['must_not keyword', { mustNot: [kw('kw', 'red')] }],
  [
    'must and must_not',
    { must: [range('f', { gt: -20 })], mustNot: [kw('meta.tag', 'y'), f('flag', { match: { boolean: false } })] },
  ],
  [
    'min_should 2 of 3',
    {
      minShould: {
        conditions: [kw('kw', 'yellow'), range('n', { gte: 0 }), f('flag', { match: { boolean: true } })],
        minCount: '2',
      },
    },
  ],
  [
    'min_should with must',
    {
      must: [{ hasVector: { hasVector: 'cos' } }],
      minShould: {
        conditions: [kw('meta.tag', 'z'), range('f', { lt: 0 }), { isEmpty: { key: 'maybe' } }],
        minCount: '2',
      },
    },
  ],
  [
    'nested boolean filter',
    { must: [{ filter: { should: [kw('kw', 'black'), { isNull: { key: 'maybe' } }] } }, range('n', { lte: 20 })] },
  ],
  ['must_not of a nested filter', { mustNot: [{ filter: { must: [kw('kw', 'blue'), range('f', { gt: 0 })] } }] }],
  ['should with has_id and field', { should: [{ hasId: { hasId: SOME_IDS.slice(0, 3).map(idFor) } }, int('n', 13)] }],
  ['must_not nested', { mustNot: [{ nested: { key: 'items', filter: { must: [kw('color', 'green')] } } }] }],
  [
    'everything at once',
    {
      must: [{ hasVector: { hasVector: 'dot' } }, range('loc.lat', { gt: 45 })],
      should: [kw('kw', 'red'), kw('kw', 'blue'), f('text', { match: { text: 'tiger' } })],
      mustNot: [{ isEmpty: { key: 'items' } }],
    },
  ],
  [
    'text and datetime',
    {
      must: [
        f('text', { match: { text: 'garden' } }),
        f('when', { datetimeRange: { lt: ts('2024-07-01T00:00:00Z') } }),
      ],
    },
  ],
];

/** Fields a payload index can cover, with the index to build. */
const INDEXES: Array<[string, string, object?]> = [
  ['kw', 'FieldTypeKeyword'],
  ['n', 'FieldTypeInteger'],
  ['f', 'FieldTypeFloat'],
  ['flag', 'FieldTypeBool'],
  ['meta.level', 'FieldTypeInteger'],
  ['meta.tag', 'FieldTypeKeyword'],
  ['items[].color', 'FieldTypeKeyword'],
  ['items[].qty', 'FieldTypeInteger'],
  ['loc', 'FieldTypeGeo'],
  ['when', 'FieldTypeDatetime'],
  ['text', 'FieldTypeText', { textIndexParams: { tokenizer: 'Word', lowercase: true } }],
  ['ref', 'FieldTypeUuid'],
];

describe('Points filters against a brute-force evaluator (gRPC, e2e)', () => {
  let server: RunningServer;
  let points: grpc.Client;
  let collections: CollectionsClient;
  let call: ReturnType<typeof caller>;
  const collectionCall = <Res>(method: string, request: object) => unary<object, Res>(collections, method, request);

  beforeAll(async () => {
    server = await startServer();
    points = createPointsClient(server.grpcAddress, credentials(server.apiKey));
    collections = createCollectionsClient(server.grpcAddress, credentials(server.apiKey));
    call = caller(points);
    await collectionCall('Create', {
      collectionName: NAME,
      vectorsConfig: {
        paramsMap: {
          map: Object.fromEntries(Object.entries(DISTANCES).map(([name, distance]) => [name, { size: DIM, distance }])),
        },
      },
    });
    for (let i = 0; i < POINTS.length; i += 100) {
      const batch = POINTS.slice(i, i + 100).map((p) => ({
        id: pid(p.key.slice(2)),
        payload: toPayload(p.payload),
        vectors: {
          vectors: {
            vectors: Object.fromEntries(Object.entries(p.vectors).map(([name, data]) => [name, { dense: { data } }])),
          },
        },
      }));
      const response = await call('Upsert', { collectionName: NAME, wait: true, points: batch });
      expect(response.result.status).toBe('Completed');
    }
  });

  afterAll(async () => {
    if (process.env.E2E_SERVER_LOG) process.stdout.write(server?.output() ?? '');
    points?.close();
    collections?.close();
    await server?.stop();
  });

  /** Every id the server's Scroll returns for `filter`, following next_page_offset. */
  async function scrollIds(filter: object, limit = 1000): Promise<string[]> {
    const ids: string[] = [];
    let offset: object | undefined;
    for (let page = 0; page < 1000; page++) {
      const response = await call<{ result: RetrievedPoint[]; nextPageOffset?: { num?: string; uuid?: string } }>(
        'Scroll',
        {
          collectionName: NAME,
          filter,
          limit,
          withPayload: { enable: false },
          ...(offset ? { offset } : {}),
        },
      );
      ids.push(...response.result.map((p) => idOf(p.id)));
      if (!response.nextPageOffset) return ids;
      offset =
        response.nextPageOffset.num !== undefined
          ? { num: response.nextPageOffset.num }
          : { uuid: response.nextPageOffset.uuid };
    }
    throw new Error('scroll did not end');
  }

  const count = async (filter: object) =>
    Number(
      (await call<{ result: { count: string } }>('Count', { collectionName: NAME, filter, exact: true })).result.count,
    );

  it('should hold every point and have a non-trivial spread of matches per filter', async () => {
    expect(await count({})).toBe(COUNT);
    const sizes = FILTERS.map(([, filter]) => POINTS.filter((p) => matches(p, filter)).length);
    // a filter that matches nothing or everything proves little; a few such are fine, most must discriminate
    expect(sizes.filter((n) => n > 0 && n < COUNT).length).toBeGreaterThan(FILTERS.length * 0.9);
  });

  it('should page through all points exactly once in id order', async () => {
    const all = await scrollIds({}, 37);
    expect(all).toEqual(POINTS.map((p) => p.key).sort(compareKeys));
  });

  describe.each([
    ['without payload indexes', false],
    ['with a payload index on every indexable field', true],
  ])('%s', (_label, indexed) => {
    const textIndexed = new Set(indexed ? ['text'] : []);

    beforeAll(async () => {
      if (!indexed) return;
      for (const [field, type, params] of INDEXES) {
        const response = await call('CreateFieldIndex', {
          collectionName: NAME,
          fieldName: field,
          fieldType: type,
          fieldIndexParams: params,
          wait: true,
        });
        expect(response.result.status).toBe('Completed');
      }
      const info = await collectionCall<{ result: { payloadSchema: Record<string, unknown> } }>('Get', {
        collectionName: NAME,
      });
      expect(Object.keys(info.result.payloadSchema).sort()).toEqual(INDEXES.map(([field]) => field).sort());
    });

    it.each(FILTERS)('%s: Scroll and Count(exact) equal the brute force', async (_name, filter) => {
      const expected = POINTS.filter((p) => matches(p, filter, { textIndexed }))
        .map((p) => p.key)
        .sort(compareKeys);
      const scrolled = await scrollIds(filter);
      expect({ count: scrolled.length, ids: scrolled }).toEqual({ count: expected.length, ids: expected });
      expect(await count(filter)).toBe(expected.length);
    });
  });

  describe('exact search equals a brute-force top-k', () => {
    const rng = new Rng(77);
    const cases: Array<[string, string, object | undefined]> = [];
    for (const name of Object.keys(DISTANCES)) {
      cases.push([name, 'no filter', undefined]);
      cases.push([name, 'a keyword filter', { must: [kw('kw', 'red')] }]);
      cases.push([
        name,
        'a range and must_not filter',
        { must: [range('f', { gt: -25 })], mustNot: [f('flag', { match: { boolean: true } })] },
      ]);
    }

    it.each(cases)('should rank %s with %s', async (name, _label, filter) => {
      const distance = DISTANCES[name];
      const query = rng.vector(DIM);
      const candidates = POINTS.filter((p) => p.vectors[name] && (!filter || matches(p, filter))).map(
        (p) => [p.key, p.vectors[name]] as [string, number[]],
      );
      const hits = (
        await call<{ result: ScoredPoint[] }>('Search', {
          collectionName: NAME,
          vectorName: name,
          vector: query,
          limit: 10,
          params: { exact: true },
          ...(filter ? { filter } : {}),
        })
      ).result;
      expectSameRanking(
        hits.map((h) => [idOf(h.id), h.score]),
        topK(distance, query, candidates, 11),
        10,
      );
      const queried = (
        await call<{ result: ScoredPoint[] }>('Query', {
          collectionName: NAME,
          using: name,
          query: { nearest: { dense: { data: query } } },
          limit: 10,
          params: { exact: true },
          ...(filter ? { filter } : {}),
        })
      ).result;
      expect(queried.map((h) => idOf(h.id))).toEqual(hits.map((h) => idOf(h.id)));
    });
  });

  describe('approximate search recall', () => {
    const RECALL = 'recall';
    const N = 2000;
    const D = 32;
    const rng = new Rng(4242);
    const centers = Array.from({ length: 20 }, () => Array.from({ length: D }, () => rng.gaussian()));
    const data: Array<[string, number[]]> = Array.from({ length: N }, (_, i) => {
      const c = centers[i % centers.length];
      return [`n:${i + 1}`, c.map((x) => Math.fround(x + 0.35 * rng.gaussian()))];
    });

    beforeAll(async () => {
      await collectionCall('Create', {
        collectionName: RECALL,
        vectorsConfig: { params: { size: D, distance: 'Cosine' } },
        optimizersConfig: { indexingThreshold: 10 },
        hnswConfig: { m: 16, efConstruct: 100 },
      });
      for (let i = 0; i < N; i += 500) {
        await call('Upsert', {
          collectionName: RECALL,
          wait: true,
          points: data
            .slice(i, i + 500)
            .map(([key, v]) => ({ id: pid(key.slice(2)), vectors: { vector: { dense: { data: v } } } })),
        });
      }
      // give the optimizer a chance to build the HNSW graph (threshold 10 KB = 80 vectors of 32 dims)
      await pollUntil(
        async () => {
          const info = await collectionCall<{ result: { indexedVectorsCount?: string; status: string } }>('Get', {
            collectionName: RECALL,
          });
          return Number(info.result.indexedVectorsCount ?? 0) >= N * 0.9 && info.result.status === 'Green';
        },
        20_000,
        200,
      );
    });

    it('should reach recall@10 >= 0.9 on 2,000 clustered 32-d points', async () => {
      let found = 0;
      const queries = 50;
      for (let q = 0; q < queries; q++) {
        const c = centers[q % centers.length];
        const query = c.map((x) => x + 0.4 * rng.gaussian());
        const truth = new Set(topK('Cosine', query, data, 10).map(([k]) => k));
        const hits = (
          await call<{ result: ScoredPoint[] }>('Search', { collectionName: RECALL, vector: query, limit: 10 })
        ).result;
        expect(hits).toHaveLength(10);
        found += hits.filter((h) => truth.has(idOf(h.id))).length;
      }
      expect(found / (queries * 10)).toBeGreaterThanOrEqual(0.9);
    });
  });
});
