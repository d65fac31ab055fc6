import { Inject, Injectable, OnModuleInit, Optional } from '@nestjs/common';
import {
  CollectionRecord,
  CollectionRuntimeStats,
  CollectionStatsProvider,
  CollectionStatsRegistry,
  CollectionStatus,
  emptyCollectionStats,
  CollectionConfig,
  PayloadSchemaInfo,
} from '@vectorstore/collections';
import { planOptimizations } from '../optimizer/optimization-planner';
import { OptimizerService } from '../optimizer/optimizer.service';
import { LocalShard } from '../storage/local-shard';
import { PointsStorage } from '../storage/points-storage';
import { COLLECTION_STATS_GATHERER, CollectionStatsGatherer } from './replication-ports';

const SEVERITY: Record<CollectionStatus, number> = { Green: 0, Yellow: 1, Grey: 2, Red: 3 };

/** Live collection state for Get and cluster info: counts from storage, status from the optimizer. */
@Injectable()
export class CollectionStatsReporter implements CollectionStatsProvider, OnModuleInit {
  constructor(
    private readonly storage: PointsStorage,
    private readonly optimizer: OptimizerService,
    private readonly registry: CollectionStatsRegistry,
    @Optional() @Inject(COLLECTION_STATS_GATHERER) private readonly gatherer?: CollectionStatsGatherer,
  ) {}

  onModuleInit(): void {
    this.registry.register(this);
  }

  /** The collection's stats over this peer's shards (only `shardIds` of them, when given). */
  statsFor(record: CollectionRecord, shardIds?: readonly number[]): CollectionRuntimeStats {
    const stats: CollectionRuntimeStats = { ...emptyCollectionStats(record), shards: {} };
    const storage = this.storage.openStorages().find((s) => s.record.id === record.id);
    if (!storage) return stats;
    if (storage.failure) {
      return {
        ...stats,
        status: 'Red',
        optimizerStatus: { ok: false, error: `could not be loaded: ${storage.failure.message}` },
      };
    }
    // A replica set aside as damaged (cluster mode) is not answered for as an empty one.
    const damaged = [...storage.damaged].find(([shardId]) => !shardIds || shardIds.includes(shardId));
    if (damaged) {
      return {
        ...stats,
        status: 'Red',
        optimizerStatus: { ok: false, error: `shard ${damaged[0]} is damaged here: ${damaged[1].message}` },
      };
    }
    const schema: Record<string, PayloadSchemaInfo> = {};
    for (const handle of storage.shards.values()) {
      if (shardIds && !shardIds.includes(handle.shardId)) continue;
      const shard = handle.shard;
      stats.segmentsCount += shard.segments.length;
      stats.pointsCount += shard.pointCount;
      stats.indexedVectorsCount += shard.indexedVectorCount;
      const status = this.shardStatus(shard, storage.record.config);
      const error = shard.failure?.message ?? shard.optimization.error;
      stats.shards[handle.shardId] = {
        pointsCount: shard.pointCount,
        segmentsCount: shard.segments.length,
        appliedOpNum: shard.lastApplied,
        updateQueueLength: 0,
        status,
        ...(error ? { optimizerError: error } : {}),
        optimizedPoints: shard.optimization.optimizedPoints,
        ...shardSizes(shard),
        optimizations: shard.optimization.jobStats,
      };
      stats.status = worseStatus(stats.status, status);
      if (error) stats.optimizerStatus = { ok: false, error };
      for (const [field, index] of shard.fieldIndexes) {
        let points = 0;
        for (const segment of shard.segments) points += segment.payloadIndexes.get(field)?.pointsCount() ?? 0;
        const entry = (schema[field] ??= { dataType: index.type, params: index.params, points: 0 });
        entry.points = (entry.points ?? 0) + points;
      }
    }
    stats.payloadSchema = schema;
    return stats;
  }

  /**
   * The stats of every shard of the collection. In cluster mode the peers holding other shards are
   * asked (the COLLECTION_STATS_GATHERER port); on a standalone server they are `statsFor`'s.
   */
  async clusterStatsFor(record: CollectionRecord): Promise<CollectionRuntimeStats> {
    const gatherer = this.gatherer;
    if (!gatherer) return this.statsFor(record);
    return gatherer.gather(record, (shardIds) => this.statsFor(record, shardIds));
  }

  /** Red on failure; Yellow while optimizing (or pending after a write); Grey when pending since start. */
  private shardStatus(shard: LocalShard, config: CollectionConfig): CollectionStatus {
    if (shard.failure || shard.optimization.error) return 'Red';
    if (shard.optimization.running > 0) return 'Yellow';
    if (planOptimizations(shard, config, this.optimizer.busySegments(shard)).length > 0) {
      return shard.optimization.triggered ? 'Yellow' : 'Grey';
    }
    return 'Green';
  }
}

/** Live vectors per name and the estimated bytes of vectors and payloads, summed over the shard's segments. */
function shardSizes(shard: LocalShard): {
  vectorsByName: Record<string, number>;
  vectorsSizeBytes: number;
  payloadsSizeBytes: number;
} {
  const vectorsByName: Record<string, number> = {};
  let vectorsKb = 0;
  let payloadsSizeBytes = 0;
  for (const name of shard.spaces.keys()) vectorsByName[name] = 0;
  for (const segment of shard.segments) {
    vectorsKb += segment.vectorDataKb();
    payloadsSizeBytes += segment.payloadBytes;
    for (const name of shard.spaces.keys()) vectorsByName[name] += segment.vectorStore(name)?.count ?? 0;
  }
  return { vectorsByName, vectorsSizeBytes: Math.round(vectorsKb * 1024), payloadsSizeBytes };
}

/** The worse of two statuses, in Qdrant's order Green < Yellow < Grey < Red. */
export function worseStatus(a: CollectionStatus, b: CollectionStatus): CollectionStatus {
  return SEVERITY[a] >= SEVERITY[b] ? a : b;
}
