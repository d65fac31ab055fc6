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
}

/** How a transfer copies a shard (Qdrant's `ShardTransferMethod`). */
export const TRANSFER_METHODS = ['StreamRecords', 'Snapshot', 'WalDelta', 'ReshardingStreamRecords'] as const;
export type TransferMethod = (typeof TRANSFER_METHODS)[number];

/** Why a transfer runs: an operator asked, a Dead replica is recovered, or a shard lacks replicas. */
export type TransferReason = 'user' | 'recovery' | 'replication';

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
