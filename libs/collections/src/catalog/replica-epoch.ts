import type { CatalogState } from './catalog-state';
import type { CollectionRecord } from '../model/collection.model';

/**
 * What routing depends on: each replica's shard, peer and state, the transfers in progress (not their progress
 * notes or start times) and the resharding step. Two records with the same text route every write the same way.
 */
function routingView(record: CollectionRecord): string {
  const replicas = record.shards
    .map((s) => `${s.shardId}@${s.peerId ?? ''}:${s.state}`)
    .sort()
    .join(',');
  const transfers = (record.transfers ?? [])
    .map((t) => `${t.shardId}>${t.toShardId ?? t.shardId}:${t.from}>${t.to}:${t.method}:${t.sync}`)
    .sort()
    .join(',');
  const resharding = record.resharding
    ? `${record.resharding.direction}:${record.resharding.shardId}:${record.resharding.stage}`
    : '';
  return `${replicas}|${transfers}|${resharding}`;
}

/**
 * Bumps `replicaEpoch` of every collection in `draft` whose routing view differs from the same collection (by
 * id) in `base`. Called on every catalog change, so no change of replicas or transfers can forget it.
 */
export function bumpReplicaEpochs(base: Readonly<CatalogState>, draft: CatalogState): void {
  const before = new Map([...base.collections.values()].map((record) => [record.id, record]));
  for (const record of draft.collections.values()) {
    const old = before.get(record.id);
    if (old === undefined || routingView(old) === routingView(record)) continue;
    record.replicaEpoch = (old.replicaEpoch ?? 0) + 1;
  }
}
