// Cluster mode, resharding (issue 29, item 4): three server processes and one etcd on loopback. A collection made in
// cluster mode (a consistent-hash ring) gains a shard and loses one again under a steady writer (new ids, overwrites,
// payload updates by id and deletes, through every peer in turn): no acknowledged write is lost, no deleted point
// comes back, the exact count is right throughout, and growing from 2 shards to 3 moves about a third of the points
// (all into the new shard). A resharding aborted mid-way leaves the collection as it was; one refused up front says
// why.
//
// The tests run in order and share the peers.
import { randomBytes } from 'node:crypto';
import { clusterSecrets, eventually, startClusterPeer } from './support/cluster-harness';
import { Json, livePeerIds, peerHttp } from './support/cluster-client';
import { etcdOrSkip, RunningEtcd, startEtcd } from './support/etcd-harness';
import { RunningServer } from './support/server-harness';
import { TcpProxy } from './support/tcp-proxy';

const etcdBin = etcdOrSkip();
const describeWithEtcd = etcdBin ? describe : describe.skip;

jest.setTimeout(120_000);

interface Peer {
  server: RunningServer;
  proxy: TcpProxy;
  id: string;
}

const PRELOADED = 3000;
const DIM = 8;

describeWithEtcd('cluster resharding (e2e, 3 peers + etcd)', () => {
  let etcd: RunningEtcd;
  const peers: Peer[] = [];
  const shared = clusterSecrets();
  const name = `resharded-${randomBytes(3).toString('hex')}`;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const http = (peer: Peer, method: string, route: string, body?: unknown) =>
    peerHttp(peer.server, method, route, body);
  const vector = (id: number, seq: number) => Array.from({ length: DIM }, (_, d) => Math.sin(id * 7 + d + seq));

  beforeAll(async () => {
    etcd = await startEtcd(etcdBin!);
    for (let i = 0; i < 3; i++) {
      const { server, proxy } = await startClusterPeer(etcd, shared, { leaseTtlS: 2, etcdTimeoutMs: 1500 });
      peers.push({ server, proxy, id: '' });
    }
    await eventually(15_000, async () => {
      for (const peer of peers) expect(await livePeerIds(peer.server)).toHaveLength(3);
    });
    for (const peer of peers) peer.id = String((await http(peer, 'GET', '/cluster')).body?.result.peer_id);
  }, 120_000);

  afterAll(async () => {
    for (const peer of peers) {
      await peer.server.stop();
      await peer.proxy.close();
    }
    await etcd?.stop();
  }, 60_000);

  /** What the writer was told and what it sent: for each id, its last acknowledged and last sent state. */
  const model = {
    /** id → seq of the last acknowledged upsert (0: preloaded). */
    acked: new Map<number, number>(),
    sent: new Map<number, number>(),
    /** id → mark of the last acknowledged payload update; ids whose delete was acknowledged. */
    marked: new Map<number, number>(),
    markSent: new Map<number, number>(),
    deleted: new Set<number>(),
    deleteSent: new Set<number>(),
  };
  let nextNewId = 100_000;
  let nextDelete = 1;
  /** One sequence over every writer run, so the last write to an id always has the highest number. */
  let nextSeq = 1;

  /** A steady writer through the peers in turn: new ids, overwrites, payload updates by id and deletes. */
  function startWriter() {
    let running = true;
    let errors = 0;
    let lastError = '';
    const done = (async () => {
      for (let i = 0; running; i++) {
        const seq = nextSeq++;
        const peer = peers[i % peers.length];
        const kind = i % 5;
        let answer: { status: number; body?: Json };
        const record = (ok: boolean) => {
          if (!ok) {
            errors++;
            lastError = JSON.stringify(answer.body ?? answer.status).slice(0, 200);
          }
        };
        if (kind === 0 || kind === 1) {
          // a new point, or an overwrite of a preloaded one
          const id = kind === 0 ? nextNewId++ : PRELOADED - (i % 1000);
          if (model.deleteSent.has(id)) continue;
          model.sent.set(id, seq);
          answer = await http(peer, 'PUT', `/collections/${name}/points?wait=true`, {
            points: [{ id, vector: vector(id, seq), payload: { seq } }],
          }).catch(() => ({ status: 0 }));
          record(answer.status === 200);
          if (answer.status === 200) model.acked.set(id, seq);
        } else if (kind === 2 || kind === 3) {
          const id = 1000 + ((i * 7) % 1000);
          model.markSent.set(id, seq);
          answer = await http(peer, 'POST', `/collections/${name}/points/payload?wait=true`, {
            payload: { mark: seq },
            points: [id],
          }).catch(() => ({ status: 0 }));
          record(answer.status === 200);
          if (answer.status === 200) model.marked.set(id, seq);
        } else {
          const id = nextDelete++;
          model.deleteSent.add(id);
          answer = await http(peer, 'POST', `/collections/${name}/points/delete?wait=true`, {
            points: [id],
          }).catch(() => ({ status: 0 }));
          record(answer.status === 200);
          if (answer.status === 200) model.deleted.add(id);
        }
        await sleep(2);
      }
    })();
    return {
      get errors() {
        return { errors, lastError };
      },
      async stop() {
        running = false;
        await done;
      },
    };
  }

  /** Every peer reads every point as the writer left it, and the exact count matches. */
  async function expectWritesKept(where: string): Promise<void> {
    const ids = [...new Set([...model.acked.keys(), ...model.marked.keys(), ...model.deleteSent])];
    for (const peer of peers) {
      const answer = await http(peer, 'POST', `/collections/${name}/points`, { ids, with_payload: true });
      expect(answer.status).toBe(200);
      const read = new Map((answer.body?.result as Json[]).map((p) => [Number(p.id), p.payload as Json]));
      const wrong: string[] = [];
      for (const id of ids) {
        const payload = read.get(id);
        if (model.deleted.has(id)) {
          if (payload !== undefined) wrong.push(`${id} deleted but read`);
          continue;
        }
        if (model.deleteSent.has(id)) continue; // a delete that failed may or may not have happened
        if (payload === undefined) {
          wrong.push(`${id} missing`);
          continue;
        }
        const seq = Number(payload.seq);
        if (model.acked.has(id) && (seq < model.acked.get(id)! || seq > model.sent.get(id)!))
          wrong.push(`${id} seq ${seq}, acked ${model.acked.get(id)}`);
        const mark = payload.mark === undefined ? undefined : Number(payload.mark);
        if (
          model.marked.has(id) &&
          (mark === undefined || mark < model.marked.get(id)! || mark > model.markSent.get(id)!)
        )
          wrong.push(`${id} mark ${mark}, acked ${model.marked.get(id)}`);
      }
      expect({ where, via: peer.id, wrong: wrong.slice(0, 8), count: wrong.length }).toEqual({
        where,
        via: peer.id,
        wrong: [],
        count: 0,
      });
      // Every point once: a copy left behind (or read twice) would show here.
      const newIds = [...model.acked.keys()].filter((id) => id >= 100_000).length;
      const expected = PRELOADED + newIds - model.deleted.size;
      const unsure = model.deleteSent.size - model.deleted.size + (model.sent.size - model.acked.size);
      const count = await http(peer, 'POST', `/collections/${name}/points/count`, { exact: true });
      expect(count.status).toBe(200);
      const counted = Number(count.body?.result.count);
      expect({ where, via: peer.id, counted: Math.abs(counted - expected) <= unsure }).toEqual({
        where,
        via: peer.id,
        counted: true,
      });
    }
  }

  /** Points per shard id, over every peer's local shards. */
  async function pointsByShard(): Promise<Map<number, number>> {
    const counts = new Map<number, number>();
    for (const peer of peers) {
      const info = (await http(peer, 'GET', `/collections/${name}/cluster`)).body?.result;
      for (const shard of info.local_shards as Json[])
        counts.set(shard.shard_id, (counts.get(shard.shard_id) ?? 0) + Number(shard.points_count));
    }
    return counts;
  }

  async function reshardAndWait(body: string, shardNumber: number): Promise<Json[]> {
    const started = await http(peers[1], 'POST', `/collections/${name}/cluster`, body);
    expect({ status: started.status, body: started.body }).toMatchObject({ status: 200, body: { result: true } });
    const seen: Json[] = [];
    await eventually(
      60_000,
      async () => {
        const info = (await http(peers[0], 'GET', `/collections/${name}/cluster`)).body?.result;
        if (info.resharding_operations) seen.push(...info.resharding_operations);
        expect(info.resharding_operations).toBeUndefined();
        for (const peer of peers) {
          const config = (await http(peer, 'GET', `/collections/${name}`)).body?.result.config.params;
          expect(config.shard_number).toBe(shardNumber);
        }
      },
      200,
    );
    return seen;
  }

  it('should refuse a scale-down below two shards, a shard key without custom sharding and an abort of nothing', async () => {
    const one = `one-${name}`;
    expect(
      (await http(peers[0], 'PUT', `/collections/${one}`, { vectors: { size: DIM, distance: 'Dot' }, shard_number: 1 }))
        .status,
    ).toBe(200);
    await eventually(5000, async () => {
      for (const peer of peers)
        expect((await http(peer, 'GET', `/collections/${one}/exists`)).body?.result.exists).toBe(true);
    });
    const down = await http(peers[0], 'POST', `/collections/${one}/cluster`, {
      start_resharding: { direction: 'down' },
    });
    expect(down.status).toBe(400);
    expect(down.body?.status.error).toMatch(/resharding down needs at least 2/);
    const badKey = await http(peers[0], 'POST', `/collections/${one}/cluster`, {
      start_resharding: { direction: 'up', shard_key: 'x' },
    });
    expect(badKey.status).toBe(400);
    expect(badKey.body?.status.error).toMatch(/shard_key is only valid for a collection with custom sharding/);
    const noRun = await http(peers[0], 'POST', `/collections/${one}/cluster`, { abort_resharding: {} });
    expect(noRun.status).toBe(400);
    expect(noRun.body?.status.error).toMatch(/no resharding in progress/);
    expect((await http(peers[0], 'DELETE', `/collections/${one}`)).status).toBe(200);
  });

  it('should add a shard under a steady writer, moving about a third of the points into it and losing none', async () => {
    const created = await http(peers[0], 'PUT', `/collections/${name}`, {
      vectors: { size: DIM, distance: 'Dot' },
      shard_number: 2,
    });
    expect(created.status).toBe(200);
    await eventually(5000, async () => {
      for (const peer of peers)
        expect((await http(peer, 'GET', `/collections/${name}/exists`)).body?.result.exists).toBe(true);
    });
    for (let from = 1; from <= PRELOADED; from += 500) {
      const points = Array.from({ length: 500 }, (_, i) => ({
        id: from + i,
        vector: vector(from + i, 0),
        payload: { seq: 0 },
      }));
      expect((await http(peers[0], 'PUT', `/collections/${name}/points?wait=true`, { points })).status).toBe(200);
      for (const point of points) {
        model.acked.set(point.id, 0);
        model.sent.set(point.id, 0);
      }
    }
    const before = await pointsByShard();
    expect([...before.keys()].sort()).toEqual([0, 1]);

    const writer = startWriter();
    await sleep(500);
    // The peer id as a raw JSON number (u64, beyond 2^53).
    const seen = await reshardAndWait(`{"start_resharding":{"direction":"up","peer_id":${peers[2].id}}}`, 3);
    await sleep(500);
    await writer.stop();
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0]).toMatchObject({ direction: 'up', shard_id: 2 });
    expect(String(seen[0].peer_id)).toBe(peers[2].id);
    expect(writer.errors).toEqual({ errors: 0, lastError: '' });
    await expectWritesKept('after resharding up');

    const after = await pointsByShard();
    const total = [...after.values()].reduce((a, b) => a + b, 0);
    const moved = (after.get(2) ?? 0) / total;
    // A consistent-hash ring of 100 points per shard: the new shard's share is near 1/3.
    expect({ moved: moved > 0.22 && moved < 0.45, share: moved }).toMatchObject({ moved: true });
    // The old shards only lost points (to the new one).
    for (const shard of [0, 1]) expect(after.get(shard)!).toBeLessThan(before.get(shard)! + 2000);
  });

  it('should give a resharding up up when aborted, keeping every point', async () => {
    const started = await http(peers[0], 'POST', `/collections/${name}/cluster`, {
      start_resharding: { direction: 'up' },
    });
    expect(started.status).toBe(200);
    const again = await http(peers[0], 'POST', `/collections/${name}/cluster`, {
      start_resharding: { direction: 'down' },
    });
    expect(again.status).toBe(400);
    expect(again.body?.status.error).toMatch(/resharding is already in progress/);
    const aborted = await http(peers[1], 'POST', `/collections/${name}/cluster`, { abort_resharding: {} });
    expect(aborted.status).toBe(200);
    await eventually(10_000, async () => {
      for (const peer of peers) {
        const info = (await http(peer, 'GET', `/collections/${name}/cluster`)).body?.result;
        expect(info.resharding_operations).toBeUndefined();
        expect(info.shard_count).toBe(3);
      }
    });
    await expectWritesKept('after an aborted resharding');
  });

  it('should remove a shard under a steady writer, losing no point', async () => {
    const writer = startWriter();
    await sleep(500);
    const seen = await reshardAndWait(JSON.stringify({ start_resharding: { direction: 'down' } }), 2);
    await sleep(500);
    await writer.stop();
    expect(seen[0]).toMatchObject({ direction: 'down', shard_id: 2 });
    expect(writer.errors).toEqual({ errors: 0, lastError: '' });
    await expectWritesKept('after resharding down');
    const after = await pointsByShard();
    expect([...after.keys()].sort()).toEqual([0, 1]);
  });
});
