import type { CollectionRecord, CollectionRuntimeStats } from '@vectorstore/collections';
import { DomainError } from '@vectorstore/common';
import type { UpdateOperation, WriteOrdering } from '../model/operations.model';
import type { PointId } from '../model/point-id.model';
import type { CollectionContext } from './collection-context';
import type { ClockTag } from '../storage/local-shard/shard-clocks';
import { damagedReplicaError } from '../storage/collection-storage/damaged-replicas';

// Ports: where the single-node services meet the replicated layer (@vectorstore/replication), which
// implements them and binds their tokens. Points never imports that layer; unbound, each port has the
// behaviour of a standalone server, which holds every shard.

/** Applies one shard's part of a validated write; its operation number. */
export interface ShardWriter {
  apply(
    context: CollectionContext,
    shardId: number,
    part: UpdateOperation,
    ordering: WriteOrdering | undefined,
  ): Promise<number>;
}

/** Unbound: `LOCAL_SHARD_WRITER`. Cluster mode binds one that writes to every replica of the shard. */
export const SHARD_WRITER = Symbol('SHARD_WRITER');

/** How long a write waits for this peer's storage to open a shard the catalog just created. */
const SHARD_OPEN_WAIT_MS = 2000;

/** One shard's part applied to this server's shard (waiting briefly for storage to open a new shard). */
export async function applyToLocalShard(
  context: CollectionContext,
  shardId: number,
  part: UpdateOperation,
  tag?: ClockTag,
): Promise<number> {
  const damage = context.storage.damaged.get(shardId);
  if (damage) throw damagedReplicaError(context.record.name, shardId, damage);
  const deadline = Date.now() + SHARD_OPEN_WAIT_MS;
  let handle = context.storage.shards.get(shardId);
  // A shard not open yet, or closed to be opened again (a restore, a scrub's reopen): waited for, briefly.
  while ((!handle || handle.shard.isClosed) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    handle = context.storage.shards.get(shardId);
  }
  if (!handle || handle.shard.isClosed) {
    throw DomainError.unavailable(
      `Service unavailable: shard ${shardId} of collection \`${context.record.name}\` is not open on this peer`,
    );
  }
  return handle.shard.update(part, tag);
}

/** The standalone shard writer: every part to this server's shard. */
export const LOCAL_SHARD_WRITER: ShardWriter = {
  apply: (context, shardId, part) => applyToLocalShard(context, shardId, part),
};

/**
 * What the write services need to know of the other peers. Bound only in cluster mode: its absence
 * means a standalone server (every shard here, writes always allowed).
 */
export interface PointsCluster {
  /** Throws UNAVAILABLE while this peer cannot confirm its lease: it must not acknowledge writes. */
  assertWritable(): void;
  /** Whether this peer holds a replica of every shard of the collection (its own shards then answer for all). */
  holdsEveryShard(record: CollectionRecord): boolean;
  /**
   * The keys (`pointIdKey`) of the `ids` that exist on any peer. The server's own read: the client's
   * request was admitted by strict mode already, so it is not charged again.
   */
  storedIds(collectionName: string, ids: PointId[]): Promise<Set<string>>;
}

export const POINTS_CLUSTER = Symbol('POINTS_CLUSTER');

/**
 * A collection's stats over all its shards, wherever they are held. Bound only in cluster mode;
 * unbound, this server's own stats are the whole collection's.
 */
export interface CollectionStatsGatherer {
  /** `local` gives this server's stats over the given shards of the collection. */
  gather(
    record: CollectionRecord,
    local: (shardIds: readonly number[]) => CollectionRuntimeStats,
  ): Promise<CollectionRuntimeStats>;
}

export const COLLECTION_STATS_GATHERER = Symbol('COLLECTION_STATS_GATHERER');
