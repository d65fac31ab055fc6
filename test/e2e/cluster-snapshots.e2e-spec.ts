// Cluster mode, snapshots (issue 29): three server processes and one etcd on loopback. A peer's collection snapshot
// holds its own shards and restores them; shard snapshots are taken and recovered on a peer holding the shard, and
// the recovery's `priority` decides, as in Qdrant, which side the other replicas follow (`snapshot`: theirs are
// copied again from the recovered one; `replica`: the recovered one is copied again from them; `no_sync`: nothing).
//
// The tests run in order on one collection of 3 shards x 2 replicas. Shards are compared by checksum
// (`GET /collections/{c}/cluster?checksum=true`: live points and an order-free digest of their content).
import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import { clusterSecrets, eventually, startClusterPeer } from './support/cluster-harness';
import { clusterView, Json, livePeerIds, localChecksums, peerHttp } from './support/cluster-client';
import { etcdOrSkip, RunningEtcd, startEtcd } from './support/etcd-harness';
import { RunningServer } from './support/server-harness';
import { TcpProxy } from './support/tcp-proxy';

const etcdBin = etcdOrSkip();
const describeWithEtcd = etcdBin ? describe : describe.skip;

jest.setTimeout(60_000);

interface Peer {
  server: RunningServer;
  proxy: TcpProxy;
  id: string;
}

