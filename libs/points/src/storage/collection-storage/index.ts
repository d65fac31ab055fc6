export { CollectionStorage } from './collection-storage';
export { hashToShard, ringShard } from './shard-routing';
export type { ShardHandle } from './shard-routing';
