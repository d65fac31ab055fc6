// Cluster mode, data plane: three peers and one etcd hold one collection whose three shards sit on three
// peers. Every peer must answer point reads exactly as a standalone server holding the same points (same
// shard count, same writes in the same order) does; writes go through any peer; custom shard keys placed on
// chosen peers are written and read through peers that do not hold them; a peer cut from etcd refuses
// point writes within its lease TTL while the others keep reading, and takes writes again once reconnected.
import { randomBytes } from 'node:crypto';
import { etcdOrSkip, RunningEtcd, startEtcd } from './support/etcd-harness';
import { RunningServer, startServer } from './support/server-harness';
import { TcpProxy } from './support/tcp-proxy';
import { clusterSecrets, eventually, startClusterPeer } from './support/cluster-harness';
import { ringShard } from '../../libs/points/src/storage/collection-storage/shard-routing';

const { QdrantClient } = require('@qdrant/js-client-rest') as typeof import('@qdrant/js-client-rest');
const grpcModule = require('@qdrant/js-client-grpc') as typeof import('@qdrant/js-client-grpc');
const GrpcClient = grpcModule.QdrantClient;

const LEASE_TTL_S = 2;
const ETCD_TIMEOUT_MS = 1500;
const DIM = 16;
const POINTS = 600;
const UUID_POINTS = 30;
const BATCH = 50;
const COLORS = ['red', 'green', 'blue', 'yellow', 'black'];
const TAGS = ['t0', 't1', 't2', 't3', 't4', 't5'];
const etcdBin = etcdOrSkip();
const describeWithEtcd = etcdBin ? describe : describe.skip;

// Answers are read field by field, as the assertions need them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies of several shapes
type Json = any;
type Id = number | string;
interface Point {
  id: Id;
  vector: number[];
  payload: { color: string; n: number; tags: string[] };
}

