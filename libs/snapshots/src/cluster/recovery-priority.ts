// What a shard snapshot recovery does to the replicas of the shard in cluster mode, as Qdrant's
// `recover_shard_snapshot_impl` (src/common/snapshots.rs): the snapshot's `priority` says which data wins when the
// shard has other Active replicas. Pure rules over a catalog record; the caller applies them in catalog changes.
import { CollectionRecord, ReplicaState } from '@vectorstore/collections';
import { DomainError } from '@vectorstore/common';

/** Qdrant's `SnapshotPriority` (its default is `snapshot`). */
export const SNAPSHOT_PRIORITIES = ['snapshot', 'replica', 'no_sync'] as const;
export type SnapshotPriority = (typeof SNAPSHOT_PRIORITIES)[number];

/** Replicas Qdrant counts as other sources of truth after a recovery. */
const ACTIVE_STATES: ReadonlySet<ReplicaState> = new Set(['Active', 'ReshardingScaleDown']);

/** Peers other than `selfId` holding an Active replica of shard `shardId`. */
export function otherActiveReplicas(record: CollectionRecord, shardId: number, selfId: string): string[] {
  return record.shards
    .filter((s) => s.shardId === shardId && s.peerId !== undefined && s.peerId !== selfId && ACTIVE_STATES.has(s.state))
    .map((s) => s.peerId as string);
}

/** Transfers moving shard `shardId` (as source or target shard). */
function transfersOfShard(record: CollectionRecord, shardId: number) {
  return (record.transfers ?? []).filter((t) => t.shardId === shardId || (t.toShardId ?? t.shardId) === shardId);
}

/**
 * Before the local replica is replaced: refuses a recovery of a shard that is being transferred (the transfer
 * reads or fills the replica being replaced; Qdrant holds a recovery lock), and a peer without a replica of it.
 * With `replica` priority and another Active replica the local one goes Dead first, so that no read is answered
 * from the snapshot's data, which the other replicas' will replace. Returns whether it did.
 */
export function prepareRecovery(
  record: CollectionRecord,
  shardId: number,
  selfId: string,
  priority: SnapshotPriority,
): boolean {
  const self = record.shards.find((s) => s.shardId === shardId && s.peerId === selfId);
  if (!self) throw notLocalShard(shardId);
  const moving = transfersOfShard(record, shardId)[0];
  if (moving)
    throw DomainError.failedPrecondition(
      `Bad request: shard ${shardId} of ${record.name} is being transferred (peer ${moving.from} -> peer ${moving.to}); recover it once the transfer ends, or abort the transfer first`,
    );
  if (priority !== 'replica' || otherActiveReplicas(record, shardId, selfId).length === 0) return false;
  if (self.state === 'Dead') return false;
  self.state = 'Dead';
  return true;
}

/**
 * After the local replica holds the snapshot's data, Qdrant's outcome: with no other Active replica, or
 * `no_sync`, the local replica is Active (the others are left as they are); with `snapshot` it is Active and
 * every other Active replica goes Dead, so the leader copies them again from this one; with `replica` it stays
 * Dead (see {@link prepareRecovery}), so the leader copies it again from another replica. Transfers of the shard
 * that started meanwhile are ended, their targets Dead.
 */
export function settleRecovery(
  record: CollectionRecord,
  shardId: number,
  selfId: string,
  priority: SnapshotPriority,
): { dead: string[] } {
  const self = record.shards.find((s) => s.shardId === shardId && s.peerId === selfId);
  if (!self) throw notLocalShard(shardId);
  const others = otherActiveReplicas(record, shardId, selfId);
  if (others.length > 0 && priority === 'replica') {
    self.state = 'Dead';
    return { dead: [selfId] };
  }
  self.state = 'Active';
  const dead = others.length > 0 && priority === 'snapshot' ? others : [];
  for (const peerId of dead) {
    const replica = record.shards.find((s) => s.shardId === shardId && s.peerId === peerId);
    if (replica) replica.state = 'Dead';
  }
  const moving = transfersOfShard(record, shardId);
  if (moving.length > 0) {
    record.transfers = (record.transfers ?? []).filter((t) => !moving.includes(t));
    if (record.transfers.length === 0) delete record.transfers;
    for (const transfer of moving) {
      const target = record.shards.find(
        (s) => s.shardId === (transfer.toShardId ?? transfer.shardId) && s.peerId === transfer.to,
      );
      if (target && target !== self) target.state = 'Dead';
    }
  }
  return { dead };
}

/** Qdrant's refusal of a shard snapshot call on a peer that holds no replica of the shard. */
export function notLocalShard(shardId: number): DomainError {
  return DomainError.invalidArgument(`Bad request: Shard ${shardId} is not a local shard`);
}
