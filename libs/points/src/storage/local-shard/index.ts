export { LocalShard } from './local-shard';
export type { LocalShardOptions } from './local-shard';
export type { FieldIndexSchema } from './field-index-schema';
export type { PointRef } from './shard-points';
export type { SettledHits, ShardHit } from './shard-search';
export type { ShardChecksum } from './shard-export';
export type { AppliedListener } from './shard-wal';
export type { ClockTag, RecoveryPoint } from './shard-clocks';
export { damagedRecoveryPoint } from './shard-clocks';
