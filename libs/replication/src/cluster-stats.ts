import { Inject, Injectable } from '@nestjs/common';
import {
  CollectionRecord,
  CollectionRuntimeStats,
  emptyCollectionStats,
  unreadShardIds,
} from '@vectorstore/collections';
import { worseStatus, type CollectionStatsGatherer } from '@vectorstore/points';
import { POINTS_PEERS, PointsPeers } from './points-peers';
import { planReads } from './read-plan';

/** A collection's stats over the peers (GET /collections/{c} in cluster mode): the COLLECTION_STATS_GATHERER port. */
@Injectable()
export class ClusterStatsGatherer implements CollectionStatsGatherer {
  constructor(@Inject(POINTS_PEERS) private readonly peers: PointsPeers) {}

  /**
   * The stats of one readable replica of every shard (this peer's own first, from `local`), combined.
   * Collection info stays available while a peer is gone: its shards are left out, and a warning says so.
   */
  async gather(
    record: CollectionRecord,
    local: (shardIds: readonly number[]) => CollectionRuntimeStats,
  ): Promise<CollectionRuntimeStats> {
    const peers = this.peers;
    const parts = new Map<string, number[]>();
    const warnings: string[] = [];
    // A shard a resharding does not read yet (its new shard while it is filled) is not counted, nor warned of.
    const unread = unreadShardIds(record);
    for (const shardId of new Set(record.shards.map((shard) => shard.shardId))) {
      if (unread.has(shardId)) continue;
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
          ? Promise.resolve(local(shardIds))
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
}

/** One collection's stats from the stats of its parts (the peers holding its shards): counts summed, worst status. */
export function combineStats(
  parts: readonly CollectionRuntimeStats[],
  record: CollectionRecord,
): CollectionRuntimeStats {
  const total: CollectionRuntimeStats = { ...emptyCollectionStats(record), shards: {} };
  for (const part of parts) {
    total.status = worseStatus(total.status, part.status);
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