describeWithEtcd('cluster snapshots (e2e, 3 peers + etcd)', () => {
  let etcd: RunningEtcd;
  const peers: Peer[] = [];
  const shared = clusterSecrets();
  const name = `snaps-${randomBytes(3).toString('hex')}`;
  const http = (peer: Peer, method: string, route: string, body?: unknown) =>
    peerHttp(peer.server, method, route, body);

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
    const created = await http(peers[0], 'PUT', `/collections/${name}`, {
      vectors: { size: 8, distance: 'Cosine' },
      shard_number: 3,
      replication_factor: 2,
    });
    expect(created.status).toBe(200);
    await eventually(5000, async () => {
      for (const peer of peers)
        expect((await http(peer, 'GET', `/collections/${name}/exists`)).body?.result.exists).toBe(true);
    });
    await writeAll(0);
  }, 90_000);

  afterAll(async () => {
    for (const peer of peers) {
      await peer.server.stop();
      await peer.proxy.close();
    }
    await etcd?.stop();
  }, 60_000);

  /** Points 1..60 with payload `{ v }` (a new `v` changes every shard's checksum). */
  async function writeAll(v: number): Promise<void> {
    const points = Array.from({ length: 60 }, (_, i) => ({
      id: i + 1,
      vector: Array.from({ length: 8 }, (_, d) => Math.sin(i * 3 + d) + 2),
      payload: { v },
    }));
    const answer = await http(peers[1], 'PUT', `/collections/${name}/points?wait=true`, { points });
    expect({ status: answer.status, body: answer.body }).toMatchObject({ status: 200 });
  }

  /** Each shard's checksum on each peer holding it, with the replica's state: `${shard}/${peer}` -> [state, sum]. */
  async function replicas(): Promise<Map<string, [string, string]>> {
    const all = new Map<string, [string, string]>();
    for (const peer of peers) {
      const view = await clusterView(peer.server, name);
      for (const [shard, sum] of await localChecksums(peer.server, name)) {
        const state = view.replicas.find((r) => r.local && r.shard === shard)?.state ?? '?';
        all.set(`${shard}/${peer.id}`, [state, JSON.stringify(sum)]);
      }
    }
    return all;
  }

  /** The one checksum all replicas of `shard` hold, once every replica of it is Active and equal. */
  async function settledSum(shard: number, ms = 20_000): Promise<string> {
    return eventually(
      ms,
      async () => {
        const of = [...(await replicas())].filter(([key]) => key.startsWith(`${shard}/`));
        expect(of).toHaveLength(2);
        expect(of.map(([, [state]]) => state)).toEqual(['Active', 'Active']);
        expect(of[0][1][1]).toBe(of[1][1][1]);
        return of[0][1][1];
      },
      100,
    );
  }

  const localShards = async (peer: Peer) =>
    (await clusterView(peer.server, name)).replicas.filter((r) => r.local).map((r) => r.shard);

  it("should snapshot a peer's own shards and restore them, the other replicas following the snapshot", async () => {
    const mine = await localShards(peers[0]);
    expect(mine).toHaveLength(2);
    const other = [0, 1, 2].find((shard) => !mine.includes(shard))!;
    const before = new Map(await Promise.all(mine.map(async (s) => [s, await settledSum(s)] as const)));

    const created = await http(peers[0], 'POST', `/collections/${name}/snapshots?wait=true`);
    expect({ status: created.status, body: created.body }).toMatchObject({ status: 200 });
    const snapshot = String(created.body?.result.name);
    const listed = await http(peers[0], 'GET', `/collections/${name}/snapshots`);
    expect((listed.body?.result as Json[]).map((s) => s.name)).toContain(snapshot);

    await writeAll(1);
    const otherAfterWrite = await settledSum(other);
    const location = `file://${path.join(peers[0].server.dataDir, 'snapshots', name, snapshot)}`;
    const recovered = await http(peers[0], 'PUT', `/collections/${name}/snapshots/recover?wait=true`, { location });
    expect({ status: recovered.status, body: recovered.body }).toMatchObject({ status: 200, body: { result: true } });

    // Default priority `snapshot`: the other replicas of peer 0's shards are copied again from it.
    for (const shard of mine) expect(await settledSum(shard)).toBe(before.get(shard));
    expect(await settledSum(other)).toBe(otherAfterWrite);
  });

  it('should take, list, download and refuse shard snapshots as Qdrant does on a cluster peer', async () => {
    const shard = (await localShards(peers[0]))[0];
    let stranger: Peer | undefined;
    for (const peer of peers) if (!(await localShards(peer)).includes(shard)) stranger = peer;
    const created = await http(peers[0], 'POST', `/collections/${name}/shards/${shard}/snapshots?wait=true`);
    expect(created.status).toBe(200);
    const snapshot = String(created.body?.result.name);
    const listed = await http(peers[0], 'GET', `/collections/${name}/shards/${shard}/snapshots`);
    expect((listed.body?.result as Json[]).map((s) => s.name)).toEqual([snapshot]);
    const download = await fetch(
      `${peers[0].server.httpUrl}/collections/${name}/shards/${shard}/snapshots/${snapshot}`,
      { headers: { 'api-key': peers[0].server.apiKey } },
    );
    expect(download.status).toBe(200);
    expect((await download.arrayBuffer()).byteLength).toBeGreaterThan(1024);
    expect(stranger).toBeDefined();
    {
      const refused = await http(stranger!, 'POST', `/collections/${name}/shards/${shard}/snapshots`);
      expect({ status: refused.status, error: refused.body?.status?.error }).toEqual({
        status: 400,
        error: `Bad request: Shard ${shard} is not a local shard`,
      });
    }
  });

  it.each([
    ['no_sync', 'the recovered replica holds the snapshot, the other keeps its points'],
    ['snapshot', 'the other replica is copied again from the recovered one'],
    ['replica', 'the recovered replica is copied again from the other'],
  ])('should recover a shard snapshot with priority %s: %s', async (priority) => {
    const shard = (await localShards(peers[0]))[0];
    const snapshotSum = await settledSum(shard);
    const created = await http(peers[0], 'POST', `/collections/${name}/shards/${shard}/snapshots?wait=true`);
    expect(created.status).toBe(200);
    const snapshot = String(created.body?.result.name);
    await writeAll(10 + ['no_sync', 'snapshot', 'replica'].indexOf(priority));
    const writtenSum = await settledSum(shard);
    expect(writtenSum).not.toBe(snapshotSum);

    const location = `file://${path.join(peers[0].server.dataDir, 'snapshots', name, 'shards', String(shard), snapshot)}`;
    const recovered = await http(peers[0], 'PUT', `/collections/${name}/shards/${shard}/snapshots/recover?wait=true`, {
      location,
      priority,
    });
    expect({ status: recovered.status, body: recovered.body }).toMatchObject({ status: 200, body: { result: true } });

    if (priority === 'no_sync') {
      const of = [...(await replicas())].filter(([key]) => key.startsWith(`${shard}/`));
      const sums = new Map(of.map(([key, [, sum]]) => [key.split('/')[1], sum]));
      expect(of.map(([, [state]]) => state)).toEqual(['Active', 'Active']);
      expect(sums.get(peers[0].id)).toBe(snapshotSum);
      expect([...sums.values()].filter((sum) => sum === writtenSum)).toHaveLength(1);
      // Put the replicas back in step for the next case (Qdrant leaves that to the operator).
      const again = await http(peers[0], 'PUT', `/collections/${name}/shards/${shard}/snapshots/recover?wait=true`, {
        location,
        priority: 'snapshot',
      });
      expect(again.status).toBe(200);
      expect(await settledSum(shard)).toBe(snapshotSum);
    } else {
      expect(await settledSum(shard)).toBe(priority === 'snapshot' ? snapshotSum : writtenSum);
    }
  });
});
