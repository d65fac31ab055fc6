// Cluster mode, stage 2 (replication): three server processes and one etcd on loopback, as in
// cluster.e2e-spec.ts. Each shard has `replication_factor` replicas on distinct peers; a write reaches every
// non-Dead replica and is acknowledged once min(write_consistency_factor, replicas) applied it, the failed ones
// being marked Dead first; reads take one Active replica per shard (the peer's own first) or, with
// `consistency=all`, every Active one. Faults: SIGKILL of a peer under concurrent writers, a restart on the same
// data folder (its Dead replicas are recovered by the leader), DropReplica.
//
// The tests run in order and share the peers: the SIGKILLed peer stays down until the restart test.
// REPLICATION_TEST_DEBUG=1 prints the writers' acknowledgements and errors.
import { randomBytes } from 'node:crypto';
import { etcdOrSkip, RunningEtcd, startEtcd } from './support/etcd-harness';
import { RunningServer } from './support/server-harness';
import { TcpProxy } from './support/tcp-proxy';
import { clusterSecrets, eventually, startClusterPeer } from './support/cluster-harness';

const { QdrantClient } = require('@qdrant/js-client-rest') as typeof import('@qdrant/js-client-rest');
const grpcClientModule = require('@qdrant/js-client-grpc') as typeof import('@qdrant/js-client-grpc');
const { ReadConsistencyType } = grpcClientModule;
const GrpcClient = grpcClientModule.QdrantClient;

const LEASE_TTL_S = 2;
const ETCD_TIMEOUT_MS = 1500;
const etcdBin = etcdOrSkip();
const describeWithEtcd = etcdBin ? describe : describe.skip;

jest.setTimeout(60_000);

interface Peer {
  server: RunningServer;
  proxy: TcpProxy;
  /** Its peer id (u64, as text). */
  id: string;
}

/** One replica as a peer's `GET /collections/{c}/cluster` lists it (local or remote). */
interface Replica {
  shard: number;
  peer: string;
  state: string;
  local: boolean;
}

// Answers are read field by field, as the assertions need them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies of several shapes
type Json = Record<string, any>;

const num = (value: number) => ({ pointIdOptions: { case: 'num' as const, value: BigInt(value) } });
const withPayload = { selectorOptions: { case: 'enable' as const, value: true } };
const readAll = { value: { case: 'type' as const, value: ReadConsistencyType.All } };

