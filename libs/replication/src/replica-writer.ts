import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  ClusterService,
  CollectionCatalog,
  CollectionRecord,
  comparePeerIds,
  ShardRecord,
  UPDATABLE_REPLICA_STATES,
} from '@vectorstore/collections';
import { DomainError, KeyedMutex } from '@vectorstore/common';
import {
  type UpdateOperation,
  type WriteOrdering,
  type CollectionContext,
  applyToLocalShard,
  type ClockTag,
  type ShardWriter,
} from '@vectorstore/points';
import { epochOf, LocalReplicas, StaleRouting } from './local-replicas';
import { POINTS_PEERS, PointsPeers } from './points-peers';

/**
 * One shard's part of a validated write, applied to the shard's replicas: here on a standalone server;
 * in cluster mode on every replica that takes writes, with `write_consistency_factor` and Dead marking
 * (docs/cluster.md, "Replication"), and through the shard's ordering leader for Medium/Strong ordering.
 */
@Injectable()
export class ReplicaWriter implements ShardWriter {
  /** An ordering leader passes one write per shard at a time. */
  private readonly leading = new KeyedMutex();
  /** The last clock number given to a write of each shard (`collection id/shard id`) by this process. */
  private readonly clocks = new Map<string, number>();

  constructor(
    private readonly replicas: LocalReplicas,
    @Optional() @Inject(POINTS_PEERS) private readonly peers?: PointsPeers,
    @Optional() private readonly cluster?: ClusterService,
    @Optional() private readonly catalog?: CollectionCatalog,
  ) {}

  /** Applies `part` to shard `shardId`; its operation number. */
  apply(
    context: CollectionContext,
    shardId: number,
    part: UpdateOperation,
    ordering: WriteOrdering | undefined,
  ): Promise<number> {
    const peers = this.peers;
    if (!peers) return this.applyLocal(context, shardId, part);
    if (!ordering || ordering === 'Weak') return this.applyToReplicas(context, shardId, part, peers);
    const leader = orderingLeader(context.record, shardId, ordering, peers.selfId);
    return leader === peers.selfId
      ? this.lead(context, shardId, part)
      : peers.update(leader, context.record, shardId, part, true);
  }

  /**
   * This peer as the shard's ordering leader: the write goes to the replicas while no other ordered
   * write of the shard does, so every replica applies ordered writes in the same order.
   */
  lead(context: CollectionContext, shardId: number, part: UpdateOperation): Promise<number> {
    const peers = this.peers;
    if (!peers) return this.applyLocal(context, shardId, part);
    return this.leading.run(`${context.record.id}/${shardId}`, () =>
      this.applyToReplicas(context, shardId, part, peers),
    );
  }

  /**
   * Cluster mode: one shard's part to each of its replicas that takes writes (here or on their peers).
   * It stands when at least `min(write_consistency_factor, replicas)` of them applied it; the others
   * are marked Dead before the write is acknowledged, so no read counts on a replica that missed it.
   * A replica whose catalog is past the coordinator's (a transfer started or ended) refuses the part as
   * stale: the coordinator catches up and sends it to the replicas of the new view that did not take it.
   */
  private async applyToReplicas(
    context: CollectionContext,
    shardId: number,
    part: UpdateOperation,
    peers: PointsPeers,
  ): Promise<number> {
    const peerOf = (replica: ShardRecord) => replica.peerId ?? peers.selfId;
    const applied = new Map<string, number>();
    let record = context.record;
    // One tag for every replica and every resend: a replica applies it once (and can tell what it missed). Taken
    // once the write is sent, so that a write refused up front leaves no gap in the origin's numbers.
    let tag: ClockTag | undefined;
    for (let attempt = 1; ; attempt++) {
      const { replicas, targets, required, factor } = writePlan(record, shardId);
      if (targets.length < required || targets.length === 0) {
        throw DomainError.unavailable(
          `Service unavailable: write_consistency_factor ${factor} needs ${required} replicas of shard ${shardId} to take the write, and only ${targets.length} of its ${replicas.length} can (the others are ${describeStates(replicas, targets)})`,
        );
      }
      tag ??= this.nextTag(record.id, shardId, peers);
      const epoch = epochOf(record);
      const sendTo = targets.filter((replica) => !applied.has(peerOf(replica)));
      const results = await Promise.allSettled(
        sendTo.map((replica) =>
          peerOf(replica) === peers.selfId
            ? this.replicas.apply(record, shardId, part, epoch, tag)
            : peers.update(peerOf(replica), record, shardId, part, false, epoch, tag),
        ),
      );
      sendTo.forEach((replica, i) => {
        const result = results[i];
        if (result.status === 'fulfilled') applied.set(peerOf(replica), result.value);
      });
      const stale = results.flatMap((result) =>
        result.status === 'rejected' && result.reason instanceof StaleRouting ? [result.reason.epoch] : [],
      );
      if (stale.length > 0 && attempt < MAX_ROUTING_ATTEMPTS) {
        const routedWith = record;
        record = await this.caughtUp(record, Math.max(...stale));
        // Routed while a resharding wrote by both hash rings, to a shard it has since removed (a scale-down's, or
        // an aborted scale-up's new one): the write's part for the shard that owns the points now went there too.
        if (routedWith.resharding && !record.shards.some((replica) => replica.shardId === shardId))
          return Math.max(0, ...applied.values());
        continue;
      }
      const failed = sendTo.flatMap((replica, i) => {
        const result = results[i];
        return result.status === 'rejected' ? [{ peerId: peerOf(replica), error: result.reason as unknown }] : [];
      });
      const activeApplied = targets.some((replica) => ACKING_STATES.has(replica.state) && applied.has(peerOf(replica)));
      if (applied.size < required || !activeApplied) {
        const first = failed[0]?.error;
        throw first instanceof StaleRouting
          ? DomainError.unavailable(
              `Service unavailable: the replicas of shard ${shardId} kept changing while the write was routed; retry`,
            )
          : (first ?? DomainError.unavailable('Service unavailable: no Active replica took the write'));
      }
      if (failed.length > 0) await this.markDead(record, shardId, applied.size, failed);
      return Math.max(...applied.values());
    }
  }

