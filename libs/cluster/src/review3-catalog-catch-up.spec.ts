import { Logger } from '@nestjs/common';
import { CatalogState, CollectionCatalog, CollectionRecord } from '@vectorstore/collections';
import { ClusterKeys } from './cluster-keys';
import { EtcdCatalogStore } from './etcd-catalog.store';
import { MetadataStore } from './metadata/metadata-store';
import { MemoryMetadataStore } from './testing/memory-metadata-store';

/*
 * Review of 2458c15 (B4: EtcdCatalogStore.catchUp publishes a fresh read of the catalog keys as of the store's
 * revision when the watch lags). A listener's failure is kept by the revision it was published as, and a change's
 * request looks it up by its own commit revision.
 */

const keys = new ClusterKeys('review3');
const LAG_MS = 300;

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

const create =
  (name: string) =>
  (draft: CatalogState): void =>
    void draft.collections.set(name, record(name));

/** `shared` as one peer sees it when its watch delivers every change `lagMs` late. */
function withLaggingWatch(shared: MemoryMetadataStore, lagMs: number): MetadataStore {
  return {
    range: (prefix) => shared.range(prefix),
    get: (key) => shared.get(key),
    txn: (guards, writes) => shared.txn(guards, writes),
    watch: (prefix, fromRevision, handlers) =>
      shared.watch(prefix, fromRevision, {
        onEvents: (events, revision) => void setTimeout(() => handlers.onEvents(events, revision), lagMs),
        onLost: (error) => handlers.onLost(error),
      }),
    grantLease: (ttlSeconds) => shared.grantLease(ttlSeconds),
    keepAlive: (id) => shared.keepAlive(id),
    revokeLease: (id) => shared.revokeLease(id),
    close: () => shared.close(),
  };
}

describe('review3: EtcdCatalogStore.catchUp beside a change of this peer', () => {
  let catalogStore: EtcdCatalogStore | undefined;
  beforeEach(() => {
    for (const level of ['log', 'warn', 'error'] as const)
      jest.spyOn(Logger.prototype, level).mockImplementation(() => undefined);
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await catalogStore?.close();
  });

  async function laggingPeer(shared: MemoryMetadataStore): Promise<CollectionCatalog> {
    catalogStore = new EtcdCatalogStore(withLaggingWatch(shared, LAG_MS), keys, 2000);
    const catalog = new CollectionCatalog(catalogStore);
    await catalog.load();
    await catalog.subscribe((state) => {
      if (state.collections.has('x')) throw new Error('could not create the shard folder');
    });
    return catalog;
  }

  it('control: a change whose listener fails fails its request', async () => {
    const catalog = await laggingPeer(new MemoryMetadataStore());

    await expect(catalog.mutate(create('x'))).rejects.toThrow('could not create the shard folder');
  });

  // Review finding, fixed (2458c15, minor): catchUp publishes its read as of the store's revision, which other keys (leases,
  // membership) move past the change's commit revision R. The listener failure of this peer's own change is then
  // recorded under that later revision, the watch's event at R is skipped, and save() finds no failure at R: the
  // request resolves though its listener (e.g. storage creating the collection) failed. (The watch-lost re-read,
  // rewatch, has the same gap.) Fix: when a published state covers several revisions, record the failure for every
  // waiter's revision it resolves (or keep it for the range (previous revision, revision]).
  it("fails this peer's change whose listener fails when a catchUp published it", async () => {
    const shared = new MemoryMetadataStore();
    const catalog = await laggingPeer(shared);

    const change = catalog.mutate(create('x')).then(
      () => 'resolved',
      (error: unknown) => (error instanceof Error ? error.message : String(error)),
    );
    while ((await shared.get(keys.collection('x'))) === undefined) await new Promise((r) => setTimeout(r, 5));
    await shared.txn([], [{ put: 'review3/elsewhere', value: '1' }]); // another key moves the store's revision on
    await catalog.catchUp();

    expect(await change).toBe('could not create the shard folder');
  });
});
