// Cluster mode, first stage: three server processes and one etcd on loopback. The catalog is shared
// through etcd, peers see each other, a peer cut from etcd fences itself, and a stopped etcd leaves
// reads working while metadata changes fail in bounded time.
import * as grpc from '@grpc/grpc-js';
import { nodeMajor, peerCredential } from '@vectorstore/cluster';
import { randomBytes } from 'node:crypto';
import { loadPeerProto } from '../../apps/server/src/cluster/p2p/peer-proto';
import { etcdOrSkip, RunningEtcd, startEtcd } from './support/etcd-harness';
import { RunningServer } from './support/server-harness';
import { TcpProxy } from './support/tcp-proxy';
import { clusterSecrets, eventually, startClusterPeer } from './support/cluster-harness';

const { QdrantClient } = require('@qdrant/js-client-rest') as typeof import('@qdrant/js-client-rest');
const GrpcClient = (require('@qdrant/js-client-grpc') as typeof import('@qdrant/js-client-grpc')).QdrantClient;

const LEASE_TTL_S = 2;
const ETCD_TIMEOUT_MS = 1500;
const etcdBin = etcdOrSkip();
const describeWithEtcd = etcdBin ? describe : describe.skip;

interface Peer {
  server: RunningServer;
  /** This peer's own path to etcd, so that one peer alone can be cut off. */
  proxy: TcpProxy;
}

