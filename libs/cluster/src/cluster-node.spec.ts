import { Logger } from '@nestjs/common';
import { DomainError, ErrorKind } from '@vectorstore/common';
import { CollectionCatalog, CollectionRecord, emptyCatalog } from '@vectorstore/collections';
import type { ClusterConfig } from '@vectorstore/config';
import { ClusterKeys } from './cluster-keys';
import { ClusterNode } from './cluster-node';
import { MetadataStore, MetadataWatch } from './metadata/metadata-store';
import { MemoryMetadataStore } from './testing/memory-metadata-store';
import { until, rejectionOf } from './testing/spec-helpers';

const keys = new ClusterKeys('test');

function config(peerId: string): ClusterConfig {
  return {
    etcd: { endpoints: ['http://127.0.0.1:2379'], timeoutMs: 1000 },
    name: 'test',
    p2p: { host: '0.0.0.0', port: 6335 },
    advertiseHost: `10.0.0.${peerId}`,
    secret: 's'.repeat(32),
    leaseTtlSeconds: 10,
    deadGraceSeconds: 10,
    transferLimit: 1,
  };
}

function record(name: string): CollectionRecord {
  return {
    id: `id-${name}`,
    name,
    createdAt: '2024-01-01T00:00:00.000Z',
    config: {
      params: {
        shardNumber: 1,
        onDiskPayload: true,
        vectors: { paramsMap: {} },
        replicationFactor: 1,
        writeConsistencyFactor: 1,
      },
      hnswConfig: {},
      optimizerConfig: {},
      walConfig: {},
      metadata: {},
    },
    shards: [{ shardId: 0, state: 'Active' }],
    shardKeys: [],
    nextShardId: 1,
  } as unknown as CollectionRecord;
}

/**
 * One peer's connection to the shared in-memory store: like an etcd client, closing it ends only its
 * own watches (MemoryMetadataStore.close would end every peer's).
 */
class StoreClient implements MetadataStore {
  closed = false;
  private readonly watches = new Set<MetadataWatch>();

  constructor(private readonly shared: MemoryMetadataStore) {}

  range: MetadataStore['range'] = (prefix) => this.shared.range(prefix);
  get: MetadataStore['get'] = (key) => this.shared.get(key);
  txn: MetadataStore['txn'] = (guards, writes) => this.shared.txn(guards, writes);
  grantLease: MetadataStore['grantLease'] = (ttl) => this.shared.grantLease(ttl);
  keepAlive: MetadataStore['keepAlive'] = (id) => this.shared.keepAlive(id);
  revokeLease: MetadataStore['revokeLease'] = (id) => this.shared.revokeLease(id);

  async watch(...args: Parameters<MetadataStore['watch']>): Promise<MetadataWatch> {
    const watch = await this.shared.watch(...args);
    this.watches.add(watch);
    return watch;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const watch of this.watches) await watch.cancel();
  }
}

