// @vectorstore/collections: the collection catalog, aliases and cluster metadata. See docs/architecture.md.

// The domain vocabulary: configs, requests, cluster shapes.
export type * from './model/vectors.model';
export type * from './model/index-config.model';
export type * from './model/cluster.model';
export type * from './model/collection.model';
export type * from './model/payload-index.model';
export { TOKENIZER_TYPES } from './model/payload-index.model';
export type * from './model/requests.model';
export { PAYLOAD_SCHEMA_TYPES } from './model/collection.model';
export { MEMORY_PLACEMENTS } from './model/index-config.model';
export {
  comparePeerIds,
  describeShardKey,
  isShardOf,
  AWAITING_COPY_REPLICA_STATES,
  READABLE_REPLICA_STATES,
  REPLICA_STATES,
  sameTransfer,
  shardKeyEquals,
  TRANSFER_METHODS,
  UPDATABLE_REPLICA_STATES,
} from './model/cluster.model';

// Services the transports call.
export { CollectionsModule } from './collections.module';
export { CollectionsService } from './collections.service';
export { AliasesService } from './aliases.service';
export { ClusterService } from './cluster.service';
export { PEER_ID, loadOrCreatePeerId } from './cluster/node-identity';
export {
  CLUSTER_MEMBERSHIP,
  type ClusterMembership,
  type ClusterPeerView,
  type ClusterStatusView,
} from './cluster/cluster-membership';
export { VectorNamesService } from './vector-names.service';
export { type PeerStanding, type TransferStart, transferTargetState } from './cluster/shard-transfers';
export {
  groupShardIds,
  migrationUnits,
  type MigrationUnit,
  readExclusions,
  type ReadExclusion,
  reshardingRings,
  unitKeyOf,
  unreadShardIds,
  writeRings,
} from './cluster/resharding';
export { checkAliasName, validateCollectionName } from './validation/name.rules';
export { payloadsOnDisk, quantizedAlwaysInMemory, vectorsOnDisk } from './config/memory-placement';
export {
  DEFAULT_TOKENIZER,
  payloadIndexParamsWithDefaults,
  payloadIndexSchema,
  type PayloadIndexParamsInput,
} from './config/payload-index-schema';

// What libs/points builds its storage on: the catalog it follows and the statistics it reports.
export type { CatalogState } from './catalog/catalog-state';
export { emptyCatalog } from './catalog/catalog-state';
export { CatalogConflict, type CatalogStore } from './catalog/catalog.store';
export { CollectionCatalog } from './catalog/collection-catalog';
export { validateStoredCollectionConfig } from './catalog/stored-config';
export { FileCatalogStore } from './catalog/file-catalog.store';
export {
  CollectionStatsRegistry,
  EmptyCollectionStatsProvider,
  emptyCollectionStats,
  emptyShardStats,
  type CollectionStatsProvider,
} from './stats/collection-stats.provider';
