// Cluster mode, stage 3 (transfers and healing): three server processes and one etcd on loopback. Shards move and
// are replicated between peers under writes (REST and gRPC), with each method; a transfer is aborted mid-way and run
// again; its target dies mid-way; the leader marks a gone peer's replicas Dead after the grace, places nothing on it,
// re-replicates its shards after VECTORSTORE_AUTO_REPLICATE_AFTER and recovers them when it comes back; a raised
// replication factor grows every shard; replicate_points copies one tenant's points between shard keys.
//
// The tests run in order and share the peers (peers[2] is stopped and killed along the way and restarted later).
// Replicas are compared by checksum (`GET /collections/{c}/cluster?checksum=true`): equal live points and digest.
import { randomBytes } from 'node:crypto';
import { clusterSecrets, eventually, startClusterPeer } from './support/cluster-harness';
import { clusterView, Json, livePeerIds, localChecksums, peerHttp } from './support/cluster-client';
import { etcdOrSkip, RunningEtcd, startEtcd } from './support/etcd-harness';
import { RunningServer } from './support/server-harness';
import { TcpProxy } from './support/tcp-proxy';

const grpcClientModule = require('@qdrant/js-client-grpc') as typeof import('@qdrant/js-client-grpc');
const GrpcClient = grpcClientModule.QdrantClient;
const { ShardTransferMethod } = grpcClientModule;

const LEASE_TTL_S = 2;
const AUTO_REPLICATE_AFTER_S = 8;
const etcdBin = etcdOrSkip();
const describeWithEtcd = etcdBin ? describe : describe.skip;

jest.setTimeout(90_000);

interface Peer {
  server: RunningServer;
  proxy: TcpProxy;
  id: string;
}

