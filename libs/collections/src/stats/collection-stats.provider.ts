import { CollectionRecord, CollectionRuntimeStats, ShardRuntimeStats } from '../model/collection.model';

/**
 * Reports live storage state (points, segments, status) for a collection. The storage engine
 * provides the real implementation; until a collection holds points it reports an empty one.
 */
export interface CollectionStatsProvider {
  /** This peer's shards of the collection (all of them on a standalone server). */
  statsFor(record: CollectionRecord): CollectionRuntimeStats;
  /** Cluster mode: every shard's, asked of the peers holding them. Absent: statsFor is the whole collection. */
  clusterStatsFor?(record: CollectionRecord): Promise<CollectionRuntimeStats>;
}

export const COLLECTION_STATS_PROVIDER = Symbol('COLLECTION_STATS_PROVIDER');

/** Stats of a collection with no stored points: Green, no segments, nothing queued. */
export function emptyCollectionStats(record: CollectionRecord): CollectionRuntimeStats {
  return {
    status: 'Green',
    optimizerStatus: { ok: true, error: '' },
    segmentsCount: 0,
    pointsCount: 0,
    indexedVectorsCount: 0,
    payloadSchema: {},
    warnings: [],
    updateQueueLength: 0,
    shards: Object.fromEntries(record.shards.map((shard) => [shard.shardId, emptyShardStats()])),
  };
}

/** A shard holding nothing, with nothing applied. */
export function emptyShardStats(): ShardRuntimeStats {
  return {
    pointsCount: 0,
    segmentsCount: 0,
    appliedOpNum: 0,
    updateQueueLength: 0,
    status: 'Green',
    optimizedPoints: 0,
    vectorsByName: {},
    vectorsSizeBytes: 0,
    payloadsSizeBytes: 0,
    optimizations: { count: 0, failCount: 0, totalMicros: 0 },
  };
}

/** Reports every collection as empty (used until storage registers, and in domain tests). */
export class EmptyCollectionStatsProvider implements CollectionStatsProvider {
  statsFor(record: CollectionRecord): CollectionRuntimeStats {
    return emptyCollectionStats(record);
  }
}

/**
 * The stats source the collections services use. Storage registers itself at start (it depends on
 * the catalog, so it cannot be injected here); until then collections report as empty.
 */
export class CollectionStatsRegistry implements CollectionStatsProvider {
  private provider: CollectionStatsProvider = new EmptyCollectionStatsProvider();

  register(provider: CollectionStatsProvider): void {
    this.provider = provider;
  }

  statsFor(record: CollectionRecord): CollectionRuntimeStats {
    return this.provider.statsFor(record);
  }

  clusterStatsFor(record: CollectionRecord): Promise<CollectionRuntimeStats> {
    return this.provider.clusterStatsFor
      ? this.provider.clusterStatsFor(record)
      : Promise.resolve(this.provider.statsFor(record));
  }
}