describe(ClusterNode.name, () => {
  beforeEach(() => {
    // Quiet the expected warnings (failed renewals, lost campaigns, failed listeners).
    for (const level of ['log', 'warn', 'error'] as const)
      jest.spyOn(Logger.prototype, level).mockImplementation(() => undefined);
  });

  afterEach(() => jest.restoreAllMocks());

  let shared: MemoryMetadataStore;
  const running = new Set<ClusterNode>();

  async function start(peerId: string, store: MetadataStore = new StoreClient(shared)): Promise<ClusterNode> {
    const node = await ClusterNode.start({
      config: config(peerId),
      peerId,
      httpUri: `http://10.0.0.${peerId}:6333`,
      grpcUri: `http://10.0.0.${peerId}:6334`,
      version: '1.0.0',
      store,
    });
    running.add(node);
    return node;
  }

  async function joined(peerId: string, store?: MetadataStore): Promise<ClusterNode> {
    const node = await start(peerId, store);
    await node.join();
    return node;
  }

  async function stop(node: ClusterNode): Promise<void> {
    running.delete(node);
    await node.stop();
  }

  beforeEach(() => {
    shared = new MemoryMetadataStore();
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    for (const node of [...running]) await stop(node);
  });

  describe('start', () => {
    it('should write the layout version on first start', async () => {
      await start('1');

      const format = await shared.get(keys.format);

      expect(JSON.parse(format?.value ?? '{}')).toEqual({ v: 1 });
    });

    it('should refuse a cluster with another layout version and close its store', async () => {
      await shared.txn([], [{ put: keys.format, value: JSON.stringify({ v: 2 }) }]);
      const client = new StoreClient(shared);

      const error = await rejectionOf(start('1', client));

      expect(error.kind).toBe(ErrorKind.FailedPrecondition);
      expect(error.message).toContain('layout version 2');
      expect(error.message).toContain(keys.root);
      expect(client.closed).toBe(true);
    });

    it('should refuse a second node when the running cluster has another layout version', async () => {
      await joined('1');
      await shared.txn([], [{ put: keys.format, value: JSON.stringify({ v: 2 }) }]);

      const error = await rejectionOf(start('2'));

      expect(error.kind).toBe(ErrorKind.FailedPrecondition);
    });

    it('should import the standalone catalog into an empty cluster', async () => {
      const standaloneCatalog = emptyCatalog();
      standaloneCatalog.collections.set('x', record('x'));

      const node = await ClusterNode.start({
        config: config('1'),
        peerId: '1',
        httpUri: 'http://10.0.0.1:6333',
        grpcUri: 'http://10.0.0.1:6334',
        version: '1.0.0',
        store: new StoreClient(shared),
        standaloneCatalog,
      });
      running.add(node);

      expect(node.importedStandalone).toBe(true);
      expect(await shared.get(keys.collection('x'))).toBeDefined();
    });

    it('should refuse catalog changes until the node has joined', async () => {
      const node = await start('1');
      const catalog = new CollectionCatalog(node.catalogStore);
      await catalog.load();

      const error = await rejectionOf(catalog.mutate((draft) => void draft.collections.set('x', record('x'))));

      expect(error.kind).toBe(ErrorKind.Unavailable);
      expect(error.message).toContain('not joined');
      expect(await shared.get(keys.collection('x'))).toBeUndefined();
    });
  });

  describe('join', () => {
    it('should register the peer and make the first one the leader', async () => {
      const node = await joined('1');

      expect(node.status()).toEqual({
        peerId: '1',
        peers: [{ peerId: '1', uri: 'http://10.0.0.1:6335' }],
        leaderId: '1',
        sendFailures: {},
        fenced: false,
      });
    });

    it('should allow catalog changes once joined', async () => {
      const node = await joined('1');
      const catalog = new CollectionCatalog(node.catalogStore);
      await catalog.load();

      await catalog.mutate((draft) => void draft.collections.set('x', record('x')));

      expect(catalog.resolve('x')?.id).toBe('id-x');
    });

    it('should re-register and re-campaign after the lease expired in the store', async () => {
      const a = await joined('1');
      const b = await joined('2');
      const oldLease = a.lease.id;

      shared.expireLease(oldLease);
      await until(() => b.status().leaderId === '2', 'peer 2 leading');
      await a.lease.renew();
      await until(() => b.status().peers.length === 2, 'peer 1 back on peer 2');

      expect(a.lease.id).not.toBe(oldLease);
      expect((await shared.get(keys.peer('1')))?.lease).toBe(a.lease.id);
      expect(a.status().leaderId).toBe('2');
    });
  });

  describe('status', () => {
    it('should list the peers sorted by numeric id and agree on the leader', async () => {
      const ten = await joined('10');
      const nine = await joined('9');
      const hundred = await joined('100');
      await until(() => ten.status().peers.length === 3, 'three peers on peer 10');

      for (const node of [ten, nine, hundred]) {
        expect(node.status().peers.map((p) => p.peerId)).toEqual(['9', '10', '100']);
        expect(node.status().leaderId).toBe('10');
      }
      expect(nine.status().peers[0]).toEqual({ peerId: '9', uri: 'http://10.0.0.9:6335' });
    });

    it('should report the peer fenced once its local lease deadline has passed', async () => {
      const node = await joined('1');
      const now = performance.now();
      jest.spyOn(performance, 'now').mockReturnValue(now + 60_000);

      expect(node.status().fenced).toBe(true);
    });
  });

  describe('leave', () => {
    it('should fence the node and let another node take over at once', async () => {
      const a = await joined('1');
      const b = await joined('2');
      await until(() => a.status().peers.length === 2, 'peer 2 on peer 1');

      await a.leave();
      await until(() => b.status().peers.length === 1, 'peer 1 gone on peer 2');
      await until(() => b.status().leaderId === '2', 'peer 2 leading');

      expect(a.status().fenced).toBe(true);
      expect(b.status().fenced).toBe(false);
      expect(() => a.lease.assertValid()).toThrow(DomainError);
    });

    it('should stop campaigning for the leadership after leaving', async () => {
      const client = new StoreClient(shared);
      const node = await joined('1', client);
      const txn = jest.spyOn(client, 'txn');

      await node.leave();
      // ClusterNode campaigns with up to 500 ms of jitter.
      await new Promise((resolve) => setTimeout(resolve, 700));

      const campaigns = txn.mock.calls.filter(([, writes]) => writes.some((w) => 'put' in w && w.put === keys.leader));
      expect(campaigns.length).toBe(0);
      expect(await shared.get(keys.leader)).toBeUndefined();
    });
  });

  describe('close', () => {
    it('should close the store after leave', async () => {
      const client = new StoreClient(shared);
      const node = await joined('1', client);
      running.delete(node);

      await node.leave();
      await node.close();

      expect(client.closed).toBe(true);
      expect(await shared.get(keys.peer('1'))).toBeUndefined();
    });
  });

  describe('stop', () => {
    it("should remove the peer from another node's view and hand over the leadership", async () => {
      const a = await joined('1');
      const b = await joined('2');
      await until(() => a.status().peers.length === 2, 'peer 2 on peer 1');

      await stop(a);
      await until(() => b.status().peers.length === 1, 'peer 1 gone on peer 2');
      await until(() => b.status().leaderId === '2', 'peer 2 leading');

      expect(b.status().peers).toEqual([{ peerId: '2', uri: 'http://10.0.0.2:6335' }]);
      expect(await shared.get(keys.peer('1'))).toBeUndefined();
      expect(await shared.get(keys.member('1'))).toBeDefined();
    });

    it('should leave the other nodes following the cluster when they share one MemoryMetadataStore', async () => {
      // The brief's set-up: every node on the same MemoryMetadataStore instance.
      const a = await joined('1', shared);
      const b = await joined('2', shared);
      await until(() => a.status().peers.length === 2, 'peer 2 on peer 1');

      await stop(a);
      await joined('3', shared);
      await until(() => b.status().peers.length === 2, 'peer 3 on peer 2', 500).catch(() => undefined);

      expect(b.status().peers.map((p) => p.peerId)).toEqual(['2', '3']);
    });
  });
});