describeWithEtcd('cluster transfers and healing (e2e, 3 peers + etcd)', () => {
  let etcd: RunningEtcd;
  const peers: Peer[] = [];
  const shared = clusterSecrets();
  const suffix = randomBytes(3).toString('hex');
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const http = (peer: Peer, method: string, route: string, body?: unknown) =>
    peerHttp(peer.server, method, route, body);
  const byId = (id: string) => peers.find((peer) => peer.id === id)!;
  const grpcOf = (peer: Peer) =>
    new GrpcClient({
      host: '127.0.0.1',
      port: peer.server.grpcPort,
      https: false,
      apiKey: peer.server.apiKey,
      checkCompatibility: false,
    });

  beforeAll(async () => {
    etcd = await startEtcd(etcdBin!);
    for (let i = 0; i < 3; i++) {
      const { server, proxy } = await startClusterPeer(
        etcd,
        shared,
        { leaseTtlS: LEASE_TTL_S, etcdTimeoutMs: 1500 },
        { VECTORSTORE_AUTO_REPLICATE_AFTER: String(AUTO_REPLICATE_AFTER_S) },
      );
      peers.push({ server, proxy, id: '' });
    }
    await eventually(15_000, async () => {
      for (const peer of peers) expect(await livePeerIds(peer.server)).toHaveLength(3);
    });
    for (const peer of peers) peer.id = String((await http(peer, 'GET', '/cluster')).body?.result.peer_id);
  }, 120_000);

  afterAll(async () => {
    for (const peer of peers) {
      try {
        process.kill(peer.server.pid, 'SIGCONT');
      } catch {
        // not running
      }
      await peer.server.stop();
      await peer.proxy.close();
    }
    await etcd?.stop();
  }, 60_000);

  async function create(via: Peer, name: string, body: Json): Promise<void> {
    const created = await http(via, 'PUT', `/collections/${name}`, body);
    expect({ status: created.status, body: created.body }).toMatchObject({ status: 200 });
    await eventually(3000, async () => {
      for (const peer of live())
        expect((await http(peer, 'GET', `/collections/${name}/exists`)).body?.result.exists).toBe(true);
    });
  }

  let down: Peer | undefined;
  const live = () => peers.filter((peer) => peer !== down);

  const vector = (id: number, seq: number) => Array.from({ length: 16 }, (_, d) => Math.sin(id * 7 + d + seq));

  async function upsert(via: Peer, name: string, points: Json[]): Promise<void> {
    const answer = await http(via, 'PUT', `/collections/${name}/points?wait=true`, { points });
    expect({ status: answer.status, body: answer.body }).toMatchObject({ status: 200 });
  }

  /**
   * Writes through the live peers in turn until stopped: new ids and overwrites of earlier ones, each with a seq.
   * Acknowledged writes are recorded; `check` reads them all back through every live peer.
   */
  function startWriter(name: string, firstId: number) {
    const acked = new Map<number, number>();
    const sent = new Map<number, number>();
    let running = true;
    let errors = 0;
    const done = (async () => {
      for (let i = 0, seq = 1; running; i++, seq++) {
        const id = i % 3 === 2 ? firstId + ((i * 13) % Math.max(1, i)) : firstId + i;
        const peer = live()[i % live().length];
        sent.set(id, seq);
        const answer = await http(peer, 'PUT', `/collections/${name}/points?wait=true`, {
          points: [{ id, vector: vector(id, seq), payload: { seq, tenant: id % 2 === 0 ? 'x' : 'y' } }],
        }).catch(() => ({ status: 0, body: undefined }));
        if (answer.status === 200) acked.set(id, seq);
        else errors++;
        await sleep(5);
      }
    })();
    return {
      acked,
      get errors() {
        return errors;
      },
      async stop() {
        running = false;
        await done;
      },
      async check(where: string) {
        const ids = [...acked.keys()];
        for (const peer of live()) {
          const answer = await http(peer, 'POST', `/collections/${name}/points?consistency=all`, {
            ids,
            with_payload: true,
          });
          expect(answer.status).toBe(200);
          const read = new Map((answer.body?.result as Json[]).map((p) => [Number(p.id), Number(p.payload.seq)]));
          const lost = ids.filter((id) => {
            const seq = read.get(id);
            return seq === undefined || seq < acked.get(id)! || seq > sent.get(id)!;
          });
          expect({ where, via: peer.id, lost: lost.slice(0, 5), lostCount: lost.length }).toEqual({
            where,
            via: peer.id,
            lost: [],
            lostCount: 0,
          });
        }
      },
    };
  }

  /** Every replica of every shard of `name` holds the same points: equal checksums on the peers holding them. */
  async function expectReplicasEqual(name: string): Promise<void> {
    await eventually(10_000, async () => {
      const byShard = new Map<number, Set<string>>();
      for (const peer of live()) {
        for (const [shard, sum] of await localChecksums(peer.server, name)) {
          const view = (await clusterView(peer.server, name)).replicas.find((r) => r.local && r.shard === shard);
          if (view?.state !== 'Active') continue;
          byShard.set(shard, (byShard.get(shard) ?? new Set()).add(JSON.stringify(sum)));
        }
      }
      for (const [shard, sums] of byShard) expect({ shard, sums: [...sums] }).toEqual({ shard, sums: [[...sums][0]] });
    });
  }

  /** Waits until every live peer sees no transfer and the replicas `expected` gives ([shard, peer, state] sorted). */
  async function expectReplicas(name: string, expected: Array<[number, string, string]>, ms = 30_000): Promise<void> {
    await eventually(
      ms,
      async () => {
        for (const peer of live()) {
          const view = await clusterView(peer.server, name);
          expect(view.transfers).toEqual([]);
          expect(view.replicas.map((r) => [r.shard, r.peer, r.state])).toEqual(
            [...expected].sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1])),
          );
        }
      },
      100,
    );
  }

  const points = (from: number, count: number, seq = 0) =>
    Array.from({ length: count }, (_, i) => ({
      id: from + i,
      vector: vector(from + i, seq),
      payload: { seq, tenant: (from + i) % 2 === 0 ? 'x' : 'y' },
    }));

  // 1 --------------------------------------------------------------------------------------------------
  it('should move a replica under a steady writer with no acknowledged write lost and equal replicas', async () => {
    const name = `moving-${suffix}`;
    await create(peers[0], name, {
      vectors: { size: 16, distance: 'Cosine' },
      shard_number: 1,
      replication_factor: 2,
    });
    for (let i = 0; i < 4; i++) await upsert(peers[i % 3], name, points(1 + i * 500, 500));
    const before = await clusterView(peers[0].server, name);
    const holders = before.replicas.map((r) => r.peer);
    const from = holders[0];
    const to = peers.map((p) => p.id).find((id) => !holders.includes(id))!;
    const writer = startWriter(name, 10_000);
    await sleep(300);
    const moved = await http(
      peers[1],
      'POST',
      `/collections/${name}/cluster`,
      `{"move_shard":{"shard_id":0,"from_peer_id":${from},"to_peer_id":${to}}}`,
    );
    expect({ status: moved.status, body: moved.body }).toMatchObject({ status: 200, body: { result: true } });
    await expectReplicas(name, [
      [0, holders[1], 'Active'],
      [0, to, 'Active'],
    ]);
    await sleep(300);
    await writer.stop();
    expect(writer.acked.size).toBeGreaterThan(20);
    await writer.check('after move_shard');
    await expectReplicasEqual(name);
    // The source's copy is gone from its disk view too.
    expect((await clusterView(byId(from).server, name)).replicas.some((r) => r.local)).toBe(false);
  });

  // 2 --------------------------------------------------------------------------------------------------
  it.each([
    ['stream_records', 'rest'],
    ['snapshot', 'grpc'],
    ['wal_delta', 'rest'],
  ] as const)(
    'should replicate a shard with %s (%s) under writes, the copy equal to its source',
    async (method, via) => {
      const name = `copy-${method}-${suffix}`;
      await create(peers[0], name, {
        vectors: { size: 16, distance: 'Dot' },
        shard_number: 1,
        replication_factor: 1,
      });
      await upsert(peers[0], name, points(1, 1500));
      await http(peers[0], 'PUT', `/collections/${name}/index?wait=true`, {
        field_name: 'tenant',
        field_schema: 'keyword',
      });
      const [source] = (await clusterView(peers[0].server, name)).replicas.map((r) => r.peer);
      const target = peers.find((p) => p.id !== source)!.id;
      const writer = startWriter(name, 50_000);
      await sleep(200);
      if (via === 'rest') {
        const answer = await http(
          peers[2],
          'POST',
          `/collections/${name}/cluster`,
          `{"replicate_shard":{"shard_id":0,"from_peer_id":${source},"to_peer_id":${target},"method":"${method}"}}`,
        );
        expect({ status: answer.status, body: answer.body }).toMatchObject({ status: 200 });
      } else {
        const answer = await grpcOf(peers[2])
          .api('collections')
          .updateCollectionClusterSetup({
            collectionName: name,
            operation: {
              case: 'replicateShard',
              value: {
                shardId: 0,
                fromPeerId: BigInt(source),
                toPeerId: BigInt(target),
                method: ShardTransferMethod.Snapshot,
              },
            },
          });
        expect(answer.result).toBe(true);
      }
      await expectReplicas(name, [
        [0, source, 'Active'],
        [0, target, 'Active'],
      ]);
      await sleep(200);
      await writer.stop();
      await writer.check(`after replicate_shard ${method}`);
      await expectReplicasEqual(name);
      // The method itself did the copy: no failed run that the leader's recovery then made good.
      expect(byId(source).server.output()).not.toMatch(new RegExp(`transfer of shard 0 of ${name} to peer .* failed`));
      // wal_delta sent the source's log (every write of a new collection is still there), not a stream.
      if (method === 'wal_delta')
        expect(byId(source).server.output()).not.toMatch(
          new RegExp(`wal_delta of shard 0 of ${name} .* cannot be done`),
        );
      // The copy has the field index too.
      const info = await http(byId(target), 'GET', `/collections/${name}`);
      expect(Object.keys(info.body?.result.payload_schema ?? {})).toContain('tenant');
      await http(peers[0], 'DELETE', `/collections/${name}`);
    },
  );

  // 3 --------------------------------------------------------------------------------------------------
  it('should show a running transfer, abort it mid-way (gRPC) and run it again', async () => {
    const name = `abort-${suffix}`;
    await create(peers[0], name, { vectors: { size: 16, distance: 'Dot' }, shard_number: 1, replication_factor: 1 });
    await upsert(peers[0], name, points(1, 3000));
    const [source] = (await clusterView(peers[0].server, name)).replicas.map((r) => r.peer);
    const target = byId(peers.find((p) => p.id !== source)!.id);
    // Frozen (not dead: well within its lease), the target holds the transfer at its first batch.
    process.kill(target.server.pid, 'SIGSTOP');
    let frozen = true;
    try {
      const started = await http(
        byId(source),
        'POST',
        `/collections/${name}/cluster`,
        `{"replicate_shard":{"shard_id":0,"from_peer_id":${source},"to_peer_id":${target.id}}}`,
      );
      expect(started.status).toBe(200);
      const view = await clusterView(byId(source).server, name);
      expect(view.transfers).toEqual([
        expect.objectContaining({ shard_id: 0, from: source, to: target.id, sync: true, method: 'stream_records' }),
      ]);
      // Qdrant's progress words: the stage and its time, then the records (the copy may be queued already).
      expect(view.transfers[0].comment).toEqual(expect.stringMatching(/^[a-z ]+ \(\d+\.\d\ds\)/));
      expect(view.replicas.find((r) => r.peer === target.id)?.state).toBe('Partial');
      const aborted = await grpcOf(byId(source))
        .api('collections')
        .updateCollectionClusterSetup({
          collectionName: name,
          operation: {
            case: 'abortTransfer',
            value: { shardId: 0, fromPeerId: BigInt(source), toPeerId: BigInt(target.id) },
          },
        });
      expect(aborted.result).toBe(true);
      process.kill(target.server.pid, 'SIGCONT');
      frozen = false;
    } finally {
      if (frozen) process.kill(target.server.pid, 'SIGCONT');
    }
    // Cancelled by the operator: the replica it was making is gone.
    await expectReplicas(name, [[0, source, 'Active']]);
    const again = await http(
      target,
      'POST',
      `/collections/${name}/cluster`,
      `{"replicate_shard":{"shard_id":0,"from_peer_id":${source},"to_peer_id":${target.id}}}`,
    );
    expect(again.status).toBe(200);
    await expectReplicas(name, [
      [0, source, 'Active'],
      [0, target.id, 'Active'],
    ]);
    await expectReplicasEqual(name);
    // An abort of a transfer that is not running: 404, Qdrant's words.
    const missing = await http(
      target,
      'POST',
      `/collections/${name}/cluster`,
      `{"abort_transfer":{"shard_id":0,"from_peer_id":${source},"to_peer_id":${target.id}}}`,
    );
    expect(missing.status).toBe(404);
    expect(missing.body?.status.error).toContain(`Shard transfer ${source} -> ${target.id}`);
  });

  // 4 --------------------------------------------------------------------------------------------------
  const killedTarget = `killed-target-${suffix}`;

  it('should fail a transfer whose target is SIGKILLed mid-way within a bound, the source staying Active', async () => {
    await create(peers[0], killedTarget, {
      vectors: { size: 16, distance: 'Dot' },
      shard_number: 1,
      replication_factor: 1,
    });
    await upsert(peers[0], killedTarget, points(1, 2000));
    const [source] = (await clusterView(peers[0].server, killedTarget)).replicas.map((r) => r.peer);
    // peers[2] is the victim of the rest of the file: the source must be another peer.
    if (source === peers[2].id) {
      const other = peers[0].id;
      await http(
        peers[0],
        'POST',
        `/collections/${killedTarget}/cluster`,
        `{"move_shard":{"shard_id":0,"from_peer_id":${source},"to_peer_id":${other}}}`,
      );
      await expectReplicas(killedTarget, [[0, other, 'Active']]);
    }
    const from = (await clusterView(peers[0].server, killedTarget)).replicas[0].peer;
    const victim = peers[2];
    process.kill(victim.server.pid, 'SIGSTOP');
    const started = await http(
      byId(from),
      'POST',
      `/collections/${killedTarget}/cluster`,
      `{"replicate_shard":{"shard_id":0,"from_peer_id":${from},"to_peer_id":${victim.id}}}`,
    );
    expect(started.status).toBe(200);
    await victim.server.kill();
    down = victim;
    const killedAt = Date.now();
    // Made a moment after the kill (the victim's lease still runs): nothing is placed on the victim.
    const placed = `placed-${suffix}`;
    const made = await http(peers[0], 'PUT', `/collections/${placed}`, {
      vectors: { size: 16, distance: 'Dot' },
      shard_number: 3,
      replication_factor: 1,
    });
    expect(made.status).toBe(200);
    const placement = await clusterView(peers[0].server, placed);
    expect(placement.replicas.map((r) => r.peer)).not.toContain(victim.id);
    expect(placement.replicas).toHaveLength(3);
    await upsert(peers[1], placed, points(1, 30));
    // The leader fails it once the target's lease is gone and the grace passed: the target's replica is Dead.
    await expectReplicas(
      killedTarget,
      [
        [0, from, 'Active'],
        [0, victim.id, 'Dead'],
      ],
      20_000,
    );
    expect(Date.now() - killedAt).toBeLessThan(15_000);
    // The source kept every point and takes writes.
    await upsert(byId(from), killedTarget, points(5000, 10));
    expect(
      (await http(byId(from), 'POST', `/collections/${killedTarget}/points/count`, { exact: true })).body?.result.count,
    ).toBe(2010);
  });

  // 5 --------------------------------------------------------------------------------------------------
  const idle = `idle-${suffix}`;

  it('should mark a gone peer’s replicas Dead after the grace with no writes, and place nothing on it', async () => {
    expect(down).toBeDefined();
    // `idle` was made while all three were up (test 4 made the victim go down after): rf 2 on 3 peers.
    const view = await clusterView(peers[0].server, idle);
    const onVictim = view.replicas.filter((r) => r.peer === down!.id);
    expect(onVictim.length).toBeGreaterThan(0);
    await eventually(15_000, async () => {
      for (const peer of live()) {
        const replicas = (await clusterView(peer.server, idle)).replicas;
        for (const r of replicas.filter((x) => x.peer === down!.id)) expect(r.state).toBe('Dead');
      }
    });
    // Reads still answer every point (the other replica of each shard).
    const count = await http(peers[0], 'POST', `/collections/${idle}/points/count`, { exact: true });
    expect(count.body?.result.count).toBe(300);
  });

  it('should re-replicate a gone peer’s shards onto live peers after VECTORSTORE_AUTO_REPLICATE_AFTER', async () => {
    expect(down).toBeDefined();
    // Every shard gets back to 2 replicas that are Active, on the two live peers.
    await eventually(
      AUTO_REPLICATE_AFTER_S * 1000 + 30_000,
      async () => {
        for (const peer of live()) {
          const replicas = (await clusterView(peer.server, idle)).replicas;
          for (const shard of [0, 1, 2]) {
            const active = replicas.filter((r) => r.shard === shard && r.state === 'Active').map((r) => r.peer);
            expect({ shard, active: active.sort() }).toEqual({
              shard,
              active: live()
                .map((p) => p.id)
                .sort(),
            });
          }
        }
      },
      250,
    );
    await expectReplicasEqual(idle);
  });

  it('should recover the restarted peer’s Dead replicas by itself within 60 s, equal to the others', async () => {
    const back = down!;
    back.server = await back.server.restart();
    down = undefined;
    await eventually(20_000, async () => {
      for (const peer of peers) expect(await livePeerIds(peer.server)).toContain(back.id);
    });
    const restartedAt = Date.now();
    await eventually(
      60_000,
      async () => {
        for (const peer of peers) {
          const view = await clusterView(peer.server, killedTarget);
          expect(view.transfers).toEqual([]);
          expect(view.replicas.every((r) => r.state === 'Active')).toBe(true);
          const idleView = await clusterView(peer.server, idle);
          expect(idleView.transfers).toEqual([]);
          expect(idleView.replicas.every((r) => r.state === 'Active')).toBe(true);
        }
      },
      250,
    );
    expect(Date.now() - restartedAt).toBeLessThan(60_000);
    await expectReplicasEqual(killedTarget);
    await expectReplicasEqual(idle);
    const count = await http(back, 'POST', `/collections/${killedTarget}/points/count?consistency=all`, {
      exact: true,
    });
    expect(count.body?.result.count).toBe(2010);
  });

  // 6 --------------------------------------------------------------------------------------------------
  it('should grow every shard to a replication factor raised by PATCH', async () => {
    const name = `growing-${suffix}`;
    await create(peers[1], name, { vectors: { size: 16, distance: 'Dot' }, shard_number: 2, replication_factor: 1 });
    await upsert(peers[1], name, points(1, 400));
    const patched = await http(peers[0], 'PATCH', `/collections/${name}`, { params: { replication_factor: 3 } });
    expect(patched.status).toBe(200);
    const all = peers.map((p) => p.id);
    await expectReplicas(
      name,
      [0, 1].flatMap((shard) => all.map((id) => [shard, id, 'Active'] as [number, string, string])),
      60_000,
    );
    await expectReplicasEqual(name);
  });

  // 7 --------------------------------------------------------------------------------------------------
  it('should copy one tenant’s points from a shared shard key to its own with replicate_points and a filter', async () => {
    const name = `tenants-${suffix}`;
    await create(peers[0], name, {
      vectors: { size: 16, distance: 'Dot' },
      sharding_method: 'custom',
      replication_factor: 1,
    });
    const sharedKey = await http(
      peers[0],
      'PUT',
      `/collections/${name}/shards`,
      `{"shard_key":"shared","placement":[${peers[0].id}]}`,
    );
    expect(sharedKey.status).toBe(200);
    const own = await http(
      peers[0],
      'PUT',
      `/collections/${name}/shards`,
      `{"shard_key":"tenant-x","placement":[${peers[1].id}]}`,
    );
    expect(own.status).toBe(200);
    const all = points(1, 200).map((p) => ({ ...p }));
    const answer = await http(peers[0], 'PUT', `/collections/${name}/points?wait=true`, {
      points: all,
      shard_key: 'shared',
    });
    expect(answer.status).toBe(200);
    const started = await http(peers[2], 'POST', `/collections/${name}/cluster`, {
      replicate_points: {
        from_shard_key: 'shared',
        to_shard_key: 'tenant-x',
        filter: { must: [{ key: 'tenant', match: { value: 'x' } }] },
      },
    });
    expect({ status: started.status, body: started.body }).toMatchObject({ status: 200 });
    await eventually(30_000, async () => {
      for (const peer of peers) expect((await clusterView(peer.server, name)).transfers).toEqual([]);
    });
    for (const peer of peers) {
      const counted = await http(peer, 'POST', `/collections/${name}/points/count`, {
        exact: true,
        shard_key: 'tenant-x',
      });
      expect(counted.body?.result.count).toBe(100);
      const strangers = await http(peer, 'POST', `/collections/${name}/points/count`, {
        exact: true,
        shard_key: 'tenant-x',
        filter: { must: [{ key: 'tenant', match: { value: 'y' } }] },
      });
      expect(strangers.body?.result.count).toBe(0);
    }
    // The shared key still has everyone.
    const shared = await http(peers[1], 'POST', `/collections/${name}/points/count`, {
      exact: true,
      shard_key: 'shared',
    });
    expect(shared.body?.result.count).toBe(200);
  });

  // Made while all three peers are up (test 4 takes peers[2] down), used by test 5 and after.
  beforeAll(async () => {
    await create(peers[0], idle, { vectors: { size: 16, distance: 'Dot' }, shard_number: 3, replication_factor: 2 });
    await upsert(peers[0], idle, points(1, 300));
  });
});
