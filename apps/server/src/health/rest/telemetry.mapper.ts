import { CollectionInfo } from '@vectorstore/collections';
import { OperationStatistics } from '../../core/metrics/request-stats';
import { collectionConfigToRest } from '../../collections/rest/collection-info.rest-mapper';
import { SERVER_VERSION } from '../../version';

export interface TelemetryInput {
  id: string;
  startedAt: Date;
  detailsLevel: number;
  collections: Array<{ name: string; info: CollectionInfo }>;
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
  const collections = input.collections.map(({ name, info }) =>
    input.detailsLevel === 1
      ? {
          vectors: info.pointsCount,
          optimizers_status: info.optimizerStatus.ok ? 'ok' : { error: info.optimizerStatus.error },
          params: collectionConfigToRest(info.config).params,
        }
      : { id: name, init_time_ms: 0, config: collectionConfigToRest(info.config) },
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
