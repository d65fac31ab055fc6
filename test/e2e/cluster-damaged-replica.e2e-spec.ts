// Issue 28, item 3, in cluster mode: a replica whose files are damaged beyond a rebuild from its own write-ahead
// log (a flipped byte in an on-disk vector file, the log no longer reaching back to op 1) is set aside when its
// peer starts, marked Dead, and copied again from an Active replica by the leader's healer, while the collection
// keeps serving exact data from every peer. Three server processes and one etcd on loopback, as in
// cluster-replication.e2e-spec.ts.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Rng } from '../support/seeded-random';
import { eventually, clusterSecrets, startClusterPeer } from './support/cluster-harness';
import { filesUnder } from './support/data-files';
import { etcdOrSkip, RunningEtcd, startEtcd } from './support/etcd-harness';
import { RunningServer } from './support/server-harness';
import { TcpProxy } from './support/tcp-proxy';

const etcdBin = etcdOrSkip();
const describeWithEtcd = etcdBin ? describe : describe.skip;

jest.setTimeout(240_000);

interface Peer {
  server: RunningServer;
  proxy: TcpProxy;
  id: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies of several shapes
type Json = Record<string, any>;

/** A stack frame, printed or inside a JSON log line. */
const STACK_TRACE = /(\n|\\n)\s+at /;

describeWithEtcd('cluster: a damaged replica is marked Dead and copied again (e2e, 3 peers + etcd)', () => {
  const DIM = 128;
  const POINTS = 5000;
  const collection = `damaged-${randomBytes(3).toString('hex')}`;
  const shared = clusterSecrets();
  let etcd: RunningEtcd;
  const peers: Peer[] = [];

  const vectorOf = (id: number) => new Rng(id * 7919 + 17).vector(DIM).map((x) => Math.fround(x));

  async function http(peer: Peer, method: string, route: string, body?: unknown) {
    const response = await fetch(`${peer.server.httpUrl}${route}`, {
      method,
      headers: { 'api-key': peer.server.apiKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    // Peer ids are u64: keep big integers exact as strings.
    const exact = text.replace(/([:[,]\s*)(\d{16,})(?=\s*[,}\]])/g, '$1"$2"');
    return { status: response.status, body: (exact ? JSON.parse(exact) : undefined) as Json | undefined };
  }

  async function ok(peer: Peer, method: string, route: string, body?: unknown): Promise<Json> {
    const answer = await http(peer, method, route, body);
    if (answer.status !== 200) throw new Error(`${method} ${route}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body?.result as Json;
  }

  async function upsert(peer: Peer, ids: number[]): Promise<void> {
    await ok(peer, 'PUT', `/collections/${collection}/points?wait=true`, {
      points: ids.map((id) => ({ id, vector: vectorOf(id), payload: { id } })),
    });
  }

  /** Every point of `ids`, read through `peer`, has exactly the vector and payload written. */
  async function expectExact(peer: Peer, ids: number[]): Promise<void> {
    const points = (await ok(peer, 'POST', `/collections/${collection}/points`, {
      ids,
      with_vector: true,
      with_payload: true,
    })) as unknown as Array<{ id: number; vector: number[]; payload: { id: number } }>;
    expect(points.map((p) => p.id).sort((a, b) => a - b)).toEqual([...ids].sort((a, b) => a - b));
    for (const point of points) {
      expect(point.payload.id).toBe(point.id);
      expect(point.vector.map((x) => Math.fround(x))).toEqual(vectorOf(point.id));
    }
  }

  /** The state of `peer`'s own replica of shard 0, as its cluster info gives it. */
  async function stateOn(peer: Peer): Promise<string | undefined> {
    const info = await ok(peer, 'GET', `/collections/${collection}/cluster`);
    const all = [
      ...(info.local_shards as Json[]).map((s) => ({ peer: String(info.peer_id), state: s.state as string })),
      ...(info.remote_shards as Json[]).map((s) => ({ peer: String(s.peer_id), state: s.state as string })),
    ];
    return all.find((r) => r.peer === peer.id)?.state;
  }

  /** The shard folder of the only collection on `peer`. */
  async function shardDir(peer: Peer): Promise<string> {
    const root = path.join(peer.server.dataDir, 'collections');
    const folders = await fs.readdir(root);
    expect(folders).toHaveLength(1);
    return path.join(root, folders[0], 'shards', '0');
  }

  beforeAll(async () => {
    etcd = await startEtcd(etcdBin!);
    for (let i = 0; i < 3; i++) {
      const { server, proxy } = await startClusterPeer(
        etcd,
        shared,
        { leaseTtlS: 2, etcdTimeoutMs: 1500 },
        // The peer is restarted at once: what marks its replica Dead must be the damage, not its absence.
        { VECTORSTORE_DEAD_GRACE: '600', ...(process.env.DAMAGED_TEST_DEBUG ? { VECTORSTORE_LOG_LEVEL: 'info' } : {}) },
      );
      peers.push({ server, proxy, id: '' });
    }
    await eventually(15_000, async () => {
      for (const peer of peers) expect(Object.keys((await ok(peer, 'GET', '/cluster')).peers as Json)).toHaveLength(3);
    });
    for (const peer of peers) peer.id = String((await ok(peer, 'GET', '/cluster')).peer_id);
  }, 120_000);

  afterAll(async () => {
    // DAMAGED_TEST_DEBUG=1 keeps each peer's log in the temporary folder.
    if (process.env.DAMAGED_TEST_DEBUG)
      for (const [i, peer] of peers.entries()) await fs.writeFile(`/tmp/damaged-peer-${i}.log`, peer.server.output());
    for (const peer of peers) {
      await peer.server.stop();
      await peer.proxy.close();
    }
    await etcd?.stop();
  }, 60_000);

  const ids = Array.from({ length: POINTS }, (_, i) => i + 1);
  const sample = ids.filter((id) => id % 97 === 1);
  const lateIds = Array.from({ length: 50 }, (_, i) => POINTS + i + 1);

  it('should set the damaged replica aside at start, mark it Dead, copy it again and serve exact data', async () => {
    const [a, , c] = peers;
    await ok(a, 'PUT', `/collections/${collection}`, {
      vectors: { size: DIM, distance: 'Euclid', on_disk: true },
      on_disk_payload: true,
      shard_number: 1,
      replication_factor: 3,
      optimizers_config: { indexing_threshold: 100, default_segment_number: 2, flush_interval_sec: 1 },
      wal_config: { wal_capacity_mb: 1, wal_segments_ahead: 0 },
    });
    for (let i = 0; i < ids.length; i += 250) await upsert(a, ids.slice(i, i + 250));

    // On c: optimized into segments whose vectors are in .vec files, and a log that no longer starts at op 1.
    const dir = await shardDir(c);
    await eventually(
      120_000,
      async () => {
        const files = (await filesUnder(path.join(dir, 'segments'))).map((f) => path.basename(f));
        expect(files.some((name) => name.endsWith('.vec'))).toBe(true);
        const wal = (await fs.readdir(path.join(dir, 'wal'))).filter((n) => /^\d+\.wal$/.test(n));
        expect(Math.min(...wal.map((n) => Number(n.slice(0, -4))))).toBeGreaterThan(1);
      },
      500,
    );
    await c.server.stop();
    const vecFiles = (await filesUnder(path.join(dir, 'segments'))).filter((f) => f.endsWith('.vec'));
    const sizes = await Promise.all(vecFiles.map(async (f) => (await fs.stat(f)).size));
    const damaged = vecFiles[sizes.indexOf(Math.max(...sizes))];
    const bytes = await fs.readFile(damaged);
    bytes[4096] ^= 0xff;
    await fs.writeFile(damaged, bytes);

    const started = Date.now();
    c.server = await c.server.restart();
    // Marked Dead by c itself (the leader's grace for gone peers is 600 s; the healer's copy follows within a second,
    // quicker than a poll of the state could be sure to see Dead).
    await eventually(30_000, async () => expect(c.server.output()).toMatch(/marked Dead, to be copied again/), 100);
    const log = c.server.output();
    expect(log).toContain(path.basename(damaged));
    expect(log).toMatch(/is damaged: checksum mismatch/);
    expect(log).toMatch(/set aside until it is copied again/);
    expect(log).not.toMatch(STACK_TRACE);

    // Reads through c go on meanwhile (another replica answers) and writes are acknowledged.
    await expectExact(c, sample);
    await upsert(a, lateIds);

    await eventually(
      90_000,
      async () => {
        for (const peer of peers) expect(await stateOn(peer)).toBe('Active');
      },
      250,
    );
    const recoveredMs = Date.now() - started;
    console.log(`damaged replica Active again ${recoveredMs} ms after its peer's restart`);

    // c's own replica now answers (a coordinator reads its local replica first): every point exact, the late ones too.
    await expectExact(c, [...sample, ...lateIds]);
    const count = await ok(c, 'POST', `/collections/${collection}/points/count`, { exact: true });
    expect(count.count).toBe(POINTS + lateIds.length);
    // And the replicas agree.
    const checksums = await Promise.all(
      peers.map(async (peer) => {
        const info = await ok(peer, 'GET', `/collections/${collection}/cluster?checksum=true`);
        return JSON.stringify((info.local_shards as Json[])[0].checksum);
      }),
    );
    expect(new Set(checksums).size).toBe(1);
    // Nothing of the damaged file is left.
    const left = await fs.readFile(damaged).catch(() => undefined);
    expect(left === undefined || !left.equals(bytes)).toBe(true);
  });
});
