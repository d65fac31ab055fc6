import { ShardKey } from '@vectorstore/collections';
import { Filter } from './filter.model';
import { PointId } from './point-id.model';

/** Which payload keys to return. */
export type PayloadSelector = { enable: boolean } | { include: string[] } | { exclude: string[] };

/** Which vectors to return. */
export type VectorSelector = { enable: boolean } | { include: string[] };

/** Points chosen by id or by filter. */
export type PointsSelector = { ids: PointId[] } | { filter: Filter };

/** Which shard keys an operation targets (custom sharding). */
export interface ShardKeySelector {
  shardKeys: ShardKey[];
  /** Used when a key in `shardKeys` does not exist. */
  fallback?: ShardKey;
}
