import { Inject, Injectable, Optional } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import {
  CollectionRecord,
  CollectionRuntimeStats,
  emptyCollectionStats,
  readExclusions,
  unreadShardIds,
  type ReadExclusion,
  type ShardRuntimeStats,
} from '@vectorstore/collections';
import { worseStatus, type CollectionStatsGatherer } from '@vectorstore/points';
import { POINTS_PEERS, PointsPeers, type ShardRead } from './points-peers';
import { planReads } from './read-plan';
import { ShardEndpoint } from './shard-endpoint';

/** Copy counts kept (see copyCounts): a few per resharding collection; more only after many reshardings. */
const MAX_COPY_COUNTS = 1000;
/**
 * How long a count of copies stands while its replica changes: hashing every point of a shard takes about 2 µs a
 * point, too much to do for every poll of collection info.
 */
const RECOUNT_MS = 1000;

/** A collection's stats over the peers (GET /collections/{c} in cluster mode): the COLLECTION_STATS_GATHERER port. */
@Injectable()
export class ClusterStatsGatherer implements CollectionStatsGatherer {
  /**
   * The last count of excluded copies per replica and exclusion, with the replica's applied op number and points
   * count then: a replica showing both unchanged holds the same copies (a copy only adds or removes copies).
   */
  private readonly copyCounts = new Map<string, { opNum: number; points: number; copies: number; at: number }>();
  /** Counts on their way, by the same key: concurrent polls share one. */
  private readonly counting = new Map<string, Promise<number>>();

  constructor(
    @Inject(POINTS_PEERS) private readonly peers: PointsPeers,
    // The endpoint is looked up when first needed: it uses the stats reporter, which uses this.
    @Optional() private readonly moduleRef?: ModuleRef,
  ) {}

  /**
   * The stats of one readable replica of every shard (this peer's own first, from `local`), combined.
   * Collection info stays available while a peer is gone: its shards are left out, and a warning says so.
   * During a resharding, the copies reads leave out (readExclusions) are counted on the same replica and taken
   * off, so each point counts once.
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
    const exclusions = readExclusions(record);
    const answers = await Promise.allSettled(
      asked.map(async ([peerId, shardIds]) => {
        const stats =
          peerId === peers.selfId
            ? local(shardIds)
            : await peers.read(peerId, record, shardIds, { kind: 'stats', request: {} });
        return this.withoutExcluded(stats, record, peerId, shardIds, exclusions);
      }),
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

  /** `stats` of `shardIds` on `peerId` less the copies each shard holds that reads leave out (exact counts). */
  private async withoutExcluded(
    stats: CollectionRuntimeStats,
    record: CollectionRecord,
    peerId: string,
    shardIds: readonly number[],
    exclusions: readonly ReadExclusion[],
  ): Promise<CollectionRuntimeStats> {
    const counts = exclusions.flatMap((exclusion) =>
      shardIds
        .filter((shardId) => exclusion.shardIds.includes(shardId))
        .map(async (shardId) => ({
          shardId,
          copies: await this.copiesOn(record, peerId, shardId, exclusion, stats.shards[shardId]),
        })),
    );
    if (counts.length === 0) return stats;
    const shards = { ...stats.shards };
    let pointsCount = stats.pointsCount;
    for (const { shardId, copies } of await Promise.all(counts)) {
      pointsCount -= copies;
      const shard = shards[shardId];
      if (shard) shards[shardId] = { ...shard, pointsCount: shard.pointsCount - copies };
    }
    return { ...stats, pointsCount, shards };
  }

  /**
   * How many copies reads leave out the replica of `shardId` on `peerId` holds: counted exactly (every point hashed),
   * but at most once a second per replica while it changes, one count at a time, and not again while it is unchanged.
   */
  private async copiesOn(
    record: CollectionRecord,
    peerId: string,
    shardId: number,
    exclusion: ReadExclusion,
    shard: ShardRuntimeStats | undefined,
  ): Promise<number> {
    const key = `${record.id}/${peerId}/${shardId}/${exclusion.ring.join(',')}/${exclusion.owner}`;
    const known = this.copyCounts.get(key);
    const unchanged = known && shard && known.opNum === shard.appliedOpNum && known.points === shard.pointsCount;
    if (known && (unchanged || Date.now() - known.at < RECOUNT_MS)) return known.copies;
    let counting = this.counting.get(key);
    if (!counting) {
      const read: Extract<ShardRead, { kind: 'count' }> = {
        kind: 'count',
        request: {
          exact: true,
          filter: { must: [{ ringOwner: { shardIds: exclusion.ring, owner: exclusion.owner } }] },
        },
      };
      counting = (
        peerId === this.peers.selfId
          ? this.endpoint().read(record, [shardId], read)
          : this.peers.read(peerId, record, [shardId], read)
      ).finally(() => this.counting.delete(key));
      this.counting.set(key, counting);
    }
    const copies = await counting;
    if (this.copyCounts.size >= MAX_COPY_COUNTS) this.copyCounts.clear();
    if (shard)
      this.copyCounts.set(key, { opNum: shard.appliedOpNum, points: shard.pointsCount, copies, at: Date.now() });
    return copies;
  }

  private endpoint(): Pick<ShardEndpoint, 'read'> {
    if (!this.moduleRef) throw new Error('no module to find the shard endpoint in');
    return this.moduleRef.get(ShardEndpoint, { strict: true });
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
