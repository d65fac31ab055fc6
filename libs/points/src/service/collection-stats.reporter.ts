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
import { POINTS_PEERS, PointsPeers } from '../cluster/points-peers';
import { planReads } from '../cluster/read-plan';
import { planOptimizations } from '../optimizer/optimization-planner';
import { OptimizerService } from '../optimizer/optimizer.service';
import { LocalShard } from '../storage/local-shard';
import { PointsStorage } from '../storage/points-storage';

const SEVERITY: Record<CollectionStatus, number> = { Green: 0, Yellow: 1, Grey: 2, Red: 3 };

/** Live collection state for Get and cluster info: counts from storage, status from the optimizer. */
@Injectable()
export class CollectionStatsReporter implements CollectionStatsProvider, OnModuleInit {
  constructor(
    private readonly storage: PointsStorage,
    private readonly optimizer: OptimizerService,
    private readonly registry: CollectionStatsRegistry,
    @Optional() @Inject(POINTS_PEERS) private readonly peers?: PointsPeers,
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
      stats.status = worse(stats.status, status);
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
   * Cluster mode: the stats of one readable replica of every shard (this peer's own first), combined.
   * Collection info stays available while a peer is gone: its shards are left out, and a warning says so.
   */
  async clusterStatsFor(record: CollectionRecord): Promise<CollectionRuntimeStats> {
    const peers = this.peers;
    if (!peers) return this.statsFor(record);
    const parts = new Map<string, number[]>();
    const warnings: string[] = [];
    for (const shardId of new Set(record.shards.map((shard) => shard.shardId))) {
      try {
        const [[part]] = planReads(
          record.shards.filter((shard) => shard.shardId === shardId),
          peers.selfId,
          undefined,
        );
        parts.set(part.peerId, [...(parts.get(part.peerId) ?? []), shardId]);
      } catch {
        warnings.push(`Shard ${shardId} has no readable replica: the counts leave it out`);
      }
    }
    const asked = [...parts];
    const answers = await Promise.allSettled(
      asked.map(([peerId, shardIds]) =>
        peerId === peers.selfId
          ? Promise.resolve(this.statsFor(record, shardIds))
          : peers.read(peerId, record, shardIds, { kind: 'stats', request: {} }),
      ),
    );
    const total = combineStats(
      answers.flatMap((answer) => (answer.status === 'fulfilled' ? [answer.value] : [])),
      record,
    );
    const missing = asked.filter((_, i) => answers[i].status === 'rejected').map(([peerId]) => peerId);
    if (missing.length > 0)
      warnings.push(`Peers ${missing.join(', ')} did not answer: the counts leave out the shards they hold`);
    total.warnings.push(...warnings);
    return total;
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
function worse(a: CollectionStatus, b: CollectionStatus): CollectionStatus {
  return SEVERITY[a] >= SEVERITY[b] ? a : b;
}

/** One collection's stats from the stats of its parts (the peers holding its shards): counts summed, worst status. */
export function combineStats(
  parts: readonly CollectionRuntimeStats[],
  record: CollectionRecord,
): CollectionRuntimeStats {
  const total: CollectionRuntimeStats = { ...emptyCollectionStats(record), shards: {} };
  for (const part of parts) {
    total.status = worse(total.status, part.status);
    if (!part.optimizerStatus.ok && total.optimizerStatus.ok) total.optimizerStatus = part.optimizerStatus;
    total.segmentsCount += part.segmentsCount;
    total.pointsCount += part.pointsCount;
    total.indexedVectorsCount += part.indexedVectorsCount;
    total.updateQueueLength += part.updateQueueLength;
    for (const warning of part.warnings) if (!total.warnings.includes(warning)) total.warnings.push(warning);
    for (const [field, info] of Object.entries(part.payloadSchema)) {
      const entry = (total.payloadSchema[field] ??= { ...info, points: 0 });
      entry.points = (entry.points ?? 0) + (info.points ?? 0);
    }
    Object.assign(total.shards, part.shards);
  }
  return total;
}
