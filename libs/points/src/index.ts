// @vectorstore/points: what the server app needs from points storage and search. Storage internals (segments,
// shards, the WAL) stay inside the library; see docs/architecture.md.

// The domain vocabulary: requests, results, filters, vectors, point ids.
export type * from './model/point-id.model';
export type * from './model/filter.model';
export type * from './model/vectors.model';
export type * from './model/point.model';
export type * from './model/selectors.model';
export type * from './model/operations.model';
export type * from './model/query.model';
export { canonicalUuid, MAX_U64 } from './model/point-id.model';
export { parseDatetimeMicros } from './filter/datetime';
export { matchesFilter } from './filter/filter-evaluator';
export {
  denseVectorOf,
  finiteFloats,
  MAX_MULTIVECTOR_FLOATS,
  multiVectorFromFlat,
  multiVectorOf,
  sparseVectorOf,
} from './model/vector-rules';
export {
  inferVector,
  INFERENCE_NOT_CONFIGURED,
  type InferenceInput,
  type InferencePurpose,
} from './inference/local-inference';

// Services the transports call.
export {
  SCROLL_DEFAULT_LIMIT,
  FACET_DEFAULT_LIMIT,
  QUERY_DEFAULT_LIMIT,
  QUERY_GROUPS_DEFAULT_GROUP_SIZE,
} from './service/read-defaults';
export { PointsModule } from './points.module';
export { PointsWriter } from './service/points-writer';
export { PointsReader } from './service/points-reader';
export { QueryEngine } from './service/query-engine';
export { encodeOperation, decodeOperation } from './storage/local-shard/operation-codec';
export { VectorNameOperations } from './service/vector-names';
export { CollectionSnapshots, type PartialSegmentManifest } from './storage/collection-snapshots';
export {
  DistanceMatrixService,
  MATRIX_DEFAULT_LIMIT,
  MATRIX_DEFAULT_SAMPLE,
  type DistanceMatrix,
  type DistanceMatrixRequest,
  type MatrixSample,
} from './service/distance-matrix';
export {
  OptimizationsReporter,
  optimizationsOptions,
  DEFAULT_COMPLETED_LIMIT,
  type OptimizationsOptions,
  type OptimizationsReport,
  type PendingOptimization,
} from './service/optimizations.reporter';
export type {
  OptimizationOutcome,
  OptimizationSegment,
  TrackedOptimization,
} from './storage/local-shard/optimization-status';
export { SegmentsReporter, type SegmentTelemetry, type SegmentVectorConfig } from './service/segments.reporter';
export type { Expression, FormulaQuery } from './service/formula';

// For the replicated layer (@vectorstore/replication): the ports it binds, and the single-node
// services and helpers it runs a peer's part of a read or write with and merges answers by.
export {
  applyToLocalShard,
  COLLECTION_STATS_GATHERER,
  LOCAL_SHARD_WRITER,
  POINTS_CLUSTER,
  SHARD_WRITER,
  type CollectionStatsGatherer,
  type PointsCluster,
  type ShardWriter,
} from './service/replication-ports';
export { CollectionContexts, type CollectionContext } from './service/collection-context';
export { PointsStorage } from './storage/points-storage';
export { ScrubService } from './storage/scrub/scrub.service';
export type { ScrubPass, ScrubSettings } from './storage/scrub/scrub.service';
export { CollectionStatsReporter, worseStatus } from './service/collection-stats.reporter';
export { comparePointIds, pointIdKey } from './model/point-id.model';
export { DEFAULT_VECTOR_NAME } from './model/vectors.model';
export { readShards, ringShard } from './storage/collection-storage/shard-routing';
export { damagedReplicaError } from './storage/collection-storage/damaged-replicas';
export { DEFAULT_RRF_K, type ResultOrder } from './service/query-engine';
export { compareFacetHits, facetKey } from './service/points-reader';
export { mergeSamples } from './service/distance-matrix';
export { dbsf, rrf } from './service/fusion';
export {
  boundedProduct,
  DEFAULT_PREFETCH_LIMIT,
  discoverQuery,
  growPrefetchLimits,
  mergeFilters,
  recommendQuery,
  searchQuery,
} from './service/query-requests';
export { collectGroupsAsync, groupIdKey, groupPointId } from './service/grouping';
export { selectPayload, selectVectors } from './service/payload-selection';
export type { ShardChecksum, ClockTag, RecoveryPoint } from './storage/local-shard';
export { damagedRecoveryPoint } from './storage/local-shard';
