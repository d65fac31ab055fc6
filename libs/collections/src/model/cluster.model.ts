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
