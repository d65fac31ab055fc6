// Cluster mode: MMR at the root and the search matrix over two peers answer as a standalone server
// holding the same points does, in the spaces where scoring has its own rules: sparse vectors with
// IDF (each neighbour scored by its shard's statistics), Euclid and Manhattan (lower is better),
// uint8 and float16 storage, multivectors (MaxSim), on-disk vectors with quantization, and custom shard
// keys. Every matrix sample holds all matching points, so the matrix is exact and comparable.
import { randomBytes } from 'node:crypto';
import { etcdOrSkip, RunningEtcd, startEtcd } from './support/etcd-harness';
import { RunningServer, startServer } from './support/server-harness';
import { TcpProxy } from './support/tcp-proxy';
import { clusterSecrets, eventually, startClusterPeer } from './support/cluster-harness';

const etcdBin = etcdOrSkip();
const describeWithEtcd = etcdBin ? describe : describe.skip;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies of several shapes
type Json = any;

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
const random = prng(77);
const dense = (dim: number) => Array.from({ length: dim }, () => Math.round((random() * 2 - 1) * 1000) / 1000);
const sparse = () => {
  const indices = [...new Set(Array.from({ length: 4 }, () => Math.floor(random() * 12)))].sort((a, b) => a - b);
  return { indices, values: indices.map(() => Math.round(random() * 1000) / 1000 + 0.01) };
};

/** Differences between an answer and the standalone's (at most 8): scores within 1e-4, the rest exact. */
function differences(actual: unknown, expected: unknown, path = '$', out: string[] = []): string[] {
  if (out.length >= 8) return out;
  const show = (v: unknown) => JSON.stringify(v)?.slice(0, 200);
  if (typeof expected === 'number' && typeof actual === 'number') {
    const tolerance = path.endsWith('score') || path.includes('scores') ? 1e-4 : 0;
    if (!(Math.abs(actual - expected) <= tolerance)) out.push(`${path}: ${actual} instead of ${expected}`);
    return out;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) {
      out.push(`${path}: ${show(actual)} instead of ${show(expected)}`);
      return out;
    }
    expected.forEach((item, i) => differences(actual[i], item, `${path}[${i}]`, out));
    return out;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') {
      out.push(`${path}: ${show(actual)} instead of ${show(expected)}`);
      return out;
    }
    const a = actual as Record<string, unknown>;
    const e = expected as Record<string, unknown>;
    // `version` numbers operations per shard, `time` is the server's own.
    const keys = new Set([...Object.keys(a), ...Object.keys(e)].filter((k) => k !== 'version' && k !== 'time'));
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

