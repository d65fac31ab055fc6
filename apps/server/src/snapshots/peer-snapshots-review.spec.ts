// Review of cluster backups (h/backups, issue 29 item 1): a defect found by reading (B4, fixed). The etcd store's own
// catch-up over a lagging watch is specified in libs/cluster/src/etcd-catalog.store.spec.ts.
import {
  CatalogState,
  CatalogStore,
  ClusterMembership,
  CollectionCatalog,
  CollectionRecord,
  emptyCatalog,
  ReplicaState,
} from '@vectorstore/collections';
import type { PointsPeers } from '@vectorstore/replication';
import { PeerSnapshots } from './peer-snapshots';

function catalogWith(peer2: ReplicaState): CatalogState {
  const state = emptyCatalog();
  state.collections.set('c', {
    id: 'id-1',
    name: 'c',
    createdAt: '2026-01-01T00:00:00.000Z',
    config: { params: {} } as CollectionRecord['config'],
    shards: [
      { shardId: 0, state: 'Active', peerId: '1' },
      { shardId: 0, state: peer2, peerId: '2' },
    ],
    shardKeys: [],
    nextShardId: 1,
  });
  return state;
}

/** A shared store whose watch delivers a committed change `lagMs` after the commit (an etcd watch under load). */
class LaggingStore implements CatalogStore {
  current = catalogWith('Active');
  private publish?: (state: CatalogState) => Promise<void>;
  private delivered?: CatalogState;

  async load(): Promise<CatalogState> {
    return structuredClone(this.current);
  }

  async save(): Promise<void> {
    throw new Error('not used');
  }

  async watch(publish: (state: CatalogState) => Promise<void>): Promise<void> {
    this.publish = publish;
  }

  /** As a shared store does: hands the state it holds now to the watch's publish, without waiting for the watch. */
  async catchUp(): Promise<void> {
    if (this.delivered !== this.current) await this.deliver(this.current);
  }

  /** Another peer commits `state` now; this peer's watch hears of it `lagMs` later. */
  commitElsewhere(state: CatalogState, lagMs: number): void {
    this.current = state;
    setTimeout(() => void this.deliver(state), lagMs);
  }

  private async deliver(state: CatalogState): Promise<void> {
    if (this.delivered === state) return;
    this.delivered = state;
    await this.publish?.(structuredClone(state));
  }
}

describe('PeerSnapshots.latestCatalog (review)', () => {
  // B4 (fixed): ClusterBackups.create (cluster-backups.service.ts:59-66) promises every write acknowledged before the call:
  // the replicas are to be chosen "from the catalog as the metadata store holds it when the call begins". But
  // PeerSnapshots.latestCatalog (peer-snapshots.ts:30-32) returned this peer's watched copy as it was, without
  // catching up with the store. A coordinator marks a replica that missed a write Dead in the store and then
  // acknowledges the write; a backup started at once on a peer whose watch has not delivered that change yet picks
  // the Dead replica as Active, and its own peer's check in ShardSnapshotParts.take reads a watched copy too: the
  // acknowledged write is missing from the backup. latestCatalog should read the store (or wait until the watch
  // has delivered the store's current revision). It now waits for CollectionCatalog.catchUp.
  it('answers the catalog as the metadata store holds it when called, not a lagging watched copy', async () => {
    const store = new LaggingStore();
    const catalog = new CollectionCatalog(store);
    await catalog.load();
    store.commitElsewhere(catalogWith('Dead'), 200);
    const peers = new PeerSnapshots(catalog, () => ({}) as PointsPeers, {} as ClusterMembership);

    const state = await peers.latestCatalog();

    expect(state.collections.get('c')?.shards.find((s) => s.peerId === '2')?.state).toBe('Dead');
  });
});
