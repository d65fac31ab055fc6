export { CollectionStorage } from './collection-storage';
export { hashToShard } from './shard-routing';
export type { ShardHandle } from './shard-routing';