describeWithEtcd('cluster replication (e2e, 3 peers + etcd)', () => {
  let etcd: RunningEtcd;
  const peers: Peer[] = [];
  const shared = clusterSecrets();
  const suffix = randomBytes(3).toString('hex');

  // One client per peer address (each construction warns about the API key on plain HTTP).
  const restClients = new Map<string, InstanceType<typeof QdrantClient>>();
  const rest = (peer: Peer) => {
    let client = restClients.get(peer.server.httpUrl);
    if (!client) {
      client = new QdrantClient({ url: peer.server.httpUrl, apiKey: peer.server.apiKey, checkCompatibility: false });
      restClients.set(peer.server.httpUrl, client);
    }
    return client;
  };
  const grpcOf = (peer: Peer) =>
    new GrpcClient({
      host: '127.0.0.1',
      port: peer.server.grpcPort,
      https: false,
      apiKey: peer.server.apiKey,
      checkCompatibility: false,
    });

  async function http(peer: Peer, method: string, route: string, body?: unknown, timeoutMs = 15_000) {
    const response = await fetch(`${peer.server.httpUrl}${route}`, {
      method,
      headers: { 'api-key': peer.server.apiKey, 'content-type': 'application/json' },
      // A string is sent as is: JSON with u64 peer ids beyond 2^53.
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    // Peer ids are u64: keep big integers exact as strings.
    const exact = text.replace(/([:[,]\s*)(\d{16,})(?=\s*[,}\]])/g, '$1"$2"');
    let parsed: Json | undefined;
    try {
      parsed = exact ? (JSON.parse(exact) as Json) : undefined;
    } catch {
      parsed = { raw: text };
    }
    return { status: response.status, body: parsed };
  }

  async function startPeer(): Promise<Peer> {
    // A long grace: these tests look at what failed writes mark Dead, not at the leader marking a gone peer's
    // replicas (cluster-transfers.e2e-spec.ts covers that).
    const { server, proxy } = await startClusterPeer(
      etcd,
      shared,
      { leaseTtlS: LEASE_TTL_S, etcdTimeoutMs: ETCD_TIMEOUT_MS },
      { VECTORSTORE_DEAD_GRACE: '600' },
    );
    return { server, proxy, id: '' };
  }

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  async function peerIds(peer: Peer): Promise<string[]> {
    const { body } = await http(peer, 'GET', '/cluster');
    return Object.keys(body?.result.peers ?? {}).sort();
  }

  /** Every replica the peer's cluster info lists, and its shard count. */
  async function replicas(peer: Peer, collection: string): Promise<{ shardCount: number; replicas: Replica[] }> {
    const { status, body } = await http(peer, 'GET', `/collections/${collection}/cluster`);
    expect(status).toBe(200);
    const info = body?.result;
    const self = String(info.peer_id);
    const all: Replica[] = [
      ...info.local_shards.map((s: Json) => ({ shard: s.shard_id, peer: self, state: s.state, local: true })),
      ...info.remote_shards.map((s: Json) => ({
        shard: s.shard_id,
        peer: String(s.peer_id),
        state: s.state,
        local: false,
      })),
    ];
    all.sort((a, b) => a.shard - b.shard || a.peer.localeCompare(b.peer));
    return { shardCount: info.shard_count, replicas: all };
  }

  async function createEverywhere(via: Peer, name: string, body: Json): Promise<void> {
    const created = await http(via, 'PUT', `/collections/${name}`, body);
    expect({ status: created.status, body: created.body }).toMatchObject({ status: 200 });
    await eventually(2000, async () => {
      for (const peer of alive()) expect((await rest(peer).collectionExists(name)).exists).toBe(true);
    });
  }

  let killed: Peer | undefined;
  const alive = () => peers.filter((peer) => peer !== killed);

  /** Upserts through `peer`, asserting success. */
  async function upsert(peer: Peer, collection: string, points: Json[]): Promise<void> {
    const answer = await http(peer, 'PUT', `/collections/${collection}/points?wait=true`, { points });
    expect({ status: answer.status, body: answer.body }).toMatchObject({ status: 200 });
  }

  /** Retrieves ids through `peer` (REST), payload included; `consistency` as the query parameter. */
  async function retrieve(peer: Peer, collection: string, ids: number[], consistency?: string, timeoutMs?: number) {
    const query = consistency === undefined ? '' : `?consistency=${consistency}`;
    const body = { ids, with_payload: true };
    return http(peer, 'POST', `/collections/${collection}/points${query}`, body, timeoutMs);
  }

  /** Each local replica's checksum as the peer's cluster info gives it (`?checksum=true`), by shard id. */
  async function localChecksums(peer: Peer, collection: string): Promise<Map<number, Json>> {
    const { body } = await http(peer, 'GET', `/collections/${collection}/cluster?checksum=true`);
    return new Map((body?.result.local_shards as Json[]).map((s) => [s.shard_id as number, s.checksum as Json]));
  }

  /** The replicas of a collection as its catalog record in etcd holds them (read straight from etcd). */
  async function replicasInEtcd(collection: string): Promise<Array<{ shard: number; peer: string; state: string }>> {
    const key = `/vectorstore/default/catalog/collections/${encodeURIComponent(collection)}`;
    const response = await fetch(`${etcd.endpoint}/v3/kv/range`, {
      method: 'POST',
      body: JSON.stringify({ key: Buffer.from(key).toString('base64') }),
    });
    const kvs = ((await response.json()) as Json).kvs as Json[] | undefined;
    expect(kvs).toHaveLength(1);
    const text = Buffer.from(kvs![0].value, 'base64').toString('utf8');
    const record = JSON.parse(text.replace(/([:[,]\s*)(\d{16,})(?=\s*[,}\]])/g, '$1"$2"')) as Json;
    return (record.shards as Json[]).map((s) => ({ shard: s.shardId, peer: String(s.peerId), state: s.state }));
  }

  beforeAll(async () => {
    etcd = await startEtcd(etcdBin!);
    for (let i = 0; i < 3; i++) peers.push(await startPeer());
    await eventually(15_000, async () => {
      for (const peer of peers) expect(await peerIds(peer)).toHaveLength(3);
    });
    for (const peer of peers) peer.id = String((await http(peer, 'GET', '/cluster')).body?.result.peer_id);
    expect(new Set(peers.map((peer) => peer.id)).size).toBe(3);
  }, 120_000);

  afterAll(async () => {
    for (const peer of peers) {
      await peer.server.stop();
      await peer.proxy.close();
    }
    await etcd?.stop();
  }, 60_000);

  // 1 --------------------------------------------------------------------------------------------------
  const basic = `basic-${suffix}`;
  const basicPoints = Array.from({ length: 40 }, (_, i) => ({ id: i + 1, vector: [1, i / 40], payload: { i } }));

  it('should place rf 3 replicas of every shard on 3 distinct peers, all Active, and serve every peer', async () => {
    await createEverywhere(peers[0], basic, {
      vectors: { size: 2, distance: 'Dot' },
      shard_number: 2,
      replication_factor: 3,
      write_consistency_factor: 2,
    });
    const allIds = peers.map((peer) => peer.id).sort();
    for (const peer of peers) {
      const view = await replicas(peer, basic);
      expect(view.shardCount).toBe(2);
      for (const shard of [0, 1]) {
        const ofShard = view.replicas.filter((r) => r.shard === shard);
        expect(ofShard.map((r) => r.peer).sort()).toEqual(allIds);
        expect(ofShard.map((r) => r.state)).toEqual(['Active', 'Active', 'Active']);
      }
      expect(view.replicas).toHaveLength(6);
      // rf 3 on 3 peers: each peer holds both shards itself.
      expect(view.replicas.filter((r) => r.local).map((r) => r.shard)).toEqual([0, 1]);
      expect(view.replicas.filter((r) => r.local).every((r) => r.peer === peer.id)).toBe(true);
    }
    const config = (await rest(peers[1]).getCollection(basic)).config.params;
    expect(config.replication_factor).toBe(3);
    expect(config.write_consistency_factor).toBe(2);

    await upsert(peers[0], basic, basicPoints);
    const ids = basicPoints.map((p) => p.id);
    for (const peer of peers) {
      for (const consistency of [undefined, 'all', 'majority', 'quorum', '2']) {
        const answer = await retrieve(peer, basic, ids, consistency);
        expect({ consistency, status: answer.status }).toEqual({ consistency, status: 200 });
        expect(answer.body?.result.map((p: Json) => [p.id, p.payload.i])).toEqual(
          basicPoints.map((p) => [p.id, p.payload.i]),
        );
      }
      expect((await rest(peer).count(basic, { exact: true })).count).toBe(40);
      const page = await rest(peer).scroll(basic, { limit: 100, consistency: 'all' });
      expect(page.points.map((p) => p.id)).toEqual(ids);
      const hits = await rest(peer).query(basic, { query: [0, 1], limit: 3, consistency: 'all' });
      expect(hits.points.map((p) => p.id)).toEqual([40, 39, 38]);
      // Collection info counts each shard once, not once per replica.
      expect((await rest(peer).getCollection(basic)).points_count).toBe(40);
    }

    // gRPC, read consistency All, through the official client.
    const viaGrpc = await grpcOf(peers[2])
      .api('points')
      .get({ collectionName: basic, ids: ids.map(num), withPayload, readConsistency: readAll });
    expect(viaGrpc.result.map((p) => Number(p.id?.pointIdOptions.value))).toEqual(ids);
    expect(viaGrpc.result.map((p) => Number(p.payload.i?.kind.value))).toEqual(basicPoints.map((p) => p.payload.i));

    const grpcCount = await grpcOf(peers[1])
      .api('points')
      .count({ collectionName: basic, exact: true, readConsistency: { value: { case: 'factor', value: 2n } } });
    expect(Number(grpcCount.result?.count)).toBe(40);

    // Each peer's own replicas hold every point: with the two other peers frozen, a default read through the
    // third answers from its own replicas (local first) without waiting for anyone.
    const [reader, ...frozen] = [peers[2], peers[0], peers[1]];
    for (const peer of frozen) process.kill(peer.server.pid, 'SIGSTOP');
    let local: Awaited<ReturnType<typeof retrieve>> | Error;
    try {
      // Well within a lease (renewed every TTL/3), so that nobody is fenced meanwhile.
      local = await retrieve(reader, basic, ids, undefined, 1000).catch((error: Error) => error);
    } finally {
      for (const peer of frozen) process.kill(peer.server.pid, 'SIGCONT');
    }
    expect(local).not.toBeInstanceOf(Error);
    expect((local as Awaited<ReturnType<typeof retrieve>>).body?.result.map((p: Json) => p.id)).toEqual(ids);
    // The freeze was far shorter than a lease: everyone is still there.
    await eventually(10_000, async () => {
      for (const peer of peers) expect(await peerIds(peer)).toHaveLength(3);
    });
  });

  // 4 (before the fault tests: it needs all three peers) ----------------------------------------------
  it('should drop replicas, keep reads and writes working, and refuse dropping the last Active replica', async () => {
    const name = `dropping-${suffix}`;
    await createEverywhere(peers[0], name, {
      vectors: { size: 2, distance: 'Dot' },
      shard_number: 1,
      replication_factor: 3,
      write_consistency_factor: 2,
    });
    const points = Array.from({ length: 10 }, (_, i) => ({ id: i + 1, vector: [1, i], payload: { v: 1 } }));
    await upsert(peers[0], name, points);
    const drop = (via: Peer, target: Peer) =>
      http(via, 'POST', `/collections/${name}/cluster`, `{"drop_replica":{"shard_id":0,"peer_id":${target.id}}}`);

    const first = await drop(peers[2], peers[1]);
    expect({ status: first.status, body: first.body }).toMatchObject({ status: 200, body: { result: true } });
    await eventually(2000, async () => {
      for (const peer of peers) {
        const view = await replicas(peer, name);
        expect(view.shardCount).toBe(1);
        expect(view.replicas.map((r) => [r.peer, r.state])).toEqual(
          [peers[0].id, peers[2].id].sort().map((id) => [id, 'Active']),
        );
      }
    });
    expect((await replicas(peers[1], name)).replicas.filter((r) => r.local)).toEqual([]);

    // peers[1] holds no replica now: it routes reads and writes to the others.
    const ids = points.map((p) => p.id);
    expect((await retrieve(peers[1], name, ids)).body?.result.map((p: Json) => p.id)).toEqual(ids);
    await upsert(peers[1], name, [{ id: 11, vector: [1, 11], payload: { v: 2 } }]);
    for (const peer of peers) {
      const answer = await retrieve(peer, name, [...ids, 11], 'all');
      expect(answer.status).toBe(200);
      expect(answer.body?.result.map((p: Json) => p.id)).toEqual([...ids, 11]);
      expect((await rest(peer).count(name, { exact: true })).count).toBe(11);
    }

    const second = await drop(peers[0], peers[2]);
    expect(second.status).toBe(200);
    await eventually(2000, async () => {
      for (const peer of peers) {
        expect((await replicas(peer, name)).replicas.map((r) => [r.peer, r.state])).toEqual([[peers[0].id, 'Active']]);
      }
    });
    // wcf 2 with one replica left: min(wcf, replicas) = 1 acknowledgement is enough.
    await upsert(peers[2], name, [{ id: 12, vector: [1, 12], payload: { v: 3 } }]);
    for (const peer of peers) {
      const answer = await retrieve(peer, name, [1, 11, 12], 'all');
      expect(answer.body?.result.map((p: Json) => [p.id, p.payload.v])).toEqual([
        [1, 1],
        [11, 2],
        [12, 3],
      ]);
    }

    // The last Active replica stays.
    // A replica the shard does not have, or a shard the collection does not have: 400, as Qdrant.
    const absent = await drop(peers[1], peers[1]);
    expect(absent.status).toBe(400);
    expect(absent.body?.status.error).toContain('has no replica of shard');
    const noShard = await http(
      peers[1],
      'POST',
      `/collections/${name}/cluster`,
      `{"drop_replica":{"shard_id":7,"peer_id":${peers[0].id}}}`,
    );
    expect(noShard.status).toBeGreaterThanOrEqual(400);
    expect(noShard.status).toBeLessThan(500);

    const last = await drop(peers[1], peers[0]);
    expect(last.status).toBe(400);
    expect(typeof last.body?.status?.error).toBe('string');
    await sleep(300);
    for (const peer of peers) {
      expect((await replicas(peer, name)).replicas.map((r) => [r.peer, r.state])).toEqual([[peers[0].id, 'Active']]);
    }
    expect((await rest(peers[1]).count(name, { exact: true })).count).toBe(12);
    await rest(peers[0]).deleteCollection(name);
  });

  // 2 --------------------------------------------------------------------------------------------------
  const acked = `acked-${suffix}`;
  const raised = `raised-${suffix}`;
  const failover = `failover-${suffix}`;
  const strict = `strict-${suffix}`;
  const capped = `capped-${suffix}`;
  const failoverPoints = Array.from({ length: 30 }, (_, i) => ({ id: i + 1, vector: [1, i / 30], payload: { i } }));
  /** Per id: the last acknowledged seq and when it was acknowledged, and the highest seq ever sent. */
  const lastAcked = new Map<number, { seq: number; at: number }>();
  const lastSent = new Map<number, number>();
  let killedAt = 0;

  /** Each point read back must hold its last acknowledged seq or a later one that was sent. */
  function checkAcked(points: Json[], where: string): void {
    const byId = new Map(points.map((p) => [Number(p.id), Number(p.payload?.seq)]));
    const lost: string[] = [];
    for (const [id, { seq }] of lastAcked) {
      const found = byId.get(id);
      if (found === undefined || Number.isNaN(found) || found < seq || found > (lastSent.get(id) ?? -1)) {
        lost.push(`id ${id}: acked seq ${seq}, sent up to ${lastSent.get(id)}, read ${found}`);
      }
    }
    expect({ where, lost: lost.slice(0, 10), lostCount: lost.length }).toEqual({ where, lost: [], lostCount: 0 });
  }

  it('should lose no acknowledged write when a peer is SIGKILLed under concurrent writers (rf 3, wcf 2)', async () => {
    // The later tests' collections, made while all three peers are up.
    await createEverywhere(peers[0], acked, {
      vectors: { size: 2, distance: 'Dot' },
      shard_number: 2,
      replication_factor: 3,
      write_consistency_factor: 2,
    });
    await createEverywhere(peers[1], raised, {
      vectors: { size: 2, distance: 'Dot' },
      shard_number: 1,
      replication_factor: 3,
      write_consistency_factor: 2,
    });
    await createEverywhere(peers[0], strict, {
      vectors: { size: 2, distance: 'Dot' },
      shard_number: 1,
      replication_factor: 3,
      write_consistency_factor: 3,
    });
    await createEverywhere(peers[2], failover, {
      vectors: { size: 2, distance: 'Dot' },
      shard_number: 3,
      replication_factor: 2,
    });
    await upsert(peers[0], failover, failoverPoints);

    const victim = peers[2];
    const WRITERS = 4;
    const IDS_PER_WRITER = 25;
    const RUN_MS = 7000;
    const KILL_AT_MS = 3000;
    const MAX_RUN_MS = 20_000;
    const MIN_ACKS_AFTER_KILL = 15;
    const errors = new Map<string, number>();
    let acks = 0;
    let acksAfterKill = 0;
    const started = Date.now();

    const writer = async (w: number) => {
      let seq = 0;
      let mineAfterKill = 0;
      // RUN_MS, longer (up to MAX_RUN_MS) until this writer had enough writes acknowledged since the kill.
      const more = () =>
        Date.now() - started < RUN_MS || (mineAfterKill < MIN_ACKS_AFTER_KILL && Date.now() - started < MAX_RUN_MS);
      for (let i = 0; more(); i++) {
        const peer = peers[(w + i) % peers.length];
        // Two of the writer's own ids per request, usually on different shards.
        const ids = [w * 1000 + ((i * 7) % IDS_PER_WRITER), w * 1000 + ((i * 7 + 3) % IDS_PER_WRITER)];
        seq++;
        for (const id of ids) lastSent.set(id, seq);
        const body = { points: ids.map((id) => ({ id, vector: [1, seq / 1000], payload: { seq, w } })) };
        try {
          const answer = await http(peer, 'PUT', `/collections/${acked}/points?wait=true`, body, 10_000);
          if (answer.status === 200 && answer.body?.status === 'ok') {
            const at = Date.now();
            for (const id of ids) lastAcked.set(id, { seq, at });
            acks++;
            if (killedAt && at > killedAt) {
              acksAfterKill++;
              mineAfterKill++;
            }
          } else {
            const key = `${answer.status} ${String(answer.body?.status?.error ?? '').slice(0, 80)}`;
            errors.set(key, (errors.get(key) ?? 0) + 1);
          }
        } catch (error) {
          const key = `${(error as Error).name}: ${String((error as Error & { cause?: Error }).cause?.message ?? (error as Error).message).slice(0, 60)}`;
          errors.set(key, (errors.get(key) ?? 0) + 1);
          await sleep(20);
        }
      }
    };

    const killer = (async () => {
      await sleep(KILL_AT_MS);
      killed = victim;
      killedAt = Date.now();
      await victim.server.kill();
    })();
    await Promise.all([killer, ...Array.from({ length: WRITERS }, (_, w) => writer(w))]);
    const summary = { acks, acksAfterKill, errors: Object.fromEntries(errors) };
    if (process.env.REPLICATION_TEST_DEBUG) console.log(JSON.stringify(summary));

    // The writers went on through the survivors after the kill.
    expect(summary.acks).toBeGreaterThan(40);
    expect(summary.acksAfterKill).toBeGreaterThanOrEqual(WRITERS * MIN_ACKS_AFTER_KILL);
    // Most ids were acknowledged again after the kill: the victim's copies of them are stale (see the restart test).
    const touchedAfterKill = [...lastAcked.values()].filter((a) => a.at > killedAt).length;
    expect(touchedAfterKill).toBeGreaterThan(WRITERS * IDS_PER_WRITER * 0.5);

    const ackedIds = [...lastAcked.keys()].sort((a, b) => a - b);
    for (const peer of alive()) {
      const answer = await retrieve(peer, acked, ackedIds, 'all');
      expect({ peer: peer.id, status: answer.status, error: answer.body?.status?.error }).toEqual({
        peer: peer.id,
        status: 200,
        error: undefined,
      });
      checkAcked(answer.body?.result, `REST consistency=all via ${peer.id}`);
      const plain = await retrieve(peer, acked, ackedIds);
      checkAcked(plain.body?.result, `REST default consistency via ${peer.id}`);
    }
    const viaGrpc = await grpcOf(peers[1])
      .api('points')
      .get({ collectionName: acked, ids: ackedIds.map(num), withPayload, readConsistency: readAll });
    checkAcked(
      viaGrpc.result.map((p) => ({
        id: Number(p.id?.pointIdOptions.value),
        payload: { seq: p.payload.seq?.kind.value },
      })),
      `gRPC read_consistency All via ${peers[1].id}`,
    );

    // Points that exist only since the kill (on the Active replicas, not on the victim's).
    const fresh = Array.from({ length: 10 }, (_, i) => 9000 + i);
    await upsert(
      peers[0],
      acked,
      fresh.map((id) => ({ id, vector: [1, 0], payload: { seq: 1, w: -1 } })),
    );
    for (const id of fresh) {
      lastSent.set(id, 1);
      lastAcked.set(id, { seq: 1, at: Date.now() });
    }

    // Writes touched both shards after the kill, so the survivors marked the victim's replicas Dead.
    await eventually(5000, async () => {
      for (const peer of alive()) {
        const view = await replicas(peer, acked);
        expect(view.shardCount).toBe(2);
        expect(view.replicas.map((r) => [r.shard, r.peer, r.state])).toEqual(
          [0, 1].flatMap((shard) =>
            peers
              .map((p) => p.id)
              .sort()
              .map((id) => [shard, id, id === victim.id ? 'Dead' : 'Active']),
          ),
        );
      }
    });
  }, 90_000);

  it('should fail reads over to another Active replica when a replica’s peer is gone (rf 2)', async () => {
    expect(killed).toBeDefined();
    const ids = failoverPoints.map((p) => p.id);
    for (const peer of alive()) {
      const answer = await retrieve(peer, failover, ids);
      expect({ status: answer.status, error: answer.body?.status?.error }).toEqual({ status: 200, error: undefined });
      expect(answer.body?.result.map((p: Json) => [p.id, p.payload.i])).toEqual(
        failoverPoints.map((p) => [p.id, p.payload.i]),
      );
      expect((await rest(peer).count(failover, { exact: true })).count).toBe(30);
      const hits = await rest(peer).query(failover, { query: [0, 1], limit: 3 });
      expect(hits.points.map((p) => p.id)).toEqual([30, 29, 28]);
    }
    // With consistency all, an Active replica that does not answer fails the read; a Dead one is skipped.
    const view = await replicas(peers[0], failover);
    const onVictim = view.replicas.filter((r) => r.peer === killed!.id);
    expect(onVictim.length).toBeGreaterThan(0);
    const all = await retrieve(peers[0], failover, ids, 'all');
    if (onVictim.some((r) => r.state === 'Active')) {
      expect(all.status).toBeGreaterThanOrEqual(500);
    } else {
      expect(all.status).toBe(200);
      expect(all.body?.result).toHaveLength(30);
    }

    // A collection created now gets at most one replica per live peer.
    await createEverywhere(peers[1], capped, {
      vectors: { size: 2, distance: 'Dot' },
      shard_number: 2,
      replication_factor: 3,
      write_consistency_factor: 2,
    });
    const live = alive()
      .map((p) => p.id)
      .sort();
    for (const peer of alive()) {
      const placed = await replicas(peer, capped);
      expect(placed.shardCount).toBe(2);
      expect(placed.replicas.map((r) => [r.shard, r.peer, r.state])).toEqual(
        [0, 1].flatMap((shard) => live.map((id) => [shard, id, 'Active'])),
      );
    }
    await upsert(peers[0], capped, failoverPoints);
    expect((await retrieve(peers[1], capped, ids, 'all')).body?.result).toHaveLength(30);
  });

  // 3 --------------------------------------------------------------------------------------------------
  it('should refuse a write up front (503) when fewer non-Dead replicas remain than write_consistency_factor', async () => {
    expect(killed).toBeDefined();
    const [a, b] = alive();
    // One write with wcf 2 succeeds on the two survivors and marks the victim's replica Dead, in etcd, before
    // it is acknowledged (and the coordinator's own view has it: read-your-writes).
    await upsert(a, raised, [{ id: 1, vector: [1, 0], payload: { v: 1 } }]);
    expect((await replicasInEtcd(raised)).find((r) => r.peer === killed!.id)?.state).toBe('Dead');
    expect((await replicas(a, raised)).replicas.find((r) => r.peer === killed!.id)?.state).toBe('Dead');
    await eventually(3000, async () => {
      const view = await replicas(b, raised);
      expect(view.replicas.find((r) => r.peer === killed!.id)?.state).toBe('Dead');
      expect(view.replicas.filter((r) => r.state === 'Active')).toHaveLength(2);
    });

    const patched = await http(a, 'PATCH', `/collections/${raised}`, { params: { write_consistency_factor: 3 } });
    expect({ status: patched.status, body: patched.body }).toMatchObject({ status: 200 });
    await eventually(2000, async () => {
      for (const peer of alive()) {
        expect((await rest(peer).getCollection(raised)).config.params.write_consistency_factor).toBe(3);
      }
    });

    const refused = await http(b, 'PUT', `/collections/${raised}/points?wait=true`, {
      points: [{ id: 2, vector: [1, 1], payload: { v: 2 } }],
    });
    expect(refused.status).toBe(503);
    expect(refused.body?.status?.error).toContain('write_consistency_factor');
    // gRPC: UNAVAILABLE, same reason.
    const grpcRefusal = await grpcOf(a)
      .api('points')
      .upsert({
        collectionName: raised,
        wait: true,
        points: [{ id: num(3), vectors: { vectorsOptions: { case: 'vector', value: { data: [1, 2] } } }, payload: {} }],
      })
      .then(
        () => undefined,
        (error: { code?: number; rawMessage?: string; message?: string }) => error,
      );
    expect(grpcRefusal?.code).toBe(grpcClientModule.ConnectErrorCode.Unavailable);
    expect(grpcRefusal?.rawMessage ?? grpcRefusal?.message).toContain('write_consistency_factor');
    // Refused up front: nothing applied anywhere.
    for (const peer of alive()) {
      const answer = await retrieve(peer, raised, [1, 2, 3], 'all');
      expect(answer.body?.result.map((p: Json) => p.id)).toEqual([1]);
    }

    // Dropping the Dead replica leaves two: min(3, 2) = 2 acknowledgements suffice again.
    const dropped = await http(
      a,
      'POST',
      `/collections/${raised}/cluster`,
      `{"drop_replica":{"shard_id":0,"peer_id":${killed!.id}}}`,
    );
    expect(dropped.status).toBe(200);
    await eventually(2000, async () => {
      for (const peer of alive()) {
        const view = await replicas(peer, raised);
        expect(view.replicas.map((r) => r.peer).sort()).toEqual(
          alive()
            .map((p) => p.id)
            .sort(),
        );
        expect(view.replicas.every((r) => r.state === 'Active')).toBe(true);
      }
    });
    await upsert(b, raised, [{ id: 4, vector: [1, 4], payload: { v: 4 } }]);
    for (const peer of alive()) {
      expect((await retrieve(peer, raised, [1, 4], 'all')).body?.result.map((p: Json) => p.id)).toEqual([1, 4]);
    }
  });

  it('should fail a write that too few replicas took (wcf 3, a replica unreachable) and mark nothing Dead', async () => {
    expect(killed).toBeDefined();
    for (const peer of alive()) {
      const answer = await http(peer, 'PUT', `/collections/${strict}/points?wait=true`, {
        points: [{ id: 1, vector: [1, 0], payload: { v: 1 } }],
      });
      expect(answer.status).toBeGreaterThanOrEqual(500);
      expect(answer.body?.status?.error).toEqual(expect.any(String));
    }
    // Not enough successes: the failed replica is not marked Dead (it may hold the op or not).
    await sleep(300);
    expect((await replicasInEtcd(strict)).map((r) => r.state)).toEqual(['Active', 'Active', 'Active']);
    for (const peer of alive()) {
      expect((await replicas(peer, strict)).replicas.map((r) => r.state)).toEqual(['Active', 'Active', 'Active']);
    }
  });

  // 5 --------------------------------------------------------------------------------------------------
  it('should recover a restarted peer’s Dead replicas by itself, reads through it equal to the acknowledged set', async () => {
    expect(killed).toBeDefined();
    const back = killed!;
    back.server = await back.server.restart();
    killed = undefined;
    await eventually(20_000, async () => {
      for (const peer of peers) expect(await peerIds(peer)).toContain(back.id);
      expect(String((await http(back, 'GET', '/cluster')).body?.result.peer_id)).toBe(back.id);
    });
    await eventually(10_000, async () => expect((await rest(back).collectionExists(acked)).exists).toBe(true));

    // Whatever state its replicas are in meanwhile, reads through it come from replicas that hold every write.
    const ackedIds = [...lastAcked.keys()].sort((a, b) => a - b);
    const early = await retrieve(back, acked, ackedIds, 'all');
    expect(early.status).toBe(200);
    checkAcked(early.body?.result, `REST consistency=all via restarted ${back.id}, before recovery`);

    // The leader recovers its Dead replicas from Active ones: every replica Active again, on every peer's view.
    const recoveredAt = Date.now();
    await eventually(
      60_000,
      async () => {
        for (const peer of peers) {
          const view = await replicas(peer, acked);
          expect(view.replicas.map((r) => [r.shard, r.peer, r.state])).toEqual(
            [0, 1].flatMap((shard) =>
              peers
                .map((p) => p.id)
                .sort()
                .map((id) => [shard, id, 'Active']),
            ),
          );
        }
      },
      250,
    );
    if (process.env.REPLICATION_TEST_DEBUG) console.log(`recovered in ${Date.now() - recoveredAt} ms`);
    // By WAL delta: the sources' logs still hold every write it missed, so no shard was streamed whole.
    for (const peer of peers)
      expect(peer.server.output()).not.toMatch(new RegExp(`wal_delta of shard \\d+ of ${acked} .* cannot be done`));
    // Every replica holds the same points: equal checksums on the three peers.
    await eventually(5000, async () => {
      const sums = await Promise.all(peers.map((peer) => localChecksums(peer, acked)));
      for (const shard of [0, 1]) expect(new Set(sums.map((sum) => JSON.stringify(sum.get(shard)))).size).toBe(1);
    });

    for (const consistency of [undefined, 'all', 'majority']) {
      const answer = await retrieve(back, acked, ackedIds, consistency);
      expect({ consistency, status: answer.status }).toEqual({ consistency, status: 200 });
      checkAcked(answer.body?.result, `REST consistency=${consistency ?? 'default'} via restarted ${back.id}`);
    }
    const viaGrpc = await grpcOf(back)
      .api('points')
      .get({ collectionName: acked, ids: ackedIds.map(num), withPayload, readConsistency: readAll });
    checkAcked(
      viaGrpc.result.map((p) => ({
        id: Number(p.id?.pointIdOptions.value),
        payload: { seq: p.payload.seq?.kind.value },
      })),
      `gRPC read_consistency All via restarted ${back.id}`,
    );
    const scrolled = await rest(back).scroll(acked, { limit: 1000, with_payload: true });
    checkAcked(scrolled.points, `REST scroll via restarted ${back.id}`);
    const counted = (await rest(back).count(acked, { exact: true })).count;
    expect(counted).toBe((await rest(peers[0]).count(acked, { exact: true })).count);
    expect(counted).toBeGreaterThanOrEqual(ackedIds.length);
    expect((await rest(back).getCollection(acked)).points_count).toBe(counted);

    // A write through it reaches every replica, its own included.
    const newest = Math.max(...[...lastSent.values()]) + 1;
    await upsert(back, acked, [{ id: ackedIds[0], vector: [1, 0], payload: { seq: newest, w: -1 } }]);
    lastSent.set(ackedIds[0], newest);
    lastAcked.set(ackedIds[0], { seq: newest, at: Date.now() });
    for (const peer of peers) {
      // A read of every replica may time out on a loaded machine (a 5xx, shown): asked again within a bound. A
      // stale value is not retried.
      const answer = await eventually(5000, async () => {
        const read = await retrieve(peer, acked, [ackedIds[0]], 'all');
        expect({ status: read.status, body: read.status === 200 ? undefined : read.body }).toEqual({ status: 200 });
        return read;
      });
      expect(answer.body?.result.map((p: Json) => p.payload.seq)).toEqual([newest]);
    }

    // The replica dropped while it was down is gone from its view too.
    await eventually(5000, async () => {
      const view = await replicas(back, raised);
      expect(view.replicas.map((r) => r.peer).includes(back.id)).toBe(false);
    });
    // A collection created while it was down has no replica on it; it reads through the others.
    const cappedView = await replicas(back, capped);
    expect(cappedView.replicas.filter((r) => r.local)).toEqual([]);
    expect(cappedView.replicas.map((r) => r.peer).includes(back.id)).toBe(false);
    const cappedRead = await retrieve(
      back,
      capped,
      failoverPoints.map((p) => p.id),
    );
    expect(cappedRead.body?.result.map((p: Json) => p.id)).toEqual(failoverPoints.map((p) => p.id));

    // The collection it did not miss any write of still reads the same through it.
    const basicAnswer = await retrieve(
      back,
      basic,
      basicPoints.map((p) => p.id),
      'all',
    );
    expect(basicAnswer.body?.result.map((p: Json) => [p.id, p.payload.i])).toEqual(
      basicPoints.map((p) => [p.id, p.payload.i]),
    );
  }, 90_000);
});