interface Peer {
  name: string;
  server: RunningServer;
  /** This peer's own path to etcd, so that one peer alone can be cut off. */
  proxy: TcpProxy;
}

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const random = prng(20240611);
const int = (below: number) => Math.floor(random() * below);
const randomVector = () => Array.from({ length: DIM }, () => Math.round((random() * 2 - 1) * 10_000) / 10_000);
function randomUuid(): string {
  const hex = Array.from({ length: 32 }, () => int(16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
const usedIds = new Set<Id>();
function freshId(uuid: boolean): Id {
  for (;;) {
    const id = uuid ? randomUuid() : 1 + int(1_000_000);
    if (!usedIds.has(id)) {
      usedIds.add(id);
      return id;
    }
  }
}
function randomPoint(id: Id): Point {
  const tags = TAGS.filter(() => random() < 0.3);
  return { id, vector: randomVector(), payload: { color: COLORS[int(COLORS.length)], n: int(300), tags } };
}

// The data set: numeric ids first, then UUIDs, shuffled, so that batches mix shards and id kinds.
const points: Point[] = Array.from({ length: POINTS }, (_, i) => randomPoint(freshId(i >= POINTS - UUID_POINTS)));
for (let i = points.length - 1; i > 0; i--) {
  const j = int(i + 1);
  [points[i], points[j]] = [points[j], points[i]];
}
const queries = Array.from({ length: 5 }, randomVector);
// Points removed by the write phase: by id (through B) and by filter (blue, n >= 150).
const deletedByIdIndex = (i: number) => i % 15 === 7;
const survivors = points.filter((p, i) => !deletedByIdIndex(i) && p.payload.color !== 'blue');
// Example points for recommend and discover, present before and after the writes.
const examples = survivors.filter((_, i) => i % 9 === 0).map((p) => p.id);
// Ids to retrieve: existing ones (both kinds), deleted ones, and ids that never existed.
const getIds: Id[] = [
  points[3].id,
  points[POINTS - 1].id,
  ...points.filter((p) => typeof p.id === 'string').map((p) => p.id),
  ...points.filter((_, i) => deletedByIdIndex(i)).map((p) => p.id),
  2_000_001,
  '00000000-0000-4000-8000-000000000000',
  ...points.slice(100, 140).map((p) => p.id),
  2_000_002,
].filter((id, i, all) => all.indexOf(id) === i);

// Filters.
const colorIs = (value: string) => ({ key: 'color', match: { value } });
const nRange = (range: Record<string, number>) => ({ key: 'n', range });
const filterA = { must: [{ key: 'color', match: { any: ['red', 'green'] } }, nRange({ gte: 50, lt: 200 })] };
const filterB = { should: [colorIs('blue'), { key: 'tags', match: { any: ['t1'] } }], must_not: [nRange({ lt: 20 })] };
const filterC = { must: [colorIs('yellow')] };

/**
 * Differences between an answer and the standalone's (at most 12): scores within 1e-5, everything else exact.
 * `version` is skipped: it is the number of the last operation on the point's shard, not point content.
 */
function differences(actual: unknown, expected: unknown, path = '$', out: string[] = []): string[] {
  if (out.length >= 12) return out;
  const show = (value: unknown) => JSON.stringify(value)?.slice(0, 300);
  if (typeof expected === 'number' && typeof actual === 'number') {
    const tolerance = path.endsWith('.score') ? 1e-5 : 0;
    if (!(Math.abs(actual - expected) <= tolerance)) out.push(`${path}: ${actual} instead of ${expected}`);
    return out;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) {
      out.push(`${path}: ${show(actual)} instead of an array ${show(expected)}`);
      return out;
    }
    if (actual.length !== expected.length) {
      const idsOf = (list: unknown[]) =>
        list.map((item) => (item && typeof item === 'object' && 'id' in item ? (item as { id: Id }).id : item));
      out.push(
        `${path}: ${actual.length} items instead of ${expected.length}: ${show(idsOf(actual))} vs ${show(idsOf(expected))}`,
      );
      return out;
    }
    expected.forEach((item, i) => differences(actual[i], item, `${path}[${i}]`, out));
    return out;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) {
      out.push(`${path}: ${show(actual)} instead of ${show(expected)}`);
      return out;
    }
    const a = actual as Record<string, unknown>;
    const e = expected as Record<string, unknown>;
    const keys = new Set([...Object.keys(a), ...Object.keys(e)]);
    keys.delete('version');
    for (const key of [...keys].sort()) {
      if (!(key in a)) out.push(`${path}.${key}: missing (expected ${show(e[key])})`);
      else if (!(key in e)) out.push(`${path}.${key}: unexpected ${show(a[key])}`);
      else differences(a[key], e[key], `${path}.${key}`, out);
    }
    return out;
  }
  if (actual !== expected) out.push(`${path}: ${show(actual)} instead of ${show(expected)}`);
  return out;
}

/** An answer with nothing in it: 0, an empty list, or an object whose points or hits are empty. */
function vacuous(answer: unknown): boolean {
  if (answer === 0 || answer === undefined || answer === null) return true;
  if (Array.isArray(answer)) return answer.length === 0 || answer.every(vacuous);
  if (typeof answer === 'object') {
    const { points: list, hits } = answer as { points?: unknown[]; hits?: unknown[] };
    return (list !== undefined && list.length === 0) || (hits !== undefined && hits.length === 0);
  }
  return false;
}

describeWithEtcd('cluster mode: points routed and merged across 3 peers, equal to a standalone server (e2e)', () => {
  let etcd: RunningEtcd;
  let standalone: RunningServer;
  const peers: Peer[] = [];
  const names = new Map<RunningServer, string>();
  const collection = `pts-${randomBytes(4).toString('hex')}`;
  const shared = clusterSecrets();
  const A = () => peers[0].server;
  const B = () => peers[1].server;
  const C = () => peers[2].server;

  const rest = (server: RunningServer) =>
    new QdrantClient({ url: server.httpUrl, apiKey: server.apiKey, checkCompatibility: false, timeout: 20_000 });

  async function http(server: RunningServer, method: string, route: string, body?: unknown) {
    const response = await fetch(`${server.httpUrl}${route}`, {
      method,
      headers: { 'api-key': server.apiKey, 'content-type': 'application/json' },
      // A string is sent as is: JSON with u64 peer ids beyond 2^53.
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    // Peer ids are u64: keep big integers exact as strings (point ids here stay below 2^53).
    const exact = text.replace(/([:[,]\s*)(\d{16,})(?=\s*[,}\]])/g, '$1"$2"');
    return { status: response.status, body: exact ? (JSON.parse(exact) as Json) : undefined };
  }

  /** The `result` of a REST call that must succeed; otherwise an error naming the server and the answer. */
  async function result(server: RunningServer, method: string, route: string, body?: unknown): Promise<Json> {
    const answer = await http(server, method, route, body);
    if (answer.status !== 200)
      throw new Error(`${method} ${route} on ${names.get(server)}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body?.result;
  }

  async function startPeer(name: string): Promise<Peer> {
    const { server, proxy } = await startClusterPeer(etcd, shared, {
      leaseTtlS: LEASE_TTL_S,
      etcdTimeoutMs: ETCD_TIMEOUT_MS,
    });
    names.set(server, `peer ${name}`);
    return { name, server, proxy };
  }

  async function peerId(server: RunningServer): Promise<string> {
    return String((await http(server, 'GET', '/cluster')).body?.result.peer_id);
  }

  async function livePeers(server: RunningServer): Promise<string[]> {
    return Object.keys((await http(server, 'GET', '/cluster')).body?.result.peers ?? {}).sort();
  }

  /** Runs `read` on `server`; a failure names the server and carries the error body the REST client read. */
  async function named<T>(server: RunningServer, read: (target: RunningServer) => Promise<T>): Promise<T> {
    try {
      return await read(server);
    } catch (error) {
      const data = (error as { data?: unknown }).data;
      const detail = data === undefined ? '' : ` ${JSON.stringify(data)}`;
      throw new Error(`on ${names.get(server)}: ${(error as Error).message}${detail}`);
    }
  }

  /** Runs the same read on `server` and on the standalone and expects equal answers. */
  async function expectSameAsStandalone(server: RunningServer, read: (target: RunningServer) => Promise<unknown>) {
    const expected = await named(standalone, read);
    // The baseline must hold something, or equality would prove nothing.
    expect(vacuous(expected)).toBe(false);
    const actual = await named(server, read);
    expect(differences(actual, expected)).toEqual([]);
  }

  beforeAll(async () => {
    [etcd, standalone] = await Promise.all([startEtcd(etcdBin!), startServer()]);
    names.set(standalone, 'the standalone');
    for (const name of ['A', 'B', 'C']) peers.push(await startPeer(name));
    // A peer joins once its app is up: wait until every peer sees all three.
    await eventually(15_000, async () => {
      for (const peer of peers) expect(await livePeers(peer.server)).toHaveLength(3);
    });
  }, 120_000);

  afterAll(async () => {
    for (const peer of peers) {
      await peer.server.stop();
      await peer.proxy.close();
    }
    await standalone?.stop();
    await etcd?.stop();
  }, 60_000);

  it('should create the collection on A with one shard on each peer, and its payload indexes', async () => {
    const config = { vectors: { size: DIM, distance: 'Cosine' as const }, shard_number: 3 };
    await rest(A()).createCollection(collection, config);
    await rest(standalone).createCollection(collection, config);
    await eventually(2000, async () => {
      for (const server of [B(), C()]) expect((await rest(server).collectionExists(collection)).exists).toBe(true);
    });
    for (const server of [A(), standalone]) {
      await rest(server).createPayloadIndex(collection, { field_name: 'color', field_schema: 'keyword', wait: true });
      await rest(server).createPayloadIndex(collection, { field_name: 'n', field_schema: 'integer', wait: true });
    }

    const ids = await livePeers(A());
    await eventually(2000, async () => {
      const owners = new Map<number, string>();
      for (const peer of peers) {
        const info = await result(peer.server, 'GET', `/collections/${collection}/cluster`);
        expect(info.shard_count).toBe(3);
        expect(info.local_shards).toHaveLength(1);
        expect(info.remote_shards).toHaveLength(2);
        const all = [
          ...info.local_shards.map((s: Json) => [s.shard_id, String(info.peer_id), s.state]),
          ...info.remote_shards.map((s: Json) => [s.shard_id, String(s.peer_id), s.state]),
        ];
        expect(all.map((s: Json[]) => s[2])).toEqual(['Active', 'Active', 'Active']);
        expect(all.map((s: Json[]) => s[0]).sort()).toEqual([0, 1, 2]);
        expect(all.map((s: Json[]) => s[1]).sort()).toEqual(ids);
        owners.set(info.local_shards[0].shard_id, String(info.peer_id));
        // Every peer sees the indexes.
        const schema = (await rest(peer.server).getCollection(collection)).payload_schema;
        expect(schema.color?.data_type).toBe('keyword');
        expect(schema.n?.data_type).toBe('integer');
      }
      expect([...owners.keys()].sort()).toEqual([0, 1, 2]);
    });
  }, 30_000);

  it('should upsert 600 points in batches of 50 through A, B and C in turn (wait=true), each to its shard', async () => {
    for (let i = 0; i < POINTS; i += BATCH) {
      await named(standalone, (t) => rest(t).upsert(collection, { wait: true, points: points.slice(i, i + BATCH) }));
    }
    for (let i = 0; i < POINTS; i += BATCH) {
      const peer = peers[(i / BATCH) % 3];
      const answer = await named(peer.server, (t) =>
        rest(t).upsert(collection, { wait: true, points: points.slice(i, i + BATCH) }),
      );
      expect(answer.status).toBe('completed');
    }
    for (const peer of peers) {
      expect((await rest(peer.server).count(collection, { exact: true })).count).toBe(POINTS);
    }
    // Routed by id on the cluster collection's consistent-hash ring, whichever peer took the write.
    const expected: Record<number, number> = { 0: 0, 1: 0, 2: 0 };
    for (const point of points)
      expected[ringShard(typeof point.id === 'number' ? BigInt(point.id) : point.id, [0, 1, 2])]++;
    expect(await shardCounts()).toEqual(expected);
    expect(Object.values(await standaloneShardCounts()).reduce((a, b) => a + b, 0)).toBe(POINTS);
  }, 60_000);

  it('should show the same collection info on every peer: point count, indexes and their point counts', async () => {
    // Every shard indexes the points it holds: the indexes count every point, as on the standalone.
    await expectSameInfo();
  });

  /** Collection info through every peer equals the standalone's: point count, payload schema and its counts. */
  async function expectSameInfo() {
    const summary = async (t: RunningServer) => {
      const info = await rest(t).getCollection(collection);
      return { points_count: info.points_count, payload_schema: info.payload_schema };
    };
    const expected = await summary(standalone);
    for (const peer of peers) {
      expect({ peer: peer.name, differences: differences(await summary(peer.server), expected) }).toEqual({
        peer: peer.name,
        differences: [],
      });
    }
  }

  /** Points per shard id, each shard as its own peer reports it. */
  async function shardCounts(): Promise<Record<number, number>> {
    const counts: Record<number, number> = {};
    for (const peer of peers) {
      const info = await result(peer.server, 'GET', `/collections/${collection}/cluster`);
      for (const shard of info.local_shards) counts[shard.shard_id] = shard.points_count;
    }
    return counts;
  }

  async function standaloneShardCounts(): Promise<Record<number, number>> {
    const info = await result(standalone, 'GET', `/collections/${collection}/cluster`);
    return Object.fromEntries(info.local_shards.map((shard: Json) => [shard.shard_id, shard.points_count]));
  }

  // Each read returns a value that must be equal on every peer and on the standalone.
  const reads: Array<[string, (target: RunningServer) => Promise<unknown>]> = [
    [
      'get by ids (existing, deleted, missing) in the requested order, with payload and vectors',
      (t) => rest(t).retrieve(collection, { ids: getIds, with_payload: true, with_vector: true }),
    ],
    [
      'get one point by id, and 404 for a missing one',
      async (t) => {
        const one = await http(
          t,
          'GET',
          `/collections/${collection}/points/${encodeURIComponent(String(examples[1]))}`,
        );
        const missing = await http(t, 'GET', `/collections/${collection}/points/2000003`);
        return [one.status, one.body?.result, missing.status];
      },
    ],
    ['exact count', async (t) => (await rest(t).count(collection, { exact: true })).count],
    [
      'exact filtered counts',
      async (t) =>
        Promise.all(
          [filterA, filterB, filterC].map(
            async (filter) => (await rest(t).count(collection, { filter, exact: true })).count,
          ),
        ),
    ],
    ['scroll in pages of 37 to the end, with payload', (t) => scrollAll(t, { limit: 37, with_payload: true })],
    [
      'scroll in pages of 37 with a filter, payload selector and vectors',
      (t) => scrollAll(t, { limit: 37, filter: filterB, with_payload: { include: ['color', 'n'] }, with_vector: true }),
    ],
    [
      'scroll with order_by n (asc, ties by id)',
      (t) => rest(t).scroll(collection, { limit: 80, order_by: 'n', with_payload: true }),
    ],
    [
      'scroll with order_by n desc, start_from and a filter',
      (t) =>
        rest(t).scroll(collection, {
          limit: 40,
          order_by: { key: 'n', direction: 'desc', start_from: 250 },
          filter: { must_not: [colorIs('red')] },
          with_payload: ['n', 'color'],
        }),
    ],
    ['facet on color (exact)', (t) => rest(t).facet(collection, { key: 'color', exact: true })],
    [
      'facet on color with a filter, and on n with a limit (exact)',
      async (t) => [
        await rest(t).facet(collection, { key: 'color', exact: true, filter: { must: [nRange({ lt: 100 })] } }),
        await rest(t).facet(collection, { key: 'n', exact: true, limit: 7 }),
      ],
    ],
    [
      'search exact, limit 10, with payload',
      (t) =>
        result(t, 'POST', `/collections/${collection}/points/search`, {
          vector: queries[0],
          limit: 10,
          params: { exact: true },
          with_payload: true,
        }),
    ],
    [
      'search exact with a filter, limit 10, offset 5, with vectors',
      (t) =>
        result(t, 'POST', `/collections/${collection}/points/search`, {
          vector: queries[1],
          filter: filterA,
          limit: 10,
          offset: 5,
          params: { exact: true },
          with_vector: true,
        }),
    ],
    [
      'search exact, limit 10, offset 5, no filter',
      (t) =>
        result(t, 'POST', `/collections/${collection}/points/search`, {
          vector: queries[2],
          limit: 10,
          offset: 5,
          params: { exact: true },
        }),
    ],
    [
      'query nearest exact with a filter, offset 5, with payload',
      (t) =>
        rest(t).query(collection, {
          query: queries[3],
          filter: filterB,
          limit: 10,
          offset: 5,
          params: { exact: true },
          with_payload: true,
        }),
    ],
    [
      'query: two prefetches with different filters fused by rrf',
      (t) =>
        rest(t).query(collection, {
          prefetch: [
            { query: queries[0], filter: filterA, limit: 30, params: { exact: true } },
            { query: queries[1], filter: filterB, limit: 30, params: { exact: true } },
          ],
          query: { fusion: 'rrf' },
          limit: 15,
          with_payload: true,
        }),
    ],
    [
      'query: two prefetches fused by rrf, offset 4',
      (t) =>
        rest(t).query(collection, {
          prefetch: [
            { query: queries[2], filter: filterC, limit: 12, params: { exact: true } },
            { query: queries[3], limit: 12, params: { exact: true } },
          ],
          query: { fusion: 'rrf' },
          limit: 10,
          offset: 4,
        }),
    ],
    [
      'query: two prefetches with different filters fused by dbsf',
      (t) =>
        rest(t).query(collection, {
          prefetch: [
            { query: queries[0], filter: filterA, limit: 25, params: { exact: true } },
            { query: queries[2], filter: filterC, limit: 25, params: { exact: true } },
          ],
          query: { fusion: 'dbsf' },
          limit: 12,
        }),
    ],
    [
      'query nearest rescoring a prefetch that holds every filtered point',
      (t) =>
        rest(t).query(collection, {
          prefetch: { query: queries[1], filter: filterC, limit: 600, params: { exact: true } },
          query: queries[2],
          limit: 10,
          with_payload: true,
        }),
    ],
    // A prefetch under a rescoring root keeps its limit per peer (as Qdrant's per-shard prefetches),
    // where one server keeps it over all its shards: with fewer candidates than points the two differ.
    [
      'recommend by positive and negative point ids (exact)',
      (t) =>
        result(t, 'POST', `/collections/${collection}/points/recommend`, {
          positive: [examples[0], examples[1]],
          negative: [examples[2]],
          limit: 10,
          params: { exact: true },
          with_payload: true,
        }),
    ],
    [
      'query recommend by point ids, best_score, with a filter',
      (t) =>
        rest(t).query(collection, {
          query: {
            recommend: { positive: [examples[3], examples[4]], negative: [examples[5]], strategy: 'best_score' },
          },
          filter: filterB,
          limit: 10,
          params: { exact: true },
        }),
    ],
    [
      'query discover by point ids',
      (t) =>
        rest(t).query(collection, {
          query: {
            discover: { target: examples[6], context: [{ positive: examples[7], negative: examples[8] }] },
          },
          limit: 10,
          params: { exact: true },
        }),
    ],
    [
      'query nearest with mmr (exact): candidates merged over the peers, picked at the coordinator',
      (t) =>
        rest(t).query(collection, {
          query: { nearest: queries[4], mmr: { diversity: 0.6, candidates_limit: 40 } },
          limit: 8,
          params: { exact: true },
          with_payload: ['color'],
        }),
    ],
    [
      'query nearest with mmr, a filter, offset 2 and vectors (exact)',
      (t) =>
        rest(t).query(collection, {
          query: { nearest: queries[0], mmr: { diversity: 0.3 } },
          filter: filterA,
          limit: 6,
          offset: 2,
          params: { exact: true },
          with_vector: true,
        }),
    ],
    [
      'query groups by color with an mmr root (exact)',
      (t) =>
        rest(t).queryGroups(collection, {
          query: { nearest: queries[1], mmr: { diversity: 0.5, candidates_limit: 30 } },
          group_by: 'color',
          limit: 2,
          group_size: 3,
          params: { exact: true },
        }),
    ],
    // A sample at least as large as the matching points holds all of them, so the matrix is exact.
    [
      'search matrix pairs and offsets over a filter whose points all fit the sample',
      async (t) => [
        await result(t, 'POST', `/collections/${collection}/points/search/matrix/pairs`, {
          filter: { must: [colorIs('yellow'), nRange({ lt: 120 })] },
          sample: 200,
          limit: 3,
        }),
        await result(t, 'POST', `/collections/${collection}/points/search/matrix/offsets`, {
          filter: { must: [colorIs('green'), nRange({ gte: 200 })] },
          sample: 200,
          limit: 2,
        }),
      ],
    ],
    [
      'query groups by color (exact), with a payload selector',
      (t) =>
        rest(t).queryGroups(collection, {
          query: queries[3],
          group_by: 'color',
          limit: 3,
          group_size: 4,
          params: { exact: true },
          with_payload: ['n'],
        }),
    ],
    [
      'search groups by color with a filter (exact)',
      (t) =>
        result(t, 'POST', `/collections/${collection}/points/search/groups`, {
          vector: queries[4],
          filter: { must: [nRange({ gte: 100 })] },
          group_by: 'color',
          limit: 2,
          group_size: 3,
          params: { exact: true },
        }),
    ],
  ];

  async function scrollAll(target: RunningServer, request: Record<string, unknown>) {
    const pages: unknown[] = [];
    let offset: Id | undefined;
    for (let page = 0; page < 40; page++) {
      const answer = await result(target, 'POST', `/collections/${collection}/points/scroll`, { ...request, offset });
      pages.push(answer);
      if (answer.next_page_offset === null || answer.next_page_offset === undefined) return pages;
      offset = answer.next_page_offset;
    }
    throw new Error(`scroll on ${names.get(target)} did not end within 40 pages`);
  }

  describe('reads through every peer equal the standalone (after the upserts)', () => {
    for (const [peerIndex, peerName] of ['A', 'B', 'C'].entries()) {
      for (const [name, read] of reads) {
        it(`peer ${peerName}: ${name}`, async () => {
          await expectSameAsStandalone(peers[peerIndex].server, read);
        });
      }
    }
  });

  it('should answer a search and a fused query through the official gRPC client on C as the standalone', async () => {
    const client = new GrpcClient({
      host: '127.0.0.1',
      port: C().grpcPort,
      https: false,
      apiKey: C().apiKey,
      checkCompatibility: false,
      timeout: 20_000,
    });
    type GrpcId = { pointIdOptions: { case?: string; value?: unknown } } | undefined;
    const idOf = (id: GrpcId) =>
      id?.pointIdOptions.case === 'num' ? Number(id.pointIdOptions.value) : String(id?.pointIdOptions.value);
    const keyword = (key: string, value: string) => ({
      conditionOneOf: {
        case: 'field' as const,
        value: { key, match: { matchValue: { case: 'keyword' as const, value } } },
      },
    });
    const dense = (data: number[]) => ({
      variant: { case: 'nearest' as const, value: { variant: { case: 'dense' as const, value: { data } } } },
    });

    const searched = await client.api('points').search({
      collectionName: collection,
      vector: queries[0],
      filter: { must: [keyword('color', 'green')] },
      limit: 10n,
      offset: 2n,
      params: { exact: true },
    });
    const expectedSearch = await result(standalone, 'POST', `/collections/${collection}/points/search`, {
      vector: queries[0],
      filter: { must: [colorIs('green')] },
      limit: 10,
      offset: 2,
      params: { exact: true },
    });
    expect(expectedSearch).toHaveLength(10);
    expect(
      differences(
        searched.result.map((p) => ({ id: idOf(p.id), score: p.score })),
        expectedSearch.map((p: Json) => ({ id: p.id, score: p.score })),
      ),
    ).toEqual([]);

    const queried = await client.api('points').query({
      collectionName: collection,
      prefetch: [
        { query: dense(queries[1]), filter: { must: [keyword('color', 'red')] }, limit: 20n, params: { exact: true } },
        { query: dense(queries[2]), limit: 20n, params: { exact: true } },
      ],
      query: { variant: { case: 'fusion', value: grpcModule.Fusion.RRF } },
      limit: 10n,
    });
    const expectedQuery = await rest(standalone).query(collection, {
      prefetch: [
        { query: queries[1], filter: { must: [colorIs('red')] }, limit: 20, params: { exact: true } },
        { query: queries[2], limit: 20, params: { exact: true } },
      ],
      query: { fusion: 'rrf' },
      limit: 10,
    });
    expect(expectedQuery.points).toHaveLength(10);
    expect(
      differences(
        queried.result.map((p) => ({ id: idOf(p.id), score: p.score })),
        expectedQuery.points.map((p) => ({ id: p.id, score: p.score })),
      ),
    ).toEqual([]);
  });

  it('should sample a search matrix from every peer: distinct matching points, exact neighbour scores, over REST and gRPC', async () => {
    const byId = new Map(points.map((p) => [String(p.id), p]));
    const cosine = (a: number[], b: number[]) => {
      let dot = 0;
      let na = 0;
      let nb = 0;
      for (let i = 0; i < a.length; i++) {
        dot += a[i] * b[i];
        na += a[i] * a[i];
        nb += b[i] * b[i];
      }
      return dot / Math.sqrt(na * nb);
    };
    const shardsSeen = new Set<number>();
    for (const peer of peers) {
      const matrix = await result(peer.server, 'POST', `/collections/${collection}/points/search/matrix/offsets`, {
        filter: { must_not: [colorIs('red')] },
        sample: 40,
        limit: 4,
      });
      const ids: Id[] = matrix.ids;
      expect(ids).toHaveLength(40);
      expect(new Set(ids.map(String)).size).toBe(40);
      for (const id of ids) {
        expect(byId.get(String(id))?.payload.color).not.toBe('red');
        shardsSeen.add(ringShard(typeof id === 'number' ? BigInt(id) : id, [0, 1, 2]));
      }
      // Every row keeps its 4 best among the sample, best first, with the exact cosine score.
      const rows = new Map<number, Array<[number, number]>>();
      matrix.offsets_row.forEach((row: number, i: number) => {
        rows.set(row, [...(rows.get(row) ?? []), [matrix.offsets_col[i], matrix.scores[i]]]);
      });
      expect(rows.size).toBe(40);
      for (const [row, cells] of rows) {
        const vector = byId.get(String(ids[row]))!.vector;
        const best = ids
          .map((id, col) => [col, cosine(vector, byId.get(String(id))!.vector)] as [number, number])
          .filter(([col]) => col !== row)
          .sort((a, b) => b[1] - a[1])
          .slice(0, 4);
        expect(cells.map(([, score]) => score)).toEqual(best.map(([, score]) => expect.closeTo(score, 4)));
      }
    }
    // Samples of 40 out of ~480 points spread over 3 shards reach every shard.
    expect([...shardsSeen].sort()).toEqual([0, 1, 2]);

    const client = new GrpcClient({
      host: '127.0.0.1',
      port: B().grpcPort,
      https: false,
      apiKey: B().apiKey,
      checkCompatibility: false,
      timeout: 20_000,
    });
    const pairs = await client.api('points').searchMatrixPairs({
      collectionName: collection,
      sample: 30n,
      limit: 2n,
    });
    type GrpcId = { pointIdOptions: { case?: string; value?: unknown } } | undefined;
    const idOf = (id: GrpcId) => String(id?.pointIdOptions.value);
    expect(pairs.result!.pairs).toHaveLength(60);
    expect(new Set(pairs.result!.pairs.map((pair) => idOf(pair.a))).size).toBe(30);
    for (const pair of pairs.result!.pairs) {
      expect(idOf(pair.a)).not.toBe(idOf(pair.b));
      const expected = cosine(byId.get(idOf(pair.a))!.vector, byId.get(idOf(pair.b))!.vector);
      expect(pair.score).toBeCloseTo(expected, 4);
    }
  });

  it('should apply writes through any peer: deletes on B, set_payload by filter on C, upserts on A, delete by filter', async () => {
    /** The same write on the standalone, then on a peer; both must succeed. */
    const both = async (peer: RunningServer, write: (target: RunningServer) => Promise<unknown>) => {
      await named(standalone, write);
      await named(peer, write);
    };
    // Deletes by id through B (numeric ids and UUIDs, spread over all shards).
    const deleted = points.filter((_, i) => deletedByIdIndex(i)).map((p) => p.id);
    await both(B(), (t) => rest(t).delete(collection, { wait: true, points: deleted }));
    // set_payload by filter through C: changes an indexed field (n) too.
    await both(C(), (t) =>
      rest(t).setPayload(collection, {
        wait: true,
        payload: { n: 777, flag: 'set-on-c' },
        filter: { must: [colorIs('green'), nRange({ lt: 60 })] },
      }),
    );
    // Upserts through A: new vectors and payloads for existing points, and new points (both id kinds).
    const rewritten = points.filter((_, i) => i % 20 === 3 && !deletedByIdIndex(i)).map((p) => randomPoint(p.id));
    const added = Array.from({ length: 30 }, (_, i) => randomPoint(freshId(i % 5 === 0)));
    await both(A(), (t) => rest(t).upsert(collection, { wait: true, points: [...rewritten, ...added] }));
    // Overwrite the payload of some points through A (a sixth colour).
    const overwritten = points.filter((_, i) => i % 25 === 11 && !deletedByIdIndex(i)).map((p) => p.id);
    await both(A(), (t) =>
      rest(t).overwritePayload(collection, { wait: true, points: overwritten, payload: { color: 'purple', n: 5 } }),
    );
    // Delete a payload key through C, and update vectors through B.
    const untagged = points.filter((_, i) => i % 30 === 13 && !deletedByIdIndex(i)).map((p) => p.id);
    await both(C(), (t) => rest(t).deletePayload(collection, { wait: true, points: untagged, keys: ['tags'] }));
    const revectored = points
      .filter((_, i) => i % 40 === 17 && !deletedByIdIndex(i))
      .map((p) => ({ id: p.id, vector: randomVector() }));
    await both(B(), (t) => rest(t).updateVectors(collection, { wait: true, points: revectored }));
    // Delete by filter through B.
    await both(B(), (t) =>
      rest(t).delete(collection, { wait: true, filter: { must: [colorIs('blue'), nRange({ gte: 150 })] } }),
    );

    const expected = (await rest(standalone).count(collection, { exact: true })).count;
    expect(expected).toBeLessThan(POINTS);
    for (const peer of peers) expect((await rest(peer.server).count(collection, { exact: true })).count).toBe(expected);
    // Each shard's own count adds up to the standalone's.
    expect(Object.values(await shardCounts()).reduce((a, b) => a + b, 0)).toBe(expected);
  }, 60_000);

  it('should show the same collection info on every peer after the writes', async () => {
    await expectSameInfo();
  });

  describe('reads through every peer equal the standalone (after the writes)', () => {
    for (const [peerIndex, peerName] of ['A', 'B', 'C'].entries()) {
      for (const [name, read] of reads) {
        it(`peer ${peerName}: ${name}`, async () => {
          await expectSameAsStandalone(peers[peerIndex].server, read);
        });
      }
    }
  });

  describe('custom sharding with keys placed on chosen peers', () => {
    const keyed = `keyed-${randomBytes(4).toString('hex')}`;
    const inA = Array.from({ length: 40 }, () => randomPoint(freshId(false)));
    const inB = Array.from({ length: 30 }, (_, i) => randomPoint(freshId(i % 6 === 0)));
    // A point written under both keys is left out: a standalone server keeps both copies in one answer,
    // the cluster merges answers by id (as Qdrant's collection-level merge does); see docs/cluster.md.
    const inBoth: Point[] = [];

    it('should create two shard keys on A and on B, and take upserts through peers that do not hold them', async () => {
      const config = { vectors: { size: DIM, distance: 'Cosine' as const }, sharding_method: 'custom' as const };
      await rest(B()).createCollection(keyed, config);
      await rest(standalone).createCollection(keyed, config);
      const [idA, idB] = [await peerId(A()), await peerId(B())];
      await eventually(2000, async () => expect((await rest(A()).collectionExists(keyed)).exists).toBe(true));
      await result(A(), 'PUT', `/collections/${keyed}/shards`, `{"shard_key":"ka","placement":[${idA}]}`);
      await eventually(2000, async () => expect((await rest(C()).collectionExists(keyed)).exists).toBe(true));
      await result(C(), 'PUT', `/collections/${keyed}/shards`, `{"shard_key":"kb","placement":[${idB}]}`);
      for (const key of ['ka', 'kb'])
        await result(standalone, 'PUT', `/collections/${keyed}/shards`, { shard_key: key });

      await eventually(2000, async () => {
        const keysOf = (shards: Json[]) => [...new Set(shards.map((s) => s.shard_key))].sort();
        const onA = await result(A(), 'GET', `/collections/${keyed}/cluster`);
        const onB = await result(B(), 'GET', `/collections/${keyed}/cluster`);
        const onC = await result(C(), 'GET', `/collections/${keyed}/cluster`);
        expect(keysOf(onA.local_shards)).toEqual(['ka']);
        expect(keysOf(onB.local_shards)).toEqual(['kb']);
        expect(onC.local_shards).toEqual([]);
        expect(keysOf(onC.remote_shards)).toEqual(['ka', 'kb']);
      });

      // ka lives on A: written through C. kb lives on B: written through A. Both keys at once through C.
      const writes: Array<[RunningServer, Point[], string | string[]]> = [
        [C(), inA, 'ka'],
        [A(), inB, 'kb'],
      ];
      // The standalone takes every batch first, so that its baseline is whole whatever the peers answer.
      const write = async (target: RunningServer, batch: Point[], shardKey: string | string[]) =>
        (await result(target, 'PUT', `/collections/${keyed}/points?wait=true`, { points: batch, shard_key: shardKey }))
          .status;
      for (const [, batch, shardKey] of writes) expect(await write(standalone, batch, shardKey)).toBe('completed');
      const failures: string[] = [];
      for (const [server, batch, shardKey] of writes) {
        await write(server, batch, shardKey).then(
          (status) => status === 'completed' || failures.push(`${names.get(server)}: ${status}`),
          (error: Error) => failures.push(error.message),
        );
      }
      expect(failures).toEqual([]);
    }, 30_000);

    const keyedReads: Array<[string, (target: RunningServer) => Promise<unknown>]> = [
      [
        'counts per shard key and overall',
        async (t) =>
          Promise.all(
            [{ shard_key: 'ka' }, { shard_key: 'kb' }, {}].map(
              async (selector) => (await rest(t).count(keyed, { exact: true, ...selector })).count,
            ),
          ),
      ],
      [
        'scroll with the ka selector',
        (t) => rest(t).scroll(keyed, { shard_key: 'ka', limit: 100, with_payload: true, with_vector: true }),
      ],
      ['scroll without a selector', (t) => rest(t).scroll(keyed, { limit: 100 })],
      [
        'query nearest with the kb selector',
        (t) => rest(t).query(keyed, { shard_key: 'kb', query: queries[0], limit: 10, params: { exact: true } }),
      ],
      [
        'query nearest and count with both keys selected (held by two peers)',
        async (t) => [
          await rest(t).query(keyed, {
            shard_key: ['ka', 'kb'],
            query: queries[1],
            limit: 10,
            params: { exact: true },
            with_payload: true,
          }),
          (await rest(t).count(keyed, { shard_key: ['ka', 'kb'], exact: true })).count,
        ],
      ],
      [
        'query nearest without a selector',
        (t) => rest(t).query(keyed, { query: queries[2], limit: 10, params: { exact: true } }),
      ],
      [
        'get ids from both keys with the ka selector',
        (t) =>
          rest(t).retrieve(keyed, {
            shard_key: 'ka',
            ids: [inA[0].id, inB[0].id, inA[5].id, inB[1].id],
            with_payload: true,
          }),
      ],
    ];

    for (const [peerIndex, peerName] of ['A', 'B', 'C'].entries()) {
      for (const [name, read] of keyedReads) {
        it(`peer ${peerName}: ${name} equal the standalone`, async () => {
          await expectSameAsStandalone(peers[peerIndex].server, read);
        });
      }
    }

    it('should keep each key to its own points on every peer', async () => {
      for (const peer of peers) {
        const ka = await rest(peer.server).scroll(keyed, { shard_key: 'ka', limit: 100 });
        expect(ka.points.map((p) => p.id).sort()).toEqual([...inA, ...inBoth].map((p) => p.id).sort());
        const kb = await rest(peer.server).count(keyed, { shard_key: 'kb', exact: true });
        expect(kb.count).toBe(inB.length + inBoth.length);
      }
    });
  });

  // Last: it cuts a peer from etcd.
  it('should refuse point writes on a peer cut from etcd within the lease TTL, keep reads elsewhere, and take writes after', async () => {
    const cut = peers[2];
    const probe = (id: number) => ({ id, vector: queries[id % 4], payload: { color: 'red', n: 1, tags: [] } });
    const upsert = (server: RunningServer, id: number) =>
      http(server, 'PUT', `/collections/${collection}/points?wait=true`, { points: [probe(id)] });

    // What the cluster answers before the cut: reads during the cut must give the same.
    const yellow = (t: RunningServer) =>
      result(t, 'POST', `/collections/${collection}/points/search`, {
        vector: queries[0],
        filter: filterC,
        limit: 10,
        params: { exact: true },
        with_payload: true,
      });
    const countOf = async (t: RunningServer) => (await rest(t).count(collection, { exact: true })).count;
    const countBefore = await countOf(A());
    const yellowBefore = await yellow(A());
    expect(yellowBefore).toHaveLength(10);
    let accepted = 0;

    cut.proxy.blackhole();
    try {
      const cutAt = Date.now();
      // A probe write may still succeed before the peer fences itself: it is mirrored on the standalone.
      const refused = await eventually(
        LEASE_TTL_S * 1000 + 1000,
        async () => {
          const answer = await upsert(cut.server, 3_000_001);
          if (answer.status === 200) {
            accepted = 1;
            await upsert(standalone, 3_000_001);
          }
          expect(answer.status).toBe(503);
          return answer;
        },
        100,
      );
      expect(Date.now() - cutAt).toBeLessThanOrEqual(LEASE_TTL_S * 1000 + 1000);
      expect(refused.body?.status.error).toMatch(/lease expired/);

      // The official gRPC client sees UNAVAILABLE.
      const grpcClient = new GrpcClient({
        host: '127.0.0.1',
        port: cut.server.grpcPort,
        https: false,
        apiKey: cut.server.apiKey,
        checkCompatibility: false,
        timeout: 10_000,
      });
      const grpcError = await grpcClient
        .api('points')
        .upsert({
          collectionName: collection,
          wait: true,
          points: [
            {
              id: { pointIdOptions: { case: 'num', value: 3_000_002n } },
              vectors: { vectorsOptions: { case: 'vector', value: { data: queries[0] } } },
            },
          ],
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(grpcError).toBeInstanceOf(grpcModule.ConnectError);
      expect((grpcError as InstanceType<typeof grpcModule.ConnectError>).code).toBe(
        grpcModule.ConnectErrorCode.Unavailable,
      );

      // The other peers (and the cut one) keep answering reads, over every shard.
      for (const server of [A(), B(), cut.server]) {
        expect(await named(server, countOf)).toBe(countBefore + accepted);
        expect(differences(await named(server, yellow), yellowBefore)).toEqual([]);
      }
    } finally {
      cut.proxy.pass();
    }

    // Reconnected: it registers again and takes writes.
    await eventually(
      20_000,
      async () => {
        const answer = await upsert(cut.server, 3_000_003);
        expect(answer.status).toBe(200);
      },
      250,
    );
    await upsert(standalone, 3_000_003);
    for (const server of [A(), B(), C()]) {
      await expectSameAsStandalone(server, (t) =>
        rest(t).retrieve(collection, { ids: [3_000_001, 3_000_002, 3_000_003], with_payload: true, with_vector: true }),
      );
      expect(await countOf(server)).toBe(countBefore + accepted + 1);
    }
  }, 60_000);
});