describeWithEtcd('cluster mode on etcd: catalog, peers, fencing (e2e, 3 peers + etcd)', () => {
  let etcd: RunningEtcd;
  const peers: Peer[] = [];
  const shared = clusterSecrets();

  const rest = (peer: Peer) =>
    new QdrantClient({ url: peer.server.httpUrl, apiKey: peer.server.apiKey, checkCompatibility: false });

  // Answers are read field by field, as the assertions need them.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies of several shapes
  type Json = Record<string, any>;

  async function http(peer: Peer, method: string, route: string, body?: unknown) {
    const response = await fetch(`${peer.server.httpUrl}${route}`, {
      method,
      headers: { 'api-key': peer.server.apiKey, 'content-type': 'application/json' },
      // A string is sent as is: JSON with u64 peer ids beyond 2^53.
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    // Peer ids are u64: keep big integers exact as strings.
    const exact = text.replace(/([:[,]\s*)(\d{16,})(?=\s*[,}\]])/g, '$1"$2"');
    return { status: response.status, body: exact ? (JSON.parse(exact) as Json) : undefined };
  }

  async function startPeer(): Promise<Peer> {
    const { server, proxy } = await startClusterPeer(etcd, shared, {
      leaseTtlS: LEASE_TTL_S,
      etcdTimeoutMs: ETCD_TIMEOUT_MS,
    });
    return { server, proxy };
  }

  async function peerIds(peer: Peer): Promise<string[]> {
    const { body } = await http(peer, 'GET', '/cluster');
    return Object.keys(body?.result.peers ?? {}).sort();
  }

  beforeAll(async () => {
    etcd = await startEtcd(etcdBin!);
    for (let i = 0; i < 3; i++) peers.push(await startPeer());
    // A peer joins once its app is up: wait until every peer sees all three.
    await eventually(15_000, async () => {
      for (const peer of peers) expect(await peerIds(peer)).toHaveLength(3);
    });
  }, 120_000);

  afterAll(async () => {
    for (const peer of peers) {
      await peer.server.stop();
      await peer.proxy.close();
    }
    await etcd?.stop();
  }, 60_000);

  it('should show the same three peers and one leader on every peer', async () => {
    // A leader change (a lease lost while three servers start on two cores) settles within a few seconds.
    await eventually(10_000, async () => {
      const views = await Promise.all(peers.map((peer) => http(peer, 'GET', '/cluster')));
      const ids = await peerIds(peers[0]);
      const leaders = new Set(views.map((view) => String(view.body?.result.raft_info.leader)));
      expect(leaders.size).toBe(1);
      expect(ids).toContain([...leaders][0]);
      for (const view of views) {
        expect(view.body?.result.status).toBe('enabled');
        expect(Object.keys(view.body?.result.peers).sort()).toEqual(ids);
        expect(ids).toContain(String(view.body?.result.peer_id));
        expect(view.body?.result.consensus_thread_status.consensus_thread_status).toBe('working');
      }
      expect(views.filter((view) => view.body?.result.raft_info.role === 'Leader')).toHaveLength(1);
    });
  });

  describe('the internal peer service', () => {
    const proto = loadPeerProto();
    const call = (peer: Peer, metadata: grpc.Metadata, clusterName = 'default') => {
      const client = new proto.vectorstore.internal.Peer(
        `127.0.0.1:${peer.server.env.VECTORSTORE_P2P_PORT}`,
        grpc.credentials.createInsecure(),
      );
      const from = { clusterName, peerId: '42', incarnation: 'test', version: '1.19.0', nodeMajor: nodeMajor() };
      return new Promise<{ code: number; details?: string; revision?: string }>((resolve) =>
        client.Hello({ from }, metadata, { deadline: Date.now() + 5000 }, (error, reply) => {
          client.close();
          resolve(
            error
              ? { code: error.code, details: error.details }
              : { code: 0, revision: String(reply?.catalogRevision) },
          );
        }),
      );
    };
    const signed = (secret: string) => {
      const credential = peerCredential(secret, '42', 'test');
      const metadata = new grpc.Metadata();
      metadata.set('x-vs-peer', credential.peerId);
      metadata.set('x-vs-incarnation', credential.incarnation);
      metadata.set('authorization', credential.authorization);
      return metadata;
    };

    it('should let the peers reach each other (no send failures)', async () => {
      await eventually(10_000, async () => {
        for (const peer of peers) {
          const { body } = await http(peer, 'GET', '/cluster');
          expect(body?.result.message_send_failures).toEqual({});
        }
      });
    });

    it('should refuse client credentials and forged signatures, and answer a signed Hello', async () => {
      const apiKey = new grpc.Metadata();
      apiKey.set('api-key', peers[0].server.apiKey);
      expect((await call(peers[0], apiKey)).code).toBe(grpc.status.UNAUTHENTICATED);
      expect((await call(peers[0], signed('x'.repeat(32)))).code).toBe(grpc.status.UNAUTHENTICATED);

      const answer = await call(peers[0], signed(shared.VECTORSTORE_CLUSTER_SECRET));
      expect(answer.code).toBe(0);
      expect(Number(answer.revision)).toBeGreaterThan(0);

      const foreign = await call(peers[0], signed(shared.VECTORSTORE_CLUSTER_SECRET), 'another');
      expect(foreign.code).toBe(grpc.status.FAILED_PRECONDITION);
      expect(foreign.details).toContain('belongs to cluster "another"');
    });

    it('should not serve the public API on the peer port', async () => {
      const response = await fetch(`http://127.0.0.1:${peers[1].server.env.VECTORSTORE_P2P_PORT}/collections`).catch(
        (error: unknown) => error,
      );
      expect(response instanceof Response && response.ok).toBe(false);
    });

    it('should count failed calls to a peer that stopped answering, and clear them once it answers', async () => {
      const frozen = peers[2];
      const uri = `http://127.0.0.1:${frozen.server.env.VECTORSTORE_P2P_PORT}`;
      process.kill(frozen.server.pid, 'SIGSTOP');
      try {
        await eventually(15_000, async () => {
          const { body } = await http(peers[0], 'GET', '/cluster');
          expect(body?.result.message_send_failures[uri]?.count).toBeGreaterThanOrEqual(1);
          expect(typeof body?.result.message_send_failures[uri]?.latest_error).toBe('string');
        });
      } finally {
        process.kill(frozen.server.pid, 'SIGCONT');
      }
      await eventually(20_000, async () => {
        const { body } = await http(peers[0], 'GET', '/cluster');
        expect(Object.keys(body?.result.peers)).toHaveLength(3);
        expect(body?.result.message_send_failures).toEqual({});
      });
    }, 60_000);
  });

  it('should make a collection created on one peer visible on the others within 1 s', async () => {
    const name = `shared-${randomBytes(4).toString('hex')}`;
    await rest(peers[0]).createCollection(name, { vectors: { size: 4, distance: 'Cosine' } });
    const created = Date.now();
    await eventually(1000, async () => {
      for (const peer of peers.slice(1)) expect((await rest(peer).collectionExists(name)).exists).toBe(true);
    });
    expect(Date.now() - created).toBeLessThanOrEqual(1000);
    const info = await rest(peers[2]).getCollection(name);
    expect(info.config.params.vectors).toEqual({ size: 4, distance: 'Cosine' });

    // Over gRPC too, through the official client, on another peer.
    const grpcClient = new GrpcClient({
      host: '127.0.0.1',
      port: peers[1].server.grpcPort,
      https: false,
      apiKey: peers[1].server.apiKey,
      checkCompatibility: false,
    });
    const listed = await grpcClient.api('collections').list({});
    expect(listed.collections.map((c) => c.name)).toContain(name);

    await rest(peers[1]).deleteCollection(name);
    await eventually(1000, async () => {
      for (const peer of peers) expect((await rest(peer).collectionExists(name)).exists).toBe(false);
    });
  });

  it('should place one shard per live peer by default and show local and remote shards on each peer', async () => {
    const name = `placed-${randomBytes(4).toString('hex')}`;
    await rest(peers[0]).createCollection(name, { vectors: { size: 4, distance: 'Dot' } });
    const ids = await peerIds(peers[0]);
    await eventually(1000, async () => {
      for (const peer of peers) expect((await rest(peer).collectionExists(name)).exists).toBe(true);
    });
    const owners = new Map<number, string>();
    for (const peer of peers) {
      const { body } = await http(peer, 'GET', `/collections/${name}/cluster`);
      const info = body?.result;
      expect(info.shard_count).toBe(3);
      expect(info.local_shards).toHaveLength(1);
      expect(info.local_shards[0].state).toBe('Active');
      expect(info.remote_shards).toHaveLength(2);
      owners.set(info.local_shards[0].shard_id, String(info.peer_id));
      for (const remote of info.remote_shards) {
        expect(remote.state).toBe('Active');
        expect(String(remote.peer_id)).not.toBe(String(info.peer_id));
      }
    }
    expect([...owners.keys()].sort()).toEqual([0, 1, 2]);
    expect([...owners.values()].sort()).toEqual(ids);

    // The same over gRPC, through the official client.
    const grpcClient = new GrpcClient({
      host: '127.0.0.1',
      port: peers[2].server.grpcPort,
      https: false,
      apiKey: peers[2].server.apiKey,
      checkCompatibility: false,
    });
    const viaGrpc = await grpcClient.api('collections').collectionClusterInfo({ collectionName: name });
    expect(viaGrpc.localShards).toHaveLength(1);
    expect(viaGrpc.remoteShards.map((shard) => String(shard.peerId)).sort()).toEqual(
      ids.filter((id) => id !== String(viaGrpc.peerId)),
    );
    await rest(peers[0]).deleteCollection(name);
  });

  it('should place a shard key on the peers its placement names, and refuse unknown peers', async () => {
    const name = `keyed-${randomBytes(4).toString('hex')}`;
    await rest(peers[1]).createCollection(name, {
      vectors: { size: 4, distance: 'Dot' },
      sharding_method: 'custom',
      shard_number: 2,
    });
    const target = String((await http(peers[2], 'GET', '/cluster')).body?.result.peer_id);
    await eventually(1000, async () => expect((await rest(peers[0]).collectionExists(name)).exists).toBe(true));
    const created = await http(
      peers[0],
      'PUT',
      `/collections/${name}/shards`,
      `{"shard_key":"tenant-a","placement":[${target}]}`,
    );
    expect(created.status).toBe(200);
    await eventually(1000, async () => {
      const { body } = await http(peers[2], 'GET', `/collections/${name}/cluster`);
      expect(body?.result.local_shards.map((shard: Json) => shard.shard_key)).toEqual(['tenant-a', 'tenant-a']);
      expect(body?.result.remote_shards).toEqual([]);
    });
    const refused = await http(peers[0], 'PUT', `/collections/${name}/shards`, {
      shard_key: 'tenant-b',
      placement: [7],
    });
    expect(refused.status).toBe(400);
    expect(refused.body?.status.error).toContain('not live members of the cluster: 7');
    await rest(peers[0]).deleteCollection(name);
  });

  it('should let exactly one of three peers create the same collection at once', async () => {
    const name = `race-${randomBytes(4).toString('hex')}`;
    const body = { vectors: { size: 8, distance: 'Dot' } };
    const answers = await Promise.all([
      http(peers[0], 'PUT', `/collections/${name}`, body),
      http(peers[1], 'PUT', `/collections/${name}`, body),
      http(peers[2], 'PUT', `/collections/${name}`, body),
    ]);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    for (const failed of answers.filter((a) => a.status !== 200)) {
      expect(failed.status).toBe(409);
      expect(failed.body?.status.error).toContain('already exists');
    }
    await rest(peers[0]).deleteCollection(name);
  });

  it('should share aliases and apply an alias change atomically across peers', async () => {
    const name = `aliased-${randomBytes(4).toString('hex')}`;
    await rest(peers[2]).createCollection(name, { vectors: { size: 4, distance: 'Dot' } });
    await rest(peers[2]).updateCollectionAliases({
      actions: [{ create_alias: { collection_name: name, alias_name: `${name}-a` } }],
    });
    await eventually(1000, async () => {
      const { aliases } = await rest(peers[0]).getCollectionAliases(name);
      expect(aliases).toEqual([{ alias_name: `${name}-a`, collection_name: name }]);
    });
    await rest(peers[1]).deleteCollection(name);
    await eventually(1000, async () =>
      expect((await rest(peers[0]).getAliases()).aliases).not.toContainEqual(
        expect.objectContaining({ collection_name: name }),
      ),
    );
  });

  it('should route points written through any peer to their shards and read them back through every peer', async () => {
    const name = `points-${randomBytes(4).toString('hex')}`;
    await rest(peers[0]).createCollection(name, { vectors: { size: 2, distance: 'Dot' }, shard_number: 3 });
    await eventually(1000, async () => expect((await rest(peers[1]).collectionExists(name)).exists).toBe(true));
    const points = Array.from({ length: 30 }, (_, i) => ({ id: i + 1, vector: [1, i / 30], payload: { i } }));
    for (const [k, peer] of peers.entries()) {
      const upsert = await http(peer, 'PUT', `/collections/${name}/points?wait=true`, {
        points: points.filter((_, i) => i % 3 === k),
      });
      expect(upsert.status).toBe(200);
    }
    // Each peer holds one shard, and only its own points.
    const info = (await http(peers[0], 'GET', `/collections/${name}/cluster`)).body?.result;
    expect(info.local_shards.length + info.remote_shards.length).toBe(3);
    for (const peer of peers) {
      // Collection info counts every peer's shards.
      expect((await rest(peer).getCollection(name)).points_count).toBe(30);
      expect((await rest(peer).count(name, { exact: true })).count).toBe(30);
      const page = await rest(peer).scroll(name, { limit: 100, with_payload: true });
      expect(page.points.map((p) => p.id)).toEqual(points.map((p) => p.id));
      const hits = await rest(peer).query(name, { query: [0, 1], limit: 3 });
      expect(hits.points.map((p) => p.id)).toEqual([30, 29, 28]);
    }
    await rest(peers[0]).deleteCollection(name);
  });

  it('should keep replication_factor replicas of each shard on distinct peers, and drop replicas but never the last Active one', async () => {
    const name = `replicated-${randomBytes(4).toString('hex')}`;
    await rest(peers[0]).createCollection(name, {
      vectors: { size: 2, distance: 'Dot' },
      shard_number: 1,
      replication_factor: 3,
      write_consistency_factor: 2,
    });
    for (const peer of peers)
      await eventually(1000, async () => expect((await rest(peer).collectionExists(name)).exists).toBe(true));
    const upsert = await http(peers[1], 'PUT', `/collections/${name}/points?wait=true`, {
      points: Array.from({ length: 10 }, (_, i) => ({ id: i + 1, vector: [1, i] })),
    });
    expect(upsert.status).toBe(200);
    const replicasOf = async (peer: Peer) => {
      const info = (await http(peer, 'GET', `/collections/${name}/cluster`)).body?.result;
      const all = [...info.local_shards, ...info.remote_shards] as Json[];
      return all
        .map((r) => ({ peer: String(r.peer_id ?? info.peer_id), state: r.state as string }))
        .sort((a, b) => a.peer.localeCompare(b.peer));
    };
    const ids = await Promise.all(
      peers.map(async (peer) => String((await http(peer, 'GET', '/cluster')).body?.result.peer_id)),
    );
    for (const peer of peers) {
      const replicas = await replicasOf(peer);
      expect(replicas.map((r) => r.state)).toEqual(['Active', 'Active', 'Active']);
      expect(new Set(replicas.map((r) => r.peer)).size).toBe(3);
      const all = await http(peer, 'POST', `/collections/${name}/points/count?consistency=all`, { exact: true });
      expect(all.body?.result.count).toBe(10);
    }
    // Ordered writes go through the shard's ordering leader, which passes them on to every replica.
    for (const [i, ordering] of ['medium', 'strong'].entries()) {
      const ordered = await http(peers[2], 'PUT', `/collections/${name}/points?wait=true&ordering=${ordering}`, {
        points: [{ id: 100 + i, vector: [0, 1] }],
      });
      expect(ordered.status).toBe(200);
    }
    for (const peer of peers) {
      const all = await http(peer, 'POST', `/collections/${name}/points/count?consistency=all`, { exact: true });
      expect(all.body?.result.count).toBe(12);
    }
    await http(peers[0], 'POST', `/collections/${name}/points/delete?wait=true`, { points: [100, 101] });
    const drop = (peerIndex: number) =>
      http(
        peers[0],
        'POST',
        `/collections/${name}/cluster`,
        `{"drop_replica":{"shard_id":0,"peer_id":${ids[peerIndex]}}}`,
      );
    const first = await drop(2);
    expect(first.body).toEqual(expect.objectContaining({ result: true }));
    expect(first.status).toBe(200);
    expect((await drop(1)).status).toBe(200);
    await eventually(1000, async () => expect(await replicasOf(peers[2])).toEqual([{ peer: ids[0], state: 'Active' }]));
    const last = await drop(0);
    expect(last.status).toBe(400);
    expect(last.body?.status.error).toContain('no other Active replica');
    // A peer holding no replica still answers through the one left.
    expect((await rest(peers[2]).count(name, { exact: true })).count).toBe(10);
    await rest(peers[0]).deleteCollection(name);
  });

  it('should fence a peer cut from etcd within its lease TTL, keep its reads, and let it rejoin', async () => {
    const [cut, other] = [peers[2], peers[0]];
    const cutId = String((await http(cut, 'GET', '/cluster')).body?.result.peer_id);
    const keep = `kept-${randomBytes(4).toString('hex')}`;
    await rest(other).createCollection(keep, { vectors: { size: 4, distance: 'Dot' } });
    await eventually(1000, async () => expect((await rest(cut).collectionExists(keep)).exists).toBe(true));

    cut.proxy.blackhole();
    try {
      const cutAt = Date.now();
      // Fenced by its own deadline (TTL minus a margin), without hearing from etcd.
      await eventually(LEASE_TTL_S * 1000 + 1000, async () => {
        const status = await http(cut, 'GET', '/cluster');
        expect(status.body?.result.consensus_thread_status.consensus_thread_status).toBe('stopped_with_err');
      });
      expect(Date.now() - cutAt).toBeLessThanOrEqual(LEASE_TTL_S * 1000 + 1000);
      const refused = await http(cut, 'PUT', `/collections/fenced-${randomBytes(3).toString('hex')}`, {
        vectors: { size: 4, distance: 'Dot' },
      });
      expect(refused.status).toBe(503);
      expect(refused.body?.status.error).toContain('lease expired');
      // Nor does it acknowledge point writes.
      const write = await http(cut, 'PUT', `/collections/${keep}/points?wait=true`, {
        points: [{ id: 1, vector: [1, 0, 0, 0] }],
      });
      expect(write.status).toBe(503);
      expect(write.body?.status.error).toContain('lease expired');
      // Reads go on from the cached catalog.
      expect((await rest(cut).collectionExists(keep)).exists).toBe(true);
      // etcd expires its lease: the others stop listing it.
      await eventually(LEASE_TTL_S * 1000 + 3000, async () => expect(await peerIds(other)).not.toContain(cutId));
    } finally {
      cut.proxy.pass();
    }
    await eventually(15_000, async () => {
      expect(await peerIds(other)).toContain(cutId);
      const again = await http(cut, 'GET', '/cluster');
      expect(again.body?.result.consensus_thread_status.consensus_thread_status).toBe('working');
    });
    const name = `after-${randomBytes(4).toString('hex')}`;
    await eventually(5000, async () => {
      const answer = await http(cut, 'PUT', `/collections/${name}`, { vectors: { size: 4, distance: 'Dot' } });
      expect(answer.status).toBe(200);
    });
    await eventually(1000, async () => expect((await rest(other).collectionExists(name)).exists).toBe(true));
    await rest(other).deleteCollection(name);
    await rest(other).deleteCollection(keep);
  }, 60_000);

  it('should keep serving reads while etcd is stopped, and fail metadata changes in bounded time', async () => {
    const name = `before-stop-${randomBytes(4).toString('hex')}`;
    await rest(peers[0]).createCollection(name, { vectors: { size: 4, distance: 'Dot' } });
    await eventually(1000, async () => expect((await rest(peers[1]).collectionExists(name)).exists).toBe(true));

    etcd.pause();
    try {
      for (const peer of peers) expect((await rest(peer).getCollection(name)).status).toBeDefined();
      const started = Date.now();
      const answer = await http(peers[1], 'PUT', `/collections/during-stop-${randomBytes(3).toString('hex')}`, {
        vectors: { size: 4, distance: 'Dot' },
      });
      const took = Date.now() - started;
      expect([503, 504]).toContain(answer.status);
      expect(answer.body?.status.error).toMatch(/etcd|lease expired/);
      expect(took).toBeLessThanOrEqual(ETCD_TIMEOUT_MS + 2000);
    } finally {
      etcd.resume();
    }
    await eventually(15_000, async () => {
      const answer = await http(peers[1], 'DELETE', `/collections/${name}`);
      expect(answer.status).toBe(200);
    });
  }, 60_000);

  it('should see a peer leave at once when it stops, and come back with the same id', async () => {
    const leaving = peers[1];
    const id = String((await http(leaving, 'GET', '/cluster')).body?.result.peer_id);
    const restarted = leaving.server.restart();
    // Well before etcd would expire its lease (the TTL etcd grants here is about 3 s): it revoked it.
    await eventually(1500, async () => expect(await peerIds(peers[0])).not.toContain(id));
    leaving.server = await restarted;
    await eventually(15_000, async () => expect(await peerIds(peers[0])).toContain(id));
    expect(String((await http(leaving, 'GET', '/cluster')).body?.result.peer_id)).toBe(id);
  }, 60_000);
  // Last: it retires a peer for good.
  it('should remove a peer: refused while it holds shards, forced marks them Dead and fences it', async () => {
    const name = `removal-${randomBytes(4).toString('hex')}`;
    await rest(peers[0]).createCollection(name, { vectors: { size: 4, distance: 'Dot' } });
    const removed = peers[2];
    const removedId = String((await http(removed, 'GET', '/cluster')).body?.result.peer_id);

    const refused = await http(peers[0], 'DELETE', `/cluster/peer/${removedId}`);
    expect(refused.status).toBe(400);
    expect(refused.body?.status.error).toBe(`Cannot remove peer ${removedId} as there are shards on it`);

    const forced = await http(peers[0], 'DELETE', `/cluster/peer/${removedId}?force=true`);
    expect(forced.status).toBe(200);
    await eventually(5000, async () => {
      expect(await peerIds(peers[1])).not.toContain(removedId);
      const { body } = await http(peers[1], 'GET', `/collections/${name}/cluster`);
      const onRemoved = body?.result.remote_shards.filter((shard: Json) => String(shard.peer_id) === removedId);
      expect(onRemoved.map((shard: Json) => shard.state)).toEqual(['Dead']);
    });
    // It cannot register again, so it stays fenced.
    await eventually(10_000, async () => {
      const answer = await http(removed, 'PUT', `/collections/not-from-removed`, {
        vectors: { size: 4, distance: 'Dot' },
      });
      expect(answer.status).toBe(503);
    });
    await rest(peers[0]).deleteCollection(name);
  }, 60_000);
});
