import {
  CollectionParamsDiff,
  CreateCollectionRequest,
  ShardingMethod,
  UpdateCollectionRequest,
} from '@vectorstore/collections';
import { ValidationIssues } from '@vectorstore/common';
import type { CreateCollection__Output } from '../../grpc/generated/vectorstore/CreateCollection';
import type { UpdateCollection__Output } from '../../grpc/generated/vectorstore/UpdateCollection';
import {
  hnswFromProto,
  optimizersFromProto,
  quantizationConfigFromProto,
  readMemory,
  quantizationFromProto,
  sparseFromProto,
  strictModeFromProto,
  vectorsDiffFromProto,
  vectorsFromProto,
  walFromProto,
} from './collection-config.mapper';
import { fromProtoStruct } from '../../core/grpc/json-value.mapper';
import { defined, readEnum, readU64 } from '../../core/scalars';

/**
 * Structural decoding of gRPC requests into domain requests. Problems only the wire can have
 * (an empty oneof, a uint64 beyond 2^53) are reported here; rules on values live in the domain.
 */
export function createCollectionFromProto(r: CreateCollection__Output): CreateCollectionRequest {
  const issues = new ValidationIssues();
  const request: CreateCollectionRequest = defined({
    name: r.collectionName ?? '',
    vectors: r.vectorsConfig ? vectorsFromProto(issues, 'vectors_config', r.vectorsConfig) : undefined,
    sparseVectors: r.sparseVectorsConfig
      ? sparseFromProto(issues, 'sparse_vectors_config', r.sparseVectorsConfig)
      : undefined,
    hnswConfig: r.hnswConfig ? hnswFromProto(issues, 'hnsw_config', r.hnswConfig) : undefined,
    walConfig: r.walConfig ? walFromProto(issues, 'wal_config', r.walConfig) : undefined,
    optimizersConfig: r.optimizersConfig
      ? optimizersFromProto(issues, 'optimizers_config', r.optimizersConfig)
      : undefined,
    shardNumber: r.shardNumber,
    onDiskPayload: r.onDiskPayload,
    payload: r.payload ? defined({ memory: readMemory(r.payload.memory) }) : undefined,
    replicationFactor: r.replicationFactor,
    writeConsistencyFactor: r.writeConsistencyFactor,
    quantizationConfig: r.quantizationConfig
      ? quantizationConfigFromProto(issues, 'quantization_config', r.quantizationConfig)
      : undefined,
    shardingMethod: readEnum<ShardingMethod>(r.shardingMethod),
    strictModeConfig: r.strictModeConfig
      ? strictModeFromProto(issues, 'strict_mode_config', r.strictModeConfig)
      : undefined,
    metadata: fromProtoStruct(issues, 'metadata', r.metadata ?? {}),
    timeout: readU64(issues, 'timeout', r.timeout),
  });
  issues.throwIfAny();
  return request;
}

export function updateCollectionFromProto(r: UpdateCollection__Output): UpdateCollectionRequest {
  const issues = new ValidationIssues();
  const metadata = r.metadata ?? {};
  const request: UpdateCollectionRequest = defined({
    name: r.collectionName ?? '',
    optimizersConfig: r.optimizersConfig
      ? optimizersFromProto(issues, 'optimizers_config', r.optimizersConfig)
      : undefined,
    params: r.params
      ? defined<CollectionParamsDiff>({
          replicationFactor: r.params.replicationFactor,
          writeConsistencyFactor: r.params.writeConsistencyFactor,
          onDiskPayload: r.params.onDiskPayload,
          payload: r.params.payload ? defined({ memory: readMemory(r.params.payload.memory) }) : undefined,
          readFanOutFactor: r.params.readFanOutFactor,
          readFanOutDelayMs: readU64(issues, 'params.read_fan_out_delay_ms', r.params.readFanOutDelayMs),
        })
      : undefined,
    hnswConfig: r.hnswConfig ? hnswFromProto(issues, 'hnsw_config', r.hnswConfig) : undefined,
    vectors: r.vectorsConfig ? vectorsDiffFromProto(issues, 'vectors_config', r.vectorsConfig) : undefined,
    quantizationConfig: r.quantizationConfig
      ? quantizationFromProto(issues, 'quantization_config', r.quantizationConfig)
      : undefined,
    sparseVectors: r.sparseVectorsConfig
      ? sparseFromProto(issues, 'sparse_vectors_config', r.sparseVectorsConfig)
      : undefined,
    strictModeConfig: r.strictModeConfig
      ? strictModeFromProto(issues, 'strict_mode_config', r.strictModeConfig)
      : undefined,
    metadata: Object.keys(metadata).length > 0 ? fromProtoStruct(issues, 'metadata', metadata) : undefined,
    timeout: readU64(issues, 'timeout', r.timeout),
  });
  issues.throwIfAny();
  return request;
}
