import { CollectionClusterInfo, CollectionInfo, LocalShardInfo } from '@vectorstore/collections';
import type { SegmentTelemetry } from '@vectorstore/points';
import { OperationStatistics } from '../../core/metrics/request-stats';
import { collectionConfigToRest, payloadIndexParamsToRest } from '../../collections/rest/collection-info.rest-mapper';
import { shardKeyToRest } from '../../cluster/rest/cluster.rest-mapper';
import { defined } from '../../core/scalars';
import { SERVER_VERSION } from '../../version';

export interface TelemetryInput {
  id: string;
  startedAt: Date;
  detailsLevel: number;
  /** `cluster` (the local shards) is read from details level 3, where shards are reported. */
  collections: Array<{
    name: string;
    info: CollectionInfo;
    cluster?: CollectionClusterInfo;
    /** Shard id → its segments, read from details level 4. */
    segments?: Map<number, SegmentTelemetry[]>;
  }>;
  rest: Record<string, Record<string, OperationStatistics>>;
  grpc: Record<string, Record<string, OperationStatistics>>;
}

/**
 * `GET /telemetry` in Qdrant's TelemetryData shape. Level 0 has exactly the keys Qdrant's level 0
 * has; higher levels add the sections Qdrant adds, with what a single node of ours knows.
 */
export function telemetryToRest(input: TelemetryInput): Record<string, unknown> {
  const app = {
    name: 'qdrant',
    version: SERVER_VERSION,
    features: {
      debug: false,
      service_debug_feature: false,
      recovery_mode: false,
      gpu: false,
      rocksdb: false,
      staging: false,
    },
    startup: input.startedAt.toISOString(),
  };
  const requests = { rest: { responses: input.rest }, grpc: { responses: input.grpc } };
  const quota = { config: { enabled: false }, exceeded: {} };
  if (input.detailsLevel === 0) {
    return {
      id: input.id,
      app,
      collections: { number_of_collections: input.collections.length },
      cluster: { enabled: false },
      requests,
      quota,
    };
  }
  const collections = input.collections.map(({ name, info, cluster, segments }) =>
    input.detailsLevel === 1
      ? {
          vectors: info.pointsCount,
          optimizers_status: info.optimizerStatus.ok ? 'ok' : { error: info.optimizerStatus.error },
          params: collectionConfigToRest(info.config).params,
        }
      : {
          id: name,
          init_time_ms: 0,
          config: collectionConfigToRest(info.config),
          ...(input.detailsLevel >= 3 && cluster
            ? {
                shards: cluster.localShards.map((shard) =>
                  shardTelemetry(
                    shard,
                    cluster.peerId,
                    input.detailsLevel >= 4 ? segments?.get(shard.shardId) : undefined,
                  ),
                ),
                transfers: [],
                resharding: [],
              }
            : {}),
        },
  );
  const memoryUsage = process.memoryUsage();
  return {
    id: input.id,
    app,
    collections: { number_of_collections: input.collections.length, collections, snapshots: [] },
    cluster: { enabled: false },
    requests,
    memory: {
      active_bytes: memoryUsage.heapUsed,
      allocated_bytes: memoryUsage.heapTotal,
      metadata_bytes: 0,
      resident_bytes: memoryUsage.rss,
      retained_bytes: 0,
    },
    hardware: { collection_data: {} },
    search_pool: {},
    quota,
  };
}

/**
 * One shard in Qdrant's ReplicaSetTelemetry shape, with the local fields Qdrant reports at level 3:
 * this node holds it, with its live state (status, points and vectors, estimated sizes, optimization
 * jobs and points optimized since the start, the last applied operation); no remote replicas.
 * From level 4 also each segment (`segments`) and `indexed_only_excluded_vectors` (none: our searches
 * never leave vectors out for `indexed_only`).
 */
