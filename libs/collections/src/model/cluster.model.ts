import type { ShardRuntimeStats } from './status.model';

/** A user-defined shard key: a keyword or an unsigned 64-bit number (kept as a decimal string, exact). */
export type ShardKey = { keyword: string } | { number: string };

export const REPLICA_STATES = [
  'Active',
  'Dead',
  'Partial',
  'Initializing',
  'Listener',
  'PartialSnapshot',
  'Recovery',
  'Resharding',
  'ReshardingScaleDown',
  'ActiveRead',
  'ManualRecovery',
] as const;
export type ReplicaState = (typeof REPLICA_STATES)[number];

/** Replica states that take writes (not Dead, not waiting for a transfer), as Qdrant's updatable peers. */
export const UPDATABLE_REPLICA_STATES: ReadonlySet<ReplicaState> = new Set([
  'Active',
  'Initializing',
  'Listener',
  'Resharding',
  'ReshardingScaleDown',
  'ActiveRead',
]);

/** Replica states a read may be answered from, as Qdrant's readable peers. */
export const READABLE_REPLICA_STATES: ReadonlySet<ReplicaState> = new Set([
  'Active',
  'ActiveRead',
  'ReshardingScaleDown',
]);

/** Replica states that wait for a copy anyway (a transfer's target, or Dead): what their files hold is not needed. */
export const AWAITING_COPY_REPLICA_STATES: ReadonlySet<ReplicaState> = new Set([
  'Dead',
  'Partial',
  'Recovery',
  'PartialSnapshot',
]);

/** Peer ids (u64 decimal text) in numeric order. */
export function comparePeerIds(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

export type ShardingMethod = 'Auto' | 'Custom';

/** One shard of a collection. */
export interface ShardRecord {
  shardId: number;
  state: ReplicaState;
  shardKey?: ShardKey;
  /** The peer holding it (cluster mode); absent on a standalone server, which holds every shard. */
  peerId?: string;
}

export interface ShardKeyRecord {
  key: ShardKey;
  shardsNumber: number;
  replicationFactor: number;
}

/** A local shard: its record and its live state. */
export interface LocalShardInfo extends ShardRecord, ShardRuntimeStats {}

/** A shard held by another peer (cluster mode). */
export interface RemoteShardInfo extends ShardRecord {
  peerId: string;
}

export interface CollectionClusterInfo {
  peerId: string;
  shardCount: number;
  localShards: LocalShardInfo[];
  remoteShards: RemoteShardInfo[];
  /** Transfers running now, with the source's progress note. */
  shardTransfers: ShardTransferInfo[];
  /** The resharding in progress, if any (Qdrant's `resharding_operations`). */
  reshardingOperations: ReshardingInfo[];
}

/** Which way a resharding goes: a shard added (`Up`) or the last one removed (`Down`). */
export type ReshardingDirection = 'Up' | 'Down';

/**
 * The steps of a resharding (Qdrant's names): points are copied to where the new hash ring puts them while
 * writes go by both rings; then reads follow the new ring; then writes; then the old copies go. `Aborting`: a
 * scale-down given up, the copies it made being removed.
 */
export type ReshardingStage = 'MigratingPoints' | 'ReadHashRingCommitted' | 'WriteHashRingCommitted' | 'Aborting';

/** A resharding in progress, as the catalog records it (cluster mode). */
export interface ReshardingRecord {
  direction: ReshardingDirection;
  /** Up: the shard being added; Down: the shard being removed (the highest id of its group). */
  shardId: number;
  /** The peer the new shard is placed on (Up), or a peer holding the shard removed (Down). */
  peerId: string;
  /** The shard key whose shards change (custom sharding); absent for auto sharding. */
  shardKey?: ShardKey;
  stage: ReshardingStage;
  /** When the current stage began (ISO 8601): the write ring is committed a while after the read ring. */
  stageAt: string;
  /** The copies done so far, as `sourceShard>targetShard@targetPeer`. */
  migrated?: string[];
}

/** A resharding as cluster info shows it. */
export interface ReshardingInfo {
  direction: ReshardingDirection;
  shardId: number;
  peerId: string;
  shardKey?: ShardKey;
}

/** How a transfer copies a shard (Qdrant's `ShardTransferMethod`). */
export const TRANSFER_METHODS = ['StreamRecords', 'Snapshot', 'WalDelta', 'ReshardingStreamRecords'] as const;
export type TransferMethod = (typeof TRANSFER_METHODS)[number];

/** Why a transfer runs: an operator asked, a Dead replica is recovered, a shard lacks replicas, or resharding. */
export type TransferReason = 'user' | 'recovery' | 'replication' | 'resharding';

/** The key of a transfer, as Qdrant's `ShardTransferKey`: one transfer per shard, source and target. */
export interface ShardTransferKey {
  shardId: number;
  /** The target shard, when it differs from the source shard (replicate_points, resharding). */
  toShardId?: number;
  from: string;
  to: string;
}

/** A transfer in progress, as the catalog records it (cluster mode). */
export interface ShardTransferRecord extends ShardTransferKey {
  /** true: the source keeps its replica (replicate); false: it drops it at the end (move). */
  sync: boolean;
  method: TransferMethod;
  reason: TransferReason;
  /**
   * replicate_points: only points matching this filter, the points library's filter in Node's structured-clone
   * encoding (base64), which keeps its exact integers and numbers apart.
   */
  filter?: string;
  /** When it started (ISO 8601). */
  startedAt: string;
  /** The target replica's state before the transfer (absent: it had none); an abort restores it. */
  targetWas?: ReplicaState;
}

/** A running transfer as cluster info shows it. */
export interface ShardTransferInfo extends ShardTransferKey {
  sync: boolean;
  method: TransferMethod;
  /** Progress, as Qdrant words it (`transferring (1.20s) | Transferring records (300/1000), ETA: 2.40s`). */
  comment?: string;
}

export function sameTransfer(a: ShardTransferKey, b: ShardTransferKey): boolean {
  return (
    a.shardId === b.shardId &&
    a.from === b.from &&
    a.to === b.to &&
    (a.toShardId ?? a.shardId) === (b.toShardId ?? b.shardId)
  );
}

/** Whether `peerId` holds `shard`: standalone shards (no peer) are everyone's. */
export function isShardOf(shard: ShardRecord, peerId: string): boolean {
  return shard.peerId === undefined || shard.peerId === peerId;
}

export function shardKeyEquals(a: ShardKey, b: ShardKey): boolean {
  return 'keyword' in a ? 'keyword' in b && a.keyword === b.keyword : 'number' in b && a.number === b.number;
}

export function describeShardKey(key: ShardKey): string {
  return 'keyword' in key ? `"${key.keyword}"` : key.number;
}
