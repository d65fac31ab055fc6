// Review of two-phase vector-name deletion in cluster mode (h/backups, issue 29 item 2): a defect found by reading,
// kept as a failing spec until fixed.
import type { CollectionCatalog, CollectionRecord, VectorNamesService } from '@vectorstore/collections';
import type { PointsStorage } from '../storage/points-storage';
import type { PointsCluster } from './replication-ports';
import { VectorDropsRunner } from './vector-drops.runner';

function recordDropping(name: string, waitingFor: string[]): CollectionRecord {
  return {
    id: 'id-1',
    name: 'c',
    createdAt: '2026-01-01T00:00:00.000Z',
    config: { params: {} } as CollectionRecord['config'],
    shards: [{ shardId: 0, state: 'Active', peerId: '2' }],
    shardKeys: [],
    nextShardId: 1,
    droppingVectors: [{ name, dense: { size: 4, distance: 'Cosine' }, waitingFor }],
  } as unknown as CollectionRecord;
}

describe('VectorDropsRunner (review)', () => {
  // B1: in standalone mode a dropped name is created again only after the segment builds that were running at the
  // drop have ended (VectorNameOperations.create -> CollectionStorage.settleDroppedVector): such a build still
  // carries the old vectors and installs them when it ends. In cluster mode that wait happens only on the peer that
  // coordinates the create; every other peer confirms its drop right after dropVector's flush
  // (vector-drops.runner.ts:81-85) without waiting for its own builds, so the drop can end, the name be created
  // again, and a build started before the drop install a segment holding the old vectors on that peer. The runner
  // should confirm only once the builds running at the drop have ended (settleDroppedVector, or the same wait).
  it('does not confirm the drop while segment builds started before it are still running', async () => {
    const record = recordDropping('old', ['2']);
    const confirmDrop = jest.fn().mockResolvedValue(undefined);
    const collectionStorage = {
      schemaLock: { exclusive: <T>(run: () => Promise<T>) => run() },
      dropVector: jest.fn().mockResolvedValue(undefined),
      // A build started before the drop never ends within this spec.
      settleDroppedVector: jest.fn(() => new Promise<void>(() => undefined)),
    };
    const catalog = {
      snapshot: { collections: new Map([['c', record]]), aliases: new Map() },
      subscribe: jest.fn(),
    } as unknown as CollectionCatalog;
    const storage = { storageOf: () => collectionStorage } as unknown as PointsStorage;
    const names = { confirmDrop } as unknown as VectorNamesService;
    const runner = new VectorDropsRunner(catalog, storage, names, '2', {} as PointsCluster);

    void (runner as unknown as { pass(): Promise<boolean> }).pass();
    await new Promise((resolve) => setTimeout(resolve, 50));

    expect(collectionStorage.dropVector).toHaveBeenCalledWith('old');
    expect(confirmDrop).not.toHaveBeenCalled();
  });
});