function shardTelemetry(
  shard: LocalShardInfo,
  peerId: string,
  segments: SegmentTelemetry[] | undefined,
): Record<string, unknown> {
  const vectors = Object.values(shard.vectorsByName).reduce((sum, count) => sum + count, 0);
  const jobs = shard.optimizations;
  return {
    id: shard.shardId,
    key: shard.shardKey ? shardKeyToRest(shard.shardKey) : null,
    local: {
      variant_name: 'local shard',
      status: shard.status.toLowerCase(),
      total_optimized_points: shard.optimizedPoints,
      vectors_size_bytes: shard.vectorsSizeBytes,
      payloads_size_bytes: shard.payloadsSizeBytes,
      num_points: shard.pointsCount,
      num_vectors: vectors,
      num_vectors_by_name: shard.vectorsByName,
      ...(segments ? { segments: segments.map(segmentToRest) } : {}),
      optimizations: {
        status: shard.optimizerError ? { error: shard.optimizerError } : 'ok',
        optimizations: defined({
          count: jobs.count,
          fail_count: jobs.failCount,
          total_duration_micros: jobs.totalMicros,
          last_responded: jobs.lastEnded,
        }),
      },
      // No asynchronous (io_uring) scorer here.
      async_scorer: false,
      ...(segments ? { indexed_only_excluded_vectors: {} } : {}),
      update_queue: { length: shard.updateQueueLength, op_num: shard.appliedOpNum },
    },
    remote: [],
    replicate_states: { [peerId]: shard.state },
    // Partial snapshots are not built here, so none is ever in progress.
    partial_snapshot: { ongoing_create_snapshot_requests: 0, is_recovering: false, recovery_timestamp: 0 },
  };
}

/** One segment in Qdrant's SegmentTelemetry shape (info, config, search counters, field indexes). */
function segmentToRest(segment: SegmentTelemetry): Record<string, unknown> {
  const indexSchema: Record<string, unknown> = {};
  const fieldIndices: unknown[] = [];
  for (const [field, index] of Object.entries(segment.fieldIndexes)) {
    indexSchema[field] = defined({
      data_type: index.type.toLowerCase(),
      params: index.params ? payloadIndexParamsToRest(index.params) : undefined,
      points: index.points,
    });
    fieldIndices.push({
      field_name: field,
      index_type: index.type.toLowerCase(),
      points_count: index.points,
      points_values_count: index.points,
    });
  }
  const vectorData: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(segment.vectors)) {
    vectorData[name] = { num_vectors: v.count, num_indexed_vectors: v.indexed, num_deleted_vectors: v.deleted };
  }
  const denseConfig: Record<string, unknown> = {};
  for (const [name, c] of Object.entries(segment.denseConfig)) {
    denseConfig[name] = defined({
      size: c.size,
      distance: c.distance,
      storage_type: c.storageType,
      index:
        c.index.type === 'hnsw'
          ? {
              type: 'hnsw',
              options: {
                m: c.index.m,
                ef_construct: c.index.efConstruct,
                full_scan_threshold: c.index.fullScanThreshold,
              },
            }
          : { type: 'plain', options: {} },
      datatype: c.datatype,
      multivector_config: c.multivector ? { comparator: 'max_sim' } : undefined,
    });
  }
  const sparseConfig: Record<string, unknown> = {};
  for (const [name, c] of Object.entries(segment.sparseConfig)) {
    sparseConfig[name] = {
      index: defined({ full_scan_threshold: c.fullScanThreshold, index_type: 'MutableRam' }),
      storage_type: 'mmap',
      modifier: c.idf ? 'idf' : 'none',
    };
  }
  // No per-segment search counters are kept: every kind reports zero calls.
  const none = { count: 0 };
  return {
    info: {
      uuid: segment.uuid,
      segment_type: segment.segmentType,
      num_vectors: segment.numVectors,
      num_points: segment.numPoints,
      num_deferred_points: segment.numDeferredPoints,
      num_deleted_deferred_points: 0,
      num_indexed_vectors: segment.numIndexedVectors,
      num_deleted_vectors: segment.numDeletedVectors,
      vectors_size_bytes: segment.vectorsSizeBytes,
      payloads_size_bytes: segment.payloadsSizeBytes,
      ram_usage_bytes: segment.vectorsSizeBytes + segment.payloadsSizeBytes,
      disk_usage_bytes: 0,
      is_appendable: segment.appendable,
      index_schema: indexSchema,
      vector_data: vectorData,
    },
    config: {
      vector_data: denseConfig,
      sparse_vector_data: sparseConfig,
      payload_storage_type: { type: segment.payloadsOnDisk ? 'mmap' : 'in_ram_mmap' },
    },
    vector_index_searches: Object.keys(segment.vectors).map((name) => ({
      index_name: name,
      unfiltered_plain: none,
      unfiltered_hnsw: none,
      unfiltered_sparse: none,
      filtered_plain: none,
      filtered_small_cardinality: none,
      filtered_large_cardinality: none,
      filtered_exact: none,
      filtered_sparse: none,
      unfiltered_exact: none,
    })),
    payload_field_indices: fieldIndices,
  };
}
