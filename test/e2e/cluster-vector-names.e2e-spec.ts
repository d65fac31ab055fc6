// Cluster mode, deleting a vector name (issue 29): three server processes and one etcd on loopback. The delete is
// two phases: the catalog takes the name out of the config and waits for every peer holding a replica to drop its
// vectors durably, then forgets it. Here one peer is killed before the delete, so it misses the first phase and
// drops the vectors when it is back; the name cannot be created again meanwhile; once it is, no old vector comes
// back, not even after that peer restarts (its replicas' checksums equal the others').
import { randomBytes } from 'node:crypto';
import { clusterSecrets, eventually, startClusterPeer } from './support/cluster-harness';
import { clusterView, Json, livePeerIds, localChecksums, peerHttp } from './support/cluster-client';
import { etcdOrSkip, RunningEtcd, startEtcd } from './support/etcd-harness';
import { RunningServer } from './support/server-harness';
import { TcpProxy } from './support/tcp-proxy';

const etcdBin = etcdOrSkip();
const describeWithEtcd = etcdBin ? describe : describe.skip;

jest.setTimeout(90_000);

const COUNT = 600;

interface Peer {
  server: RunningServer;
  proxy: TcpProxy;
}

describeWithEtcd('cluster vector-name deletion (e2e, 3 peers + etcd)', () => {
  let etcd: RunningEtcd;
  const peers: Peer[] = [];
  const shared = clusterSecrets();
  const name = `vn-${randomBytes(3).toString('hex')}`;
  const http = (peer: Peer, method: string, route: string, body?: unknown) =>
    peerHttp(peer.server, method, route, body);

  beforeAll(async () => {
    etcd = await startEtcd(etcdBin!);
    for (let i = 0; i < 3; i++) {
      // A long grace: the killed peer's replicas stay Active (not copied again), so it must drop the vectors itself.
      const { server, proxy } = await startClusterPeer(
        etcd,
        shared,
        { leaseTtlS: 2, etcdTimeoutMs: 1500 },
        { VECTORSTORE_DEAD_GRACE: '120' },
      );
      peers.push({ server, proxy });
    }
    await eventually(15_000, async () => {
      for (const peer of peers) expect(await livePeerIds(peer.server)).toHaveLength(3);
    });
  }, 90_000);

  afterAll(async () => {
    for (const peer of peers) {
      await peer.server.stop();
      await peer.proxy.close();
    }
    await etcd?.stop();
  }, 60_000);

  const withB = async (via: Peer): Promise<number> => {
    const answer = await http(via, 'POST', `/collections/${name}/points/count`, {
      exact: true,
      filter: { must: [{ has_vector: 'b' }] },
    });
    expect(answer.status).toBe(200);
    return Number(answer.body?.result.count);
  };

  it('should drop the vectors on every peer, one killed between the phases, and never bring them back', async () => {
    const created = await http(peers[0], 'PUT', `/collections/${name}`, {
      vectors: { a: { size: 4, distance: 'Dot' }, b: { size: 4, distance: 'Dot' } },
      shard_number: 3,
      replication_factor: 2,
      // Optimized segments too: an immutable segment is written again only for a reason, unlike the active one.
      optimizers_config: { indexing_threshold: 1 },
    });
    expect(created.status).toBe(200);
    await eventually(5000, async () => {
      for (const peer of peers)
        expect((await http(peer, 'GET', `/collections/${name}/exists`)).body?.result.exists).toBe(true);
    });
    const points = Array.from({ length: COUNT }, (_, i) => ({
      id: i + 1,
      vector: { a: [i, 1, 2, 3], b: [1, i, 3, 4] },
      payload: { i },
    }));
    expect((await http(peers[0], 'PUT', `/collections/${name}/points?wait=true`, { points })).status).toBe(200);
    expect(await withB(peers[0])).toBe(COUNT);
    await eventually(
      30_000,
      async () => {
        for (const peer of peers) {
          const info = (await http(peer, 'GET', `/collections/${name}`)).body?.result;
          expect({ status: info.status, indexed: Number(info.indexed_vectors_count) >= COUNT }).toEqual({
            status: 'green',
            indexed: true,
          });
        }
      },
      200,
    );
    // Past a flush (every second): peer 2 has the vectors in its segment files, not only its log, when it dies.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await peers[2].server.kill();
    await eventually(10_000, async () => expect(await livePeerIds(peers[0].server)).toHaveLength(2));

    const deleted = await http(peers[0], 'DELETE', `/collections/${name}/vectors/b?wait=false`);
    expect({ status: deleted.status, body: deleted.body }).toMatchObject({
      status: 200,
      body: { result: { status: 'acknowledged' } },
    });
    // First phase done: the name is gone from the config and from every answer of the live peers.
    for (const peer of peers.slice(0, 2)) {
      // (wait=false: a peer's answer may come from another peer whose watch is a moment behind.)
      await eventually(5000, async () => {
        const info = await http(peer, 'GET', `/collections/${name}`);
        expect(Object.keys(info.body?.result.config.params.vectors as Json)).toEqual(['a']);
        const got = await http(peer, 'POST', `/collections/${name}/points`, { ids: [1, 2, 300], with_vector: true });
        expect((got.body?.result as Json[]).map((p) => Object.keys(p.vector))).toEqual([['a'], ['a'], ['a']]);
      });
    }
    // Second phase waits for peer 2: the name cannot come back yet.
    const early = await http(peers[0], 'PUT', `/collections/${name}/vectors/b`, {
      dense: { size: 4, distance: 'Dot' },
    });
    expect({ status: early.status, error: early.body?.status?.error }).toMatchObject({
      status: 412,
      error: expect.stringContaining('is still being deleted'),
    });

    peers[2].server = await peers[2].server.restart();
    // Back, peer 2 drops the vectors from its files, and the catalog forgets the name: it may be created again.
    await eventually(20_000, async () => {
      const again = await http(peers[0], 'PUT', `/collections/${name}/vectors/b?wait=true`, {
        dense: { size: 4, distance: 'Dot' },
      });
      expect(again.status).toBe(200);
    });
    // A restart loads each segment with the new `b`: an old vector left in peer 2's files would show now.
    await peers[2].server.stop();
    peers[2].server = await peers[2].server.restart();
    await eventually(15_000, async () => expect(await livePeerIds(peers[2].server)).toHaveLength(3));
    for (const peer of peers) expect(await withB(peer)).toBe(0);
    await eventually(10_000, async () => {
      const sums = new Map<number, Set<string>>();
      for (const peer of peers) {
        const view = await clusterView(peer.server, name);
        for (const [shard, sum] of await localChecksums(peer.server, name)) {
          expect(view.replicas.find((r) => r.local && r.shard === shard)?.state).toBe('Active');
          sums.set(shard, (sums.get(shard) ?? new Set()).add(JSON.stringify(sum)));
        }
      }
      expect([...sums.keys()].sort()).toEqual([0, 1, 2]);
      for (const [shard, set] of sums) expect({ shard, distinct: set.size }).toEqual({ shard, distinct: 1 });
    });
  });
});
