// Hedged reads (read_fan_out_factor, read_fan_out_delay_ms; docs/cluster.md, "Hedged reads"): three server
// processes and one etcd on loopback, as in cluster-replication.e2e-spec.ts. A collection with
// replication_factor 2 over 3 peers: the coordinator lacks one shard, whose two replicas are on the other peers.
// The replica it asks first is frozen with SIGSTOP (its calls hang rather than fail, and its lease outlives the
// freeze, so it stays live and Active): reads through the coordinator, REST and gRPC, answer within a bound with
// fan-out (factor 1, or a 50 ms delay), and hang without it until the peer is thawed.
import { randomBytes } from 'node:crypto';
import { etcdOrSkip, RunningEtcd, startEtcd } from './support/etcd-harness';
import { RunningServer } from './support/server-harness';
import { TcpProxy } from './support/tcp-proxy';
import { clusterSecrets, eventually, startClusterPeer } from './support/cluster-harness';

const grpcClientModule = require('@qdrant/js-client-grpc') as typeof import('@qdrant/js-client-grpc');
const GrpcClient = grpcClientModule.QdrantClient;

// Long enough that a peer frozen for a few seconds keeps its lease (and nobody marks anything Dead).
const LEASE_TTL_S = 10;
const ETCD_TIMEOUT_MS = 1500;
/** What a hedged read may take with one replica frozen (the read timeout of a peer call is 60 s). */
const BOUND_MS = 2000;
const etcdBin = etcdOrSkip();
const describeWithEtcd = etcdBin ? describe : describe.skip;

jest.setTimeout(60_000);