  private nextTag(collectionId: string, shardId: number, peers: PointsPeers): ClockTag {
    const key = `${collectionId}/${shardId}`;
    const seq = (this.clocks.get(key) ?? 0) + 1;
    this.clocks.set(key, seq);
    return { peer: peers.selfId, incarnation: peers.incarnation, seq };
  }

  /** The collection's record once this peer's catalog shows replica epoch `epoch` (or later), within a bound. */
  private async caughtUp(record: CollectionRecord, epoch: number): Promise<CollectionRecord> {
    const deadline = Date.now() + CATCH_UP_MS;
    for (;;) {
      const current = this.catalog?.snapshot.collections.get(record.name);
      if (!current || current.id !== record.id)
        throw DomainError.notFound(`Not found: Collection \`${record.name}\` doesn't exist!`);
      if (epochOf(current) >= epoch || Date.now() >= deadline) return current;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  private async markDead(
    record: CollectionRecord,
    shardId: number,
    applied: number,
    failed: Array<{ peerId: string; error: unknown }>,
  ): Promise<void> {
    try {
      if (!this.cluster) throw new Error('no cluster service');
      await this.cluster.markReplicasDead(
        record.id,
        failed.map((failure) => ({ shardId, peerId: failure.peerId })),
      );
    } catch (error) {
      throw DomainError.internal(
        `Service internal error: the write was applied on ${applied} replica(s) of shard ${shardId}, but the replicas on peers ${failed.map((f) => f.peerId).join(', ')} failed and could not be marked Dead (${error instanceof Error ? error.message : String(error)}); consistency is not guaranteed, retry the write`,
        error,
      );
    }
  }

  /** One shard's part applied to this peer's replica (waiting briefly for storage to open a new shard). */
  applyLocal(context: CollectionContext, shardId: number, part: UpdateOperation): Promise<number> {
    return applyToLocalShard(context, shardId, part);
  }
}

/** Attempts at routing one part when replicas keep changing (each waits for the catalog to catch up). */
const MAX_ROUTING_ATTEMPTS = 4;
/** How long a coordinator waits for its catalog to show the replica epoch a replica answered with. */
const CATCH_UP_MS = 2000;

/**
 * Who takes a shard's part and how many must: every replica that takes writes; `write_consistency_factor`
 * counted over the replicas that are not a transfer's target (those get writes through the transfer's source,
 * and counting them would refuse writes while a shard is being moved or recovered).
 */
function writePlan(record: CollectionRecord, shardId: number) {
  const replicas = record.shards.filter((replica) => replica.shardId === shardId);
  const targets = replicas.filter((replica) => UPDATABLE_REPLICA_STATES.has(replica.state));
  const counted = replicas.filter((replica) => !TRANSFER_TARGET_STATES.has(replica.state));
  const factor = record.config.params.writeConsistencyFactor ?? 1;
  return { replicas, targets, factor, required: Math.min(factor, counted.length) };
}

const TRANSFER_TARGET_STATES: ReadonlySet<string> = new Set(['Partial', 'Recovery', 'PartialSnapshot']);

/**
 * States of a replica whose write makes a shard's part stand: Active, and a resharding's shards (the new shard has no
 * Active replica until reads move to it, the shard a scale-down removes has none from the start; the group's other
 * shards take the same writes meanwhile).
 */
const ACKING_STATES: ReadonlySet<string> = new Set(['Active', 'Resharding', 'ReshardingScaleDown']);

/**
 * The peer that orders a shard's writes, as Qdrant: Strong, the highest peer id holding a replica,
 * whatever that replica's state (a permanent leader: writes fail while it is unreachable); Medium, the
 * highest peer id whose replica takes writes (it moves when that one is Dead). The leader passes each
 * write to the replicas that take writes, its own only if it does.
 */
function orderingLeader(record: CollectionRecord, shardId: number, ordering: WriteOrdering, selfId: string): string {
  const replicas = record.shards
    .filter(
      (replica) =>
        replica.shardId === shardId && (ordering === 'Strong' || UPDATABLE_REPLICA_STATES.has(replica.state)),
    )
    .sort((a, b) => comparePeerIds(b.peerId ?? selfId, a.peerId ?? selfId));
  if (replicas.length === 0) {
    throw DomainError.unavailable(
      `Service unavailable: shard ${shardId} has no replica that can order writes (${ordering.toLowerCase()} ordering)`,
    );
  }
  return replicas[0].peerId ?? selfId;
}

/** `2 Dead, 1 Partial`: the states of the replicas that cannot take a write. */
function describeStates(replicas: readonly ShardRecord[], targets: readonly ShardRecord[]): string {
  const counts = new Map<string, number>();
  for (const replica of replicas)
    if (!targets.includes(replica)) counts.set(replica.state, (counts.get(replica.state) ?? 0) + 1);
  return [...counts].map(([state, count]) => `${count} ${state}`).join(', ') || 'none';
}
