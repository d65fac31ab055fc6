// Cluster backups (issue 29, beyond Qdrant): one call backs up every shard of a 3-peer cluster once, from one Active
// replica each, under a steady writer; the archive restores into a new 2-peer cluster (another etcd), its
// placement made anew, with every point acknowledged before the backup began.
import { randomBytes } from 'node:crypto';
import { clusterSecrets, eventually, startClusterPeer } from './support/cluster-harness';
import { clusterView, Json, livePeerIds, peerHttp } from './support/cluster-client';
import { etcdOrSkip, RunningEtcd, startEtcd } from './support/etcd-harness';
import { RunningServer } from './support/server-harness';
import { TcpProxy } from './support/tcp-proxy';

const etcdBin = etcdOrSkip();
const describeWithEtcd = etcdBin ? describe : describe.skip;

jest.setTimeout(90_000);

interface Peer {
  server: RunningServer;
  proxy: TcpProxy;
}

async function startCluster(size: number): Promise<{ etcd: RunningEtcd; peers: Peer[] }> {
  const etcd = await startEtcd(etcdBin!);
  const secrets = clusterSecrets();
  const peers: Peer[] = [];
  for (let i = 0; i < size; i++)
    peers.push(await startClusterPeer(etcd, secrets, { leaseTtlS: 2, etcdTimeoutMs: 1500 }));
  await eventually(15_000, async () => {
    for (const peer of peers) expect(await livePeerIds(peer.server)).toHaveLength(size);
  });
  return { etcd, peers };
}

describeWithEtcd('cluster backups (e2e, 3 peers + etcd, restored into 2 peers + another etcd)', () => {
  const clusters: Array<{ etcd: RunningEtcd; peers: Peer[] }> = [];
  const name = `bk-${randomBytes(3).toString('hex')}`;
  const http = (peer: Peer, method: string, route: string, body?: unknown) =>
    peerHttp(peer.server, method, route, body, 60_000);

  let running = true;

  afterAll(async () => {
    running = false;
    for (const { etcd, peers } of clusters) {
      for (const peer of peers) {
        await peer.server.stop();
        await peer.proxy.close();
      }
      await etcd.stop();
    }
  }, 60_000);

  it('should restore into a 2-peer cluster every point acknowledged before a backup taken under writes', async () => {
    const source = await startCluster(3);
    clusters.push(source);
    const peers = source.peers;
    const created = await http(peers[0], 'PUT', `/collections/${name}`, {
      vectors: { size: 8, distance: 'Cosine' },
      shard_number: 3,
      replication_factor: 2,
    });
    expect(created.status).toBe(200);
    const aliased = await http(peers[0], 'POST', '/collections/aliases', {
      actions: [{ create_alias: { collection_name: name, alias_name: `${name}-alias` } }],
    });
    expect(aliased.status).toBe(200);
    await eventually(5000, async () => {
      for (const peer of peers)
        expect((await http(peer, 'GET', `/collections/${name}/exists`)).body?.result.exists).toBe(true);
    });

    // A writer through every peer in turn: batches of new points, each recorded once acknowledged.
    const acked = new Set<number>();
    const writer = (async () => {
      for (let batch = 0; running; batch++) {
        const ids = Array.from({ length: 20 }, (_, i) => batch * 20 + i + 1);
        const points = ids.map((id) => ({
          id,
          vector: Array.from({ length: 8 }, (_, d) => Math.cos(id + d) + 1.5),
          payload: { id },
        }));
        const answer = await http(peers[batch % 3], 'PUT', `/collections/${name}/points?wait=true`, { points }).catch(
          () => ({ status: 0 }),
        );
        if (answer.status === 200) ids.forEach((id) => acked.add(id));
      }
    })();
    await eventually(10_000, async () => expect(acked.size).toBeGreaterThanOrEqual(400));

    const before = [...acked];
    const backup = await http(peers[1], 'POST', '/backups?wait=true', {});
    expect({ status: backup.status, body: backup.body }).toMatchObject({ status: 200 });
    running = false;
    await writer;
    const backupName = String(backup.body?.result.name);
    expect(backupName).toMatch(/^cluster-backup-.*\.snapshot$/);
    const listed = await http(peers[1], 'GET', '/backups');
    expect((listed.body?.result as Json[]).map((b) => b.name)).toEqual([backupName]);
    // Not a full snapshot: each scope lists its own.
    expect((await http(peers[1], 'GET', '/snapshots')).body?.result).toEqual([]);
    const download = await fetch(`${peers[1].server.httpUrl}/backups/${backupName}`, {
      headers: { 'api-key': peers[1].server.apiKey },
    });
    expect(download.status).toBe(200);
    const archive = Buffer.from(await download.arrayBuffer());

    const target = await startCluster(2);
    clusters.push(target);
    const form = new FormData();
    form.append('snapshot', new Blob([new Uint8Array(archive)]), backupName);
    const restored = await fetch(`${target.peers[0].server.httpUrl}/backups/upload?wait=true`, {
      method: 'POST',
      headers: { 'api-key': target.peers[0].server.apiKey },
      body: form,
    });
    const restoredBody = (await restored.json()) as Json;
    expect({ status: restored.status, body: restoredBody }).toMatchObject({ status: 200, body: { result: [name] } });

    // Placed anew on 2 peers: 3 shards x 2 replicas, every one Active once the copies are made.
    for (const peer of target.peers) {
      await eventually(
        30_000,
        async () => {
          const view = await clusterView(peer.server, name);
          expect(view.shardCount).toBe(3);
          expect(view.replicas.map((r) => r.state)).toEqual(Array(6).fill('Active'));
        },
        200,
      );
      const got = await http(peer, 'POST', `/collections/${name}-alias/points`, { ids: before, with_payload: true });
      expect(got.status).toBe(200);
      const found = new Set((got.body?.result as Json[]).map((p) => Number(p.id)));
      const missing = before.filter((id) => !found.has(id));
      expect({ missing: missing.slice(0, 5), count: missing.length }).toEqual({ missing: [], count: 0 });
    }
  });
});