describeWithEtcd('cluster mode: MMR and the search matrix across 2 peers equal a standalone (e2e)', () => {
  let etcd: RunningEtcd;
  let standalone: RunningServer;
  const peers: Array<{ server: RunningServer; proxy: TcpProxy }> = [];
  const tag = randomBytes(3).toString('hex');

  async function http(server: RunningServer, method: string, route: string, body?: unknown) {
    const response = await fetch(`${server.httpUrl}${route}`, {
      method,
      headers: { 'api-key': server.apiKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Json) : undefined };
  }

  /** The request on the standalone, then through each peer: every answer must equal the standalone's. */
  async function expectSame(route: string, body: unknown): Promise<Json> {
    const expected = await http(standalone, 'POST', route, body);
    expect(expected.status).toBe(200);
    for (const [i, peer] of peers.entries()) {
      const actual = await http(peer.server, 'POST', route, body);
      expect({ peer: i, differences: differences(actual, expected) }).toEqual({ peer: i, differences: [] });
    }
    return expected.body.result;
  }

  /** The same collection and points on the standalone and (through peer 0) on the cluster. */
  async function create(name: string, config: unknown, points: unknown[]): Promise<void> {
    for (const server of [standalone, peers[0].server])
      expect((await http(server, 'PUT', `/collections/${name}`, config)).status).toBe(200);
    await eventually(3000, async () => {
      expect((await http(peers[1].server, 'GET', `/collections/${name}`)).status).toBe(200);
    });
    for (const server of [standalone, peers[0].server]) {
      const answer = await http(server, 'PUT', `/collections/${name}/points?wait=true`, { points });
      expect(answer.status).toBe(200);
    }
  }

  beforeAll(async () => {
    const secrets = clusterSecrets();
    [etcd, standalone] = await Promise.all([startEtcd(etcdBin!), startServer()]);
    for (let i = 0; i < 2; i++)
      peers.push(await startClusterPeer(etcd, secrets, { leaseTtlS: 2, etcdTimeoutMs: 1500 }));
    await eventually(15_000, async () => {
      for (const peer of peers)
        expect(Object.keys((await http(peer.server, 'GET', '/cluster')).body?.result.peers ?? {})).toHaveLength(2);
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

  it('should score sparse vectors with IDF by the shard holding each point, and pick MMR without IDF, as one server', async () => {
    // One shard (on one of the peers): its IDF statistics are the standalone's.
    const name = `idf-${tag}`;
    await create(
      name,
      { vectors: {}, sparse_vectors: { s: { modifier: 'idf' } }, shard_number: 1 },
      Array.from({ length: 60 }, (_, i) => ({ id: i + 1, vector: { s: sparse() }, payload: { g: i % 3 } })),
    );
    const pairs = await expectSame(`/collections/${name}/points/search/matrix/pairs`, {
      using: 's',
      sample: 100,
      limit: 3,
      filter: { must: [{ key: 'g', match: { value: 0 } }] },
    });
    expect(pairs.pairs.length).toBeGreaterThan(30);
    await expectSame(`/collections/${name}/points/query`, {
      query: {
        nearest: { indices: [1, 2, 6], values: [0.3, 0.9, 0.4] },
        mmr: { diversity: 0.7, candidates_limit: 12 },
      },
      using: 's',
      limit: 6,
    });
  });

  it('should answer Euclid, Manhattan, uint8 and float16 spaces as one server', async () => {
    const name = `dense-${tag}`;
    await create(
      name,
      {
        vectors: {
          e: { size: 6, distance: 'Euclid' },
          m: { size: 6, distance: 'Manhattan', datatype: 'float16' },
          u: { size: 6, distance: 'Cosine', datatype: 'uint8' },
        },
        shard_number: 2,
      },
      Array.from({ length: 80 }, (_, i) => ({
        id: i + 1,
        vector: { e: dense(6), m: dense(6), u: dense(6).map((x) => Math.round((x + 1) * 100)) },
      })),
    );
    for (const using of ['e', 'm', 'u']) {
      await expectSame(`/collections/${name}/points/search/matrix/offsets`, { using, sample: 100, limit: 4 });
      const query = using === 'u' ? dense(6).map((x) => Math.round((x + 1) * 100)) : dense(6);
      const picked = await expectSame(`/collections/${name}/points/query`, {
        query: { nearest: query, mmr: { diversity: 0.5, candidates_limit: 30 } },
        using,
        limit: 7,
        offset: 1,
        params: { exact: true },
        with_vector: [using],
      });
      expect(picked.points).toHaveLength(7);
    }
  });

  it('should answer multivectors (MaxSim) and on-disk quantized vectors as one server, also under custom shard keys', async () => {
    const name = `multi-${tag}`;
    await create(
      name,
      {
        vectors: {
          mv: { size: 4, distance: 'Dot', multivector_config: { comparator: 'max_sim' } },
          od: { size: 8, distance: 'Cosine', on_disk: true },
        },
        quantization_config: { scalar: { type: 'int8', always_ram: true } },
        shard_number: 2,
      },
      Array.from({ length: 50 }, (_, i) => ({
        id: i + 1,
        vector: { mv: [dense(4), dense(4), dense(4)], od: dense(8) },
      })),
    );
    await expectSame(`/collections/${name}/points/search/matrix/pairs`, { using: 'mv', sample: 100, limit: 2 });
    await expectSame(`/collections/${name}/points/query`, {
      query: { nearest: [dense(4), dense(4)], mmr: { diversity: 0.6, candidates_limit: 20 } },
      using: 'mv',
      limit: 5,
      params: { exact: true },
    });
    await expectSame(`/collections/${name}/points/search/matrix/offsets`, { using: 'od', sample: 100, limit: 3 });
    await expectSame(`/collections/${name}/points/query`, {
      query: { nearest: dense(8), mmr: { diversity: 0.4, candidates_limit: 25 } },
      using: 'od',
      limit: 6,
      params: { exact: true },
    });

    const keyed = `keys-${tag}`;
    for (const server of [standalone, peers[0].server]) {
      const created = await http(server, 'PUT', `/collections/${keyed}`, {
        vectors: { size: 4, distance: 'Dot' },
        sharding_method: 'custom',
      });
      expect(created.status).toBe(200);
      for (const key of ['k1', 'k2'])
        expect((await http(server, 'PUT', `/collections/${keyed}/shards`, { shard_key: key })).status).toBe(200);
    }
    await eventually(3000, async () => {
      expect((await http(peers[1].server, 'GET', `/collections/${keyed}`)).status).toBe(200);
    });
    for (const key of ['k1', 'k2']) {
      const points = Array.from({ length: 30 }, (_, i) => ({ id: (key === 'k1' ? 0 : 100) + i + 1, vector: dense(4) }));
      for (const server of [standalone, peers[0].server])
        expect(
          (await http(server, 'PUT', `/collections/${keyed}/points?wait=true`, { points, shard_key: key })).status,
        ).toBe(200);
    }
    const k2 = await expectSame(`/collections/${keyed}/points/search/matrix/pairs`, {
      sample: 100,
      limit: 2,
      shard_key: 'k2',
    });
    expect(k2.pairs.every((pair: Json) => pair.a > 100 && pair.b > 100)).toBe(true);
    await expectSame(`/collections/${keyed}/points/query`, {
      query: { nearest: dense(4), mmr: { diversity: 0.6, candidates_limit: 25 } },
      limit: 6,
      shard_key: 'k1',
    });
  });

  it('should take a read consistency on the matrix (with one replica per shard, `all` is met)', async () => {
    const name = `dense-${tag}`;
    await expectSame(`/collections/${name}/points/search/matrix/pairs?consistency=all`, {
      using: 'e',
      sample: 100,
      limit: 1,
    });
  });
});
