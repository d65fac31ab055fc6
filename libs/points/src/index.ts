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
export { ReadRouter } from './cluster/read-router';
export { ShardEndpoint } from './cluster/shard-endpoint';
export { POINTS_PEERS, type PointsPeers, type ShardRead, type ShardReadResults } from './cluster/points-peers';
export { encodeOperation, decodeOperation } from './storage/local-shard/operation-codec';
export { VectorNameOperations } from './service/vector-names';
export { CollectionSnapshots, type PartialSegmentManifest } from './storage/collection-snapshots';
export {
  DistanceMatrixService,
  MATRIX_DEFAULT_LIMIT,
  MATRIX_DEFAULT_SAMPLE,
  type DistanceMatrix,
  type DistanceMatrixRequest,
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
