import { CollectionClusterInfo, CollectionInfo, LocalShardInfo } from '@vectorstore/collections';
import { OperationStatistics } from '../../core/metrics/request-stats';
import { collectionConfigToRest } from '../../collections/rest/collection-info.rest-mapper';
import { shardKeyToRest } from '../../cluster/rest/cluster.rest-mapper';
import { defined } from '../../core/scalars';
import { SERVER_VERSION } from '../../version';

export interface TelemetryInput {
  id: string;
  startedAt: Date;
  detailsLevel: number;
  /** `cluster` (the local shards) is read from details level 3, where shards are reported. */
  collections: Array<{ name: string; info: CollectionInfo; cluster?: CollectionClusterInfo }>;
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
  const collections = input.collections.map(({ name, info, cluster }) =>
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
                shards: cluster.localShards.map((shard) => shardTelemetry(shard, cluster.peerId)),
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
 * Level 4's segment detail is not reported.
 */
function shardTelemetry(shard: LocalShardInfo, peerId: string): Record<string, unknown> {
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
      update_queue: { length: shard.updateQueueLength, op_num: shard.appliedOpNum },
    },
    remote: [],
    replicate_states: { [peerId]: shard.state },
    // Partial snapshots are not built here, so none is ever in progress.
    partial_snapshot: { ongoing_create_snapshot_requests: 0, is_recovering: false, recovery_timestamp: 0 },
  };
}
