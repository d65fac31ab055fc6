import { seeded } from '../support/seeded-random';
import { RunningServer, startServer } from './support/server-harness';

// The official REST client, unchanged (CommonJS build; runs on Node 20 despite its engines field).
const { QdrantClient } = require('@qdrant/js-client-rest') as typeof import('@qdrant/js-client-rest');

jest.setTimeout(120_000);

type Client = InstanceType<typeof QdrantClient>;
type Id = number | string | bigint;

const DIM = 8;
const CITIES = ['Berlin', 'London', 'Moscow', 'Tokyo'];
const COUNT = 300;

interface ModelPoint {
  id: Id;
  vector: number[];
  payload: { city: string; n: number; score: number };
}

/** Ids of every kind: small integers, one beyond 2^53, the largest u64, UUIDs. */
function idOf(i: number): Id {
  if (i === 0) return 18446744073709551615n;
  if (i === 1) return 9007199254740993n;
  if (i % 10 === 3) return `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
  return i;
}

/**
 * Ids compared as the client sees them: on Node 20 js-client-rest cannot revive integers past 2^53,
 * so those are compared rounded (none of the small ids collides with them). Exactness is checked
 * on the raw HTTP text instead.
 */
const key = (id: Id): string => (typeof id === 'string' ? id : String(Number(id)));

/** JSON with bigint written as exact integers (what the client does on Node ≥21). */
function rawJson(value: unknown): string {
  return JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? `__u64__${v}` : v)).replace(
    /"__u64__(\d+)"/g,
    '$1',
  );
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
}

/** The slow twin: exact cosine ranking over the model, optionally filtered. */
function bruteForce(
  points: readonly ModelPoint[],
  query: readonly number[],
  limit: number,
  keep: (p: ModelPoint) => boolean = () => true,
): Array<{ id: string; score: number }> {
  return points
    .filter(keep)
    .map((p) => ({ id: key(p.id), score: cosine(p.vector, query) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, limit);
}

describe('points over REST through @qdrant/js-client-rest (e2e)', () => {
  let server: RunningServer;
  let client: Client;
  const random = seeded(11);
  const vector = (): number[] => Array.from({ length: DIM }, () => Math.round((random() * 2 - 1) * 1000) / 1000);
  const model: ModelPoint[] = Array.from({ length: COUNT }, (_, i) => ({
    id: idOf(i),
    vector: vector(),
    payload: { city: CITIES[i % CITIES.length], n: i, score: i / 4 },
  }));

  beforeAll(async () => {
    server = await startServer();
    client = new QdrantClient({ url: server.httpUrl, apiKey: server.apiKey, checkCompatibility: false });
    await client.createCollection('rp', {
      vectors: { size: DIM, distance: 'Cosine' },
      sparse_vectors: { bm: {} },
    });
    await client.createPayloadIndex('rp', { field_name: 'city', field_schema: 'keyword', wait: true });
    await client.createPayloadIndex('rp', { field_name: 'n', field_schema: 'integer', wait: true });
    const big = model.filter((p) => typeof p.id === 'bigint');
    const rest = model.filter((p) => typeof p.id !== 'bigint');
    const half = rest.length / 2;
    // Ids past 2^53 go over raw HTTP (the client can only send them on Node ≥21); the rest as a
    // point list and as a column batch.
    const response = await fetch(`${server.httpUrl}/collections/rp/points?wait=true`, {
      method: 'PUT',
      headers: { 'api-key': server.apiKey, 'content-type': 'application/json' },
      body: rawJson({ points: big.map((p) => ({ id: p.id, vector: p.vector, payload: p.payload })) }),
    });
    expect(response.status).toBe(200);
    expect(
      await client.upsert('rp', {
        wait: true,
        points: rest.slice(0, half).map((p) => ({ id: p.id as number, vector: p.vector, payload: p.payload })),
      }),
    ).toEqual({ operation_id: expect.any(Number), status: 'completed' });
    await client.upsert('rp', {
      wait: true,
      batch: {
        ids: rest.slice(half).map((p) => p.id as number),
        vectors: rest.slice(half).map((p) => p.vector),
        payloads: rest.slice(half).map((p) => p.payload),
      },
    });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('should count every point, and the filtered ones exactly', async () => {
    expect(await client.count('rp', {})).toEqual({ count: COUNT });
    const berlin = model.filter((p) => p.payload.city === 'Berlin').length;
    expect(await client.count('rp', { filter: { must: [{ key: 'city', match: { value: 'Berlin' } }] } })).toEqual({
      count: berlin,
    });
  });

  it('should retrieve in the requested order with exact u64 ids, UUIDs lowercased, vectors read back exactly', async () => {
    const upper = '00000000-0000-4000-8000-00000000000D';
    const response = await fetch(`${server.httpUrl}/collections/rp/points`, {
      method: 'POST',
      headers: { 'api-key': server.apiKey, 'content-type': 'application/json' },
      body: rawJson({ ids: [7, 18446744073709551615n, upper, 9007199254740993n, 7], with_payload: true }),
    });
    const text = await response.text();
    expect(text).toMatch(
      /"result":\[\{"id":7,.*\{"id":18446744073709551615,.*\{"id":"00000000-0000-4000-8000-00000000000d",.*\{"id":9007199254740993,/,
    );
    expect(text).toContain('"payload":{"city":"Tokyo","n":7,"score":1.75}');
    const records = await client.retrieve('rp', { ids: [7], with_vector: true });
    expect(records[0].payload).toEqual({ city: CITIES[7 % 4], n: 7, score: 1.75 });
    // Cosine vectors are stored normalised, as in Qdrant.
    const stored = records[0].vector as number[];
    expect(stored.reduce((sum, v) => sum + v * v, 0)).toBeCloseTo(1, 5);
    expect(cosine(stored, model[7].vector)).toBeCloseTo(1, 6);
    expect(records[0].payload).toEqual({ city: CITIES[7 % 4], n: 7, score: 1.75 });
  });

  it('should answer an exact query equal to brute force', async () => {
    for (let q = 0; q < 5; q++) {
      const query = vector();
      const answer = await client.query('rp', { query, limit: 10, params: { exact: true } });
      const expected = bruteForce(model, query, 10);
      expect(answer.points.map((p) => key(p.id))).toEqual(expected.map((e) => e.id));
      answer.points.forEach((p, i) => expect(p.score).toBeCloseTo(expected[i].score, 5));
    }
  });

  it('should answer a filtered exact query equal to the filtered brute force', async () => {
    const query = vector();
    const filter = {
      must: [{ key: 'city', match: { any: ['Berlin', 'Tokyo'] } }],
      must_not: [{ key: 'n', range: { gte: 100, lt: 200 } }],
    };
    const answer = await client.query('rp', { query, filter, limit: 15, with_payload: true, params: { exact: true } });
    const keep = (p: ModelPoint): boolean =>
      ['Berlin', 'Tokyo'].includes(p.payload.city) && !(p.payload.n >= 100 && p.payload.n < 200);
    expect(answer.points.map((p) => key(p.id))).toEqual(bruteForce(model, query, 15, keep).map((e) => e.id));
    for (const p of answer.points) expect(['Berlin', 'Tokyo']).toContain((p.payload as { city: string }).city);
  });

  it('should run a query batch and query groups', async () => {
    const [a, b] = [vector(), vector()];
    const batch = await client.queryBatch('rp', {
      searches: [
        { query: a, limit: 3, params: { exact: true } },
        { query: b, limit: 2, params: { exact: true } },
      ],
    });
    expect(batch.map((r) => r.points.map((p) => key(p.id)))).toEqual([
      bruteForce(model, a, 3).map((e) => e.id),
      bruteForce(model, b, 2).map((e) => e.id),
    ]);
    const groups = await client.queryGroups('rp', {
      query: a,
      group_by: 'city',
      group_size: 2,
      limit: 4,
      params: { exact: true },
    });
    expect(groups.groups.map((g) => g.id).sort()).toEqual([...CITIES].sort());
    for (const group of groups.groups) {
      const best = bruteForce(model, a, 2, (p) => p.payload.city === group.id).map((e) => e.id);
      expect(group.hits.map((h) => key(h.id))).toEqual(best);
    }
  });

  it('should recommend by point id, excluding the example', async () => {
    const answer = await client.query('rp', {
      query: { recommend: { positive: [5] } },
      limit: 3,
      params: { exact: true },
    });
    expect(answer.points).toHaveLength(3);
    expect(answer.points.map((p) => p.id)).not.toContain(5);
    const nearest = bruteForce(model, model[5].vector, 4)
      .map((e) => e.id)
      .filter((id) => id !== '5')
      .slice(0, 3);
    expect(answer.points.map((p) => key(p.id))).toEqual(nearest);
  });

  it('should scroll every point page by page, and by order_by', async () => {
    const seen: string[] = [];
    let offset: Id | null | undefined = undefined;
    do {
      const page: Awaited<ReturnType<Client['scroll']>> = await client.scroll('rp', {
        limit: 64,
        offset: offset as number | undefined,
        with_payload: false,
      });
      seen.push(...page.points.map((p) => key(p.id)));
      offset = page.next_page_offset as Id | null | undefined;
    } while (offset !== null && offset !== undefined);
    expect(new Set(seen).size).toBe(COUNT);
    const ordered = await client.scroll('rp', { limit: 3, order_by: { key: 'n', direction: 'desc' } });
    expect(ordered.points.map((p) => p.order_value)).toEqual([COUNT - 1, COUNT - 2, COUNT - 3]);
    expect(ordered.next_page_offset).toBeNull();
  });

  it('should count facet values and compute the distance matrix', async () => {
    const facet = await client.facet('rp', { key: 'city', exact: true });
    expect(facet.hits).toHaveLength(4);
    for (const hit of facet.hits) expect(hit.count).toBe(COUNT / 4);
    const pairs = await client.searchMatrixPairs('rp', { sample: 10, limit: 2 });
    expect(pairs.pairs).toHaveLength(20);
    const offsets = await client.searchMatrixOffsets('rp', { sample: 10, limit: 2 });
    expect(offsets.ids).toHaveLength(10);
    expect(offsets.offsets_row).toHaveLength(20);
  });

  it('should set, overwrite, delete and clear payloads, with key paths', async () => {
    await client.setPayload('rp', { points: [10], payload: { extra: { a: 1 } } });
    await client.setPayload('rp', { points: [10], payload: { b: 2.0 }, key: 'extra' });
    let [p] = await client.retrieve('rp', { ids: [10] });
    expect(p.payload).toMatchObject({ city: CITIES[2], extra: { a: 1, b: 2 } });
    await client.deletePayload('rp', { points: [10], keys: ['extra'] });
    [p] = await client.retrieve('rp', { ids: [10] });
    expect(p.payload).not.toHaveProperty('extra');
    await client.overwritePayload('rp', { points: [10], payload: { only: true } });
    [p] = await client.retrieve('rp', { ids: [10] });
    expect(p.payload).toEqual({ only: true });
    await client.clearPayload('rp', { points: [10] });
    [p] = await client.retrieve('rp', { ids: [10] });
    expect(p.payload).toEqual({});
    model[10].payload = {} as ModelPoint['payload'];
  });

  it('should update and delete vectors, with sparse vectors in a map', async () => {
    await client.updateVectors('rp', {
      points: [{ id: 11, vector: { bm: { indices: [3, 1], values: [0.5, 0.25] } } }],
    });
    let [p] = await client.retrieve('rp', { ids: [11], with_vector: true });
    // Stored sorted by index, as Qdrant does.
    expect(p.vector).toEqual({ '': expect.any(Array), bm: { indices: [1, 3], values: [0.25, 0.5] } });
    const sparse = await client.query('rp', { query: { indices: [1], values: [2] }, using: 'bm', limit: 1 });
    expect(sparse.points.map((x) => x.id)).toEqual([11]);
    expect(sparse.points[0].score).toBe(0.5);
    await client.deleteVectors('rp', { points: [11], vector: ['bm'] });
    [p] = await client.retrieve('rp', { ids: [11], with_vector: true });
    expect(Array.isArray(p.vector)).toBe(true);
  });

  it('should embed documents with the local BM25 model on upsert and query, with IDF from the collection', async () => {
    await client.createCollection('docs', { sparse_vectors: { text: { modifier: 'idf' } } });
    const texts = ['I must not fear. Fear is the mind-killer.', 'It was a pleasure to burn.', 'Fear and burn'];
    await client.upsert('docs', {
      wait: true,
      points: texts.map((text, id) => ({ id, vector: { text: { text, model: 'qdrant/bm25' } }, payload: { text } })),
    });
    const [stored] = await client.retrieve('docs', { ids: [1], with_vector: true });
    // "it", "was", "a", "to" are stopwords: "pleasur" and "burn" remain, weighted by BM25 term frequency.
    expect((stored.vector as { text: { indices: number[] } }).text.indices).toHaveLength(2);
    const fear = await client.query('docs', { query: { text: 'should I fear?', model: 'bm25' }, using: 'text' });
    expect(fear.points.map((x) => x.id)).toEqual([0, 2]);
    const none = await client.query('docs', { query: { text: 'the and or', model: 'bm25' }, using: 'text' });
    expect(none.points).toEqual([]);
    await expect(
      client.query('docs', { query: { text: 'fear', model: 'openai/text-embedding-3-small' }, using: 'text' }),
    ).rejects.toMatchObject({ status: 400 });
  });

  it('should apply a batch of operations in order and delete by id and by filter', async () => {
    const results = await client.batchUpdate('rp', {
      operations: [
        { upsert: { points: [{ id: 5000, vector: vector(), payload: { city: 'Paris' } }] } },
        { set_payload: { payload: { tag: 'x' }, points: [5000] } },
        { delete: { points: [5000] } },
      ],
    });
    expect(results.map((r) => r.status)).toEqual(['completed', 'completed', 'completed']);
    expect(await client.retrieve('rp', { ids: [5000] })).toEqual([]);
    await client.delete('rp', { wait: true, points: [12] });
    await client.delete('rp', { wait: true, filter: { must: [{ key: 'n', range: { gte: 290 } }] } });
    expect(await client.count('rp', {})).toEqual({ count: COUNT - 11 });
  });

  it('should answer bad input with Qdrant’s codes and messages naming the field', async () => {
    const post = async (path: string, body: unknown, method = 'POST') => {
      const response = await fetch(`${server.httpUrl}/collections/rp${path}`, {
        method,
        headers: { 'api-key': server.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return {
        status: response.status,
        error: ((await response.json()) as { status: { error: string } }).status.error,
      };
    };
    expect(await post('/points', { points: [{ id: -1, vector: vector() }] }, 'PUT')).toEqual({
      status: 400,
      error: expect.stringContaining('points[0].id: value -1 is not a valid point ID'),
    });
    expect(await post('/points', { points: [{ id: 1, vector: [] }] }, 'PUT')).toEqual({
      status: 422,
      error: 'Validation error in JSON body: [points[0].vector: dense vector must not be empty]',
    });
    expect(
      await post('/points', { points: [{ id: 1, vector: { bm: { indices: [1, 2], values: [1] } } }] }, 'PUT'),
    ).toEqual({
      status: 422,
      error: expect.stringContaining('points[0].vector.?.values: Validation error: must be the same length as indices'),
    });
    expect(await post('/points', { points: [{ id: 1, vector: [1, 2, 3] }] }, 'PUT')).toEqual({
      status: 400,
      error: 'Wrong input: Vector dimension error: expected dim: 8, got 3',
    });
    expect(
      await post('/points/query', { query: { text: 'hello', model: 'sentence-transformers/all-minilm-l6-v2' } }),
    ).toEqual({
      status: 400,
      error: expect.stringContaining('InferenceService is not initialized'),
    });
    expect(await post('/points/scroll', { limit: 0 })).toEqual({
      status: 422,
      error: 'Validation error in JSON body: [limit: value 0 invalid, must be 1 or larger]',
    });
    expect(await post('/points/vectors', { points: [{ id: 2, vector: {} }] }, 'PUT')).toEqual({
      status: 422,
      error: 'Validation error in JSON body: [points[0].vector: must specify vectors to update for point]',
    });
    expect(
      await post('/points/query', {
        query: { recommend: { positive: [2] } },
        lookup_from: { collection: 'rp', vector: 'nope' },
      }),
    ).toEqual({ status: 400, error: 'Wrong input: Not existing vector name error: nope' });
    const missing = await fetch(`${server.httpUrl}/collections/rp/points/424242`, {
      headers: { 'api-key': server.apiKey },
    });
    expect(missing.status).toBe(404);
    const bad = await fetch(`${server.httpUrl}/collections/rp/points/abc`, { headers: { 'api-key': server.apiKey } });
    expect(bad.status).toBe(400);
  });

  it('should serve the search endpoints openapi 1.19 dropped, with `top` for limit', async () => {
    const query = vector();
    const response = await fetch(`${server.httpUrl}/collections/rp/points/search`, {
      method: 'POST',
      headers: { 'api-key': server.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ vector: query, top: 3, params: { exact: true } }),
    });
    expect(response.status).toBe(200);
    const { result } = (await response.json()) as { result: Array<{ id: number | string }> };
    const alive = model.filter((p) => p.payload.n === undefined || (p.payload.n < 290 && p.id !== 12));
    expect(result.map((p) => key(p.id))).toEqual(bruteForce(alive, query, 3).map((e) => e.id));
  });
});

describe('REST durability (e2e)', () => {
  it('should keep a wait=true upsert through kill -9', async () => {
    let server = await startServer();
    try {
      const client = new QdrantClient({ url: server.httpUrl, apiKey: server.apiKey, checkCompatibility: false });
      await client.createCollection('durable', { vectors: { size: 4, distance: 'Dot' } });
      await client.upsert('durable', {
        wait: true,
        points: [
          { id: Number.MAX_SAFE_INTEGER, vector: [0.1, 0.2, 0.3, 0.4], payload: { f: 1.5 } },
          { id: 'f0e09527-b096-42a8-94e9-ea94d342b885', vector: [1, 0, 0, 0] },
        ],
      });
      await server.kill();
      server = await server.restart();
      const again = new QdrantClient({ url: server.httpUrl, apiKey: server.apiKey, checkCompatibility: false });
      const records = await again.retrieve('durable', {
        ids: [Number.MAX_SAFE_INTEGER, 'f0e09527-b096-42a8-94e9-ea94d342b885'],
        with_vector: true,
      });
      expect(records).toEqual([
        { id: Number.MAX_SAFE_INTEGER, payload: { f: 1.5 }, vector: [0.1, 0.2, 0.3, 0.4] },
        { id: 'f0e09527-b096-42a8-94e9-ea94d342b885', payload: {}, vector: [1, 0, 0, 0] },
      ]);
    } finally {
      await server.stop();
    }
  });
});