interface Peer {
  server: RunningServer;
  proxy: TcpProxy;
  /** Its peer id (u64, as text). */
  id: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies of several shapes
type Json = Record<string, any>;

const num = (value: number) => ({ pointIdOptions: { case: 'num' as const, value: BigInt(value) } });

describeWithEtcd('cluster hedged reads (e2e, 3 peers + etcd)', () => {
  let etcd: RunningEtcd;
  const peers: Peer[] = [];
  const shared = clusterSecrets();
  const name = `hedged-${randomBytes(3).toString('hex')}`;
  const points = Array.from({ length: 60 }, (_, i) => ({ id: i + 1, vector: [1, i / 60], payload: { i } }));
  const ids = points.map((p) => p.id);
  /** The peer currently SIGSTOPped, thawed whatever happens. */
  let frozen: Peer | undefined;

  async function http(peer: Peer, method: string, route: string, body?: unknown, timeoutMs = 15_000) {
    const response = await fetch(`${peer.server.httpUrl}${route}`, {
      method,
      headers: { 'api-key': peer.server.apiKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    // Peer ids are u64: keep big integers exact as strings.
    const exact = text.replace(/([:[,]\s*)(\d{16,})(?=\s*[,}\]])/g, '$1"$2"');
    return { status: response.status, body: exact ? (JSON.parse(exact) as Json) : undefined };
  }

  const grpcOf = (peer: Peer) =>
    new GrpcClient({
      host: '127.0.0.1',
      port: peer.server.grpcPort,
      https: false,
      apiKey: peer.server.apiKey,
      checkCompatibility: false,
    });

  function freeze(peer: Peer): void {
    frozen = peer;
    process.kill(peer.server.pid, 'SIGSTOP');
  }

  function thaw(): void {
    if (frozen) process.kill(frozen.server.pid, 'SIGCONT');
    frozen = undefined;
  }

  /** `run`'s result and how long it took (HEDGED_TEST_DEBUG=1 prints it). */
  async function timed<T>(run: () => Promise<T>): Promise<{ value: T; ms: number }> {
    const started = Date.now();
    const value = await run();
    const ms = Date.now() - started;
    if (process.env.HEDGED_TEST_DEBUG) console.log(`${expect.getState().currentTestName}: ${ms} ms`);
    return { value, ms };
  }

  const retrieve = (peer: Peer, timeoutMs?: number) =>
    http(peer, 'POST', `/collections/${name}/points`, { ids, with_payload: true }, timeoutMs);
  const search = (peer: Peer) =>
    http(peer, 'POST', `/collections/${name}/points/search`, { vector: [1, 1], limit: 5, with_payload: false });

  async function setFanOut(via: Peer, factor: number, delayMs: number): Promise<void> {
    const patched = await http(via, 'PATCH', `/collections/${name}`, {
      params: { read_fan_out_factor: factor, read_fan_out_delay_ms: delayMs },
    });
    expect({ status: patched.status, body: patched.body }).toMatchObject({ status: 200 });
    await eventually(2000, async () => {
      for (const peer of peers) {
        const { body } = await http(peer, 'GET', `/collections/${name}`);
        expect(body?.result.config.params).toMatchObject({
          read_fan_out_factor: factor,
          read_fan_out_delay_ms: delayMs,
        });
      }
    });
  }

  /** The coordinator, a shard it holds no replica of, and that shard's replica the coordinator asks first. */
  let coordinator: Peer;
  let victim: Peer;
  let bystander: Peer;
  let expectedHits: number[];

  beforeAll(async () => {
    etcd = await startEtcd(etcdBin!);
    for (let i = 0; i < 3; i++) {
      const { server, proxy } = await startClusterPeer(etcd, shared, {
        leaseTtlS: LEASE_TTL_S,
        etcdTimeoutMs: ETCD_TIMEOUT_MS,
      });
      peers.push({ server, proxy, id: '' });
    }
    await eventually(15_000, async () => {
      for (const peer of peers) {
        const { body } = await http(peer, 'GET', '/cluster');
        expect(Object.keys(body?.result.peers ?? {})).toHaveLength(3);
      }
    });
    for (const peer of peers) peer.id = String((await http(peer, 'GET', '/cluster')).body?.result.peer_id);
  }, 120_000);

  afterAll(async () => {
    thaw();
    for (const peer of peers) {
      await peer.server.stop();
      await peer.proxy.close();
    }
    await etcd?.stop();
  }, 60_000);

  it('should store read_fan_out_factor / read_fan_out_delay_ms and place rf 2 over 3 peers', async () => {
    const created = await http(peers[0], 'PUT', `/collections/${name}`, {
      vectors: { size: 2, distance: 'Dot' },
      shard_number: 3,
      replication_factor: 2,
      read_fan_out_factor: 1,
      read_fan_out_delay_ms: 50,
    });
    expect({ status: created.status, body: created.body }).toMatchObject({ status: 200 });
    await eventually(2000, async () => {
      for (const peer of peers) expect((await http(peer, 'GET', `/collections/${name}`)).status).toBe(200);
    });
    const upserted = await http(peers[0], 'PUT', `/collections/${name}/points?wait=true`, { points });
    expect({ status: upserted.status, body: upserted.body }).toMatchObject({ status: 200 });

    // Every peer holds 2 of the 3 shards. peers[0] coordinates; the shard it lacks is read from another peer,
    // first from its replicas' lowest id rotated by shard id (read-plan.ts), the victim.
    coordinator = peers[0];
    const { body } = await http(coordinator, 'GET', `/collections/${name}/cluster`);
    const info = body?.result;
    expect(info.local_shards).toHaveLength(2);
    const held = new Set(info.local_shards.map((s: Json) => s.shard_id));
    const missing = [0, 1, 2].find((shard) => !held.has(shard))!;
    const holders = (info.remote_shards as Json[])
      .filter((s) => s.shard_id === missing && s.state === 'Active')
      .map((s) => String(s.peer_id))
      .sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0));
    expect(holders).toHaveLength(2);
    victim = peers.find((peer) => peer.id === holders[missing % 2])!;
    bystander = peers.find((peer) => peer !== coordinator && peer !== victim)!;
    expect(victim).toBeDefined();

    const before = await search(coordinator);
    expect(before.status).toBe(200);
    expectedHits = before.body?.result.map((p: Json) => p.id);
    expect(expectedHits).toEqual([60, 59, 58, 57, 56]);
  });

  it('should answer reads through the coordinator within the bound while a replica’s peer is frozen (factor 1, delay 50 ms)', async () => {
    const grpc = grpcOf(coordinator);
    freeze(victim);
    try {
      const got = await timed(() => retrieve(coordinator, 10_000));
      expect({ status: got.value.status, fast: got.ms < BOUND_MS }).toEqual({ status: 200, fast: true });
      expect(got.value.body?.result.map((p: Json) => [p.id, p.payload.i])).toEqual(
        points.map((p) => [p.id, p.payload.i]),
      );

      const hits = await timed(() => search(coordinator));
      expect({ status: hits.value.status, fast: hits.ms < BOUND_MS }).toEqual({ status: 200, fast: true });
      expect(hits.value.body?.result.map((p: Json) => p.id)).toEqual(expectedHits);

      const counted = await timed(() =>
        http(coordinator, 'POST', `/collections/${name}/points/count`, { exact: true }),
      );
      expect({ count: counted.value.body?.result.count, fast: counted.ms < BOUND_MS }).toEqual({
        count: 60,
        fast: true,
      });

      const viaGrpc = await timed(() =>
        grpc.api('points').get({
          collectionName: name,
          ids: ids.map(num),
          withPayload: { selectorOptions: { case: 'enable', value: true } },
        }),
      );
      expect(viaGrpc.ms).toBeLessThan(BOUND_MS);
      expect(viaGrpc.value.result.map((p) => Number(p.id?.pointIdOptions.value))).toEqual(ids);

      const grpcHits = await timed(() =>
        grpc.api('points').search({ collectionName: name, vector: [1, 1], limit: 5n }),
      );
      expect(grpcHits.ms).toBeLessThan(BOUND_MS);
      expect(grpcHits.value.result.map((p) => Number(p.id?.pointIdOptions.value))).toEqual(expectedHits);
    } finally {
      thaw();
    }
  });

  it('should ask another replica once read_fan_out_delay_ms passes, with factor 0', async () => {
    await setFanOut(coordinator, 0, 50);
    freeze(victim);
    try {
      const got = await timed(() => retrieve(coordinator, 10_000));
      expect({ status: got.value.status, fast: got.ms < BOUND_MS }).toEqual({ status: 200, fast: true });
      // The frozen replica is asked first: the answer comes from the one asked after the delay.
      expect(got.ms).toBeGreaterThanOrEqual(45);
      expect(got.value.body?.result.map((p: Json) => p.id)).toEqual(ids);
      const viaGrpc = await timed(() =>
        grpcOf(coordinator)
          .api('points')
          .search({ collectionName: name, vector: [1, 1], limit: 5n }),
      );
      expect(viaGrpc.ms).toBeLessThan(BOUND_MS);
      expect(viaGrpc.ms).toBeGreaterThanOrEqual(45);
      expect(viaGrpc.value.result.map((p) => Number(p.id?.pointIdOptions.value))).toEqual(expectedHits);
    } finally {
      thaw();
    }
  });

  it('should wait for the frozen replica without fan-out (factor 0, no delay), and answer once it is thawed', async () => {
    await setFanOut(coordinator, 0, 0);
    freeze(victim);
    let hung: Promise<Awaited<ReturnType<typeof retrieve>>> | undefined;
    try {
      // The same read, with no fan-out, is still waiting after the bound...
      const abandoned = await retrieve(coordinator, BOUND_MS).then(
        (answer) => answer,
        (error: { name?: string }) => error,
      );
      // fetch's own timeout (a DOMException, from another realm than jest's Error).
      expect((abandoned as { name?: string }).name).toBe('TimeoutError');
      hung = retrieve(coordinator, 30_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      thaw();
    }
    // ...and answers once the replica's peer runs again.
    const late = await hung!;
    expect(late.status).toBe(200);
    expect(late.body?.result.map((p: Json) => p.id)).toEqual(ids);
  });

  it('should leave every peer live and serving after the freezes', async () => {
    await eventually(10_000, async () => {
      for (const peer of peers) {
        const { body } = await http(peer, 'GET', '/cluster');
        expect(Object.keys(body?.result.peers ?? {})).toHaveLength(3);
      }
    });
    for (const peer of [coordinator, victim, bystander]) {
      const answer = await retrieve(peer);
      expect(answer.status).toBe(200);
      expect(answer.body?.result.map((p: Json) => p.id)).toEqual(ids);
      const info = (await http(peer, 'GET', `/collections/${name}/cluster`)).body!.result;
      expect([...info.local_shards, ...info.remote_shards].map((s: Json) => s.state)).toEqual(Array(6).fill('Active'));
    }
  });
});
