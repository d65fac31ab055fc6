import { DomainError, setOwn } from '@vectorstore/common';
import { CollectionConfig } from '../model/collection.model';
import { HnswConfig, QuantizationConfig, QuantizationConfigDiff } from '../model/index-config.model';
import { CreateCollectionRequest, UpdateCollectionRequest } from '../model/requests.model';
import {
  SparseVectorParams,
  SparseVectorsConfig,
  VectorParams,
  VectorParamsDiff,
  VectorsConfig,
  VectorsConfigDiff,
} from '../model/vectors.model';
import {
  DEFAULT_HNSW_CONFIG,
  DEFAULT_ON_DISK_PAYLOAD,
  DEFAULT_OPTIMIZERS_CONFIG,
  DEFAULT_REPLICATION_FACTOR,
  DEFAULT_SHARD_NUMBER,
  DEFAULT_WAL_CONFIG,
  DEFAULT_WRITE_CONSISTENCY_FACTOR,
} from './defaults';
import { compact, mergeDefined, mergeMetadata } from './merge';

/** The complete configuration of a new collection: the request's values over the defaults. */
export function buildCollectionConfig(input: CreateCollectionRequest): CollectionConfig {
  // A private copy, so the stored config shares nothing with the caller's objects.
  const request = structuredClone(input);
  return {
    params: compact({
      shardNumber: request.shardNumber ?? DEFAULT_SHARD_NUMBER,
      onDiskPayload: request.onDiskPayload ?? DEFAULT_ON_DISK_PAYLOAD,
      payload: request.payload,
      // Without vectors_config a collection has no dense vectors: an empty named map, as Qdrant reports.
      vectors: request.vectors ?? { paramsMap: {} },
      replicationFactor: request.replicationFactor ?? DEFAULT_REPLICATION_FACTOR,
      writeConsistencyFactor: request.writeConsistencyFactor ?? DEFAULT_WRITE_CONSISTENCY_FACTOR,
      shardingMethod: request.shardingMethod,
      sparseVectors: request.sparseVectors,
    }),
    hnswConfig: mergeDefined(structuredClone(DEFAULT_HNSW_CONFIG), request.hnswConfig),
    optimizerConfig: mergeDefined(structuredClone(DEFAULT_OPTIMIZERS_CONFIG), request.optimizersConfig),
    walConfig: mergeDefined(structuredClone(DEFAULT_WAL_CONFIG), request.walConfig),
    ...(request.quantizationConfig ? { quantizationConfig: request.quantizationConfig } : {}),
    ...(request.strictModeConfig ? { strictModeConfig: request.strictModeConfig } : {}),
    metadata: mergeMetadata({}, request.metadata),
  };
}

/** The configuration an update produces; every diff is merged, nothing else changes. */
export function applyCollectionUpdate(config: CollectionConfig, update: UpdateCollectionRequest): CollectionConfig {
  const next: CollectionConfig = structuredClone(config);
  if (update.params) {
    const { payload, ...params } = update.params;
    next.params = mergeDefined(next.params, params);
    if (payload) next.params.payload = mergeDefined(next.params.payload ?? {}, payload);
  }
  if (update.hnswConfig) next.hnswConfig = mergeDefined(next.hnswConfig, update.hnswConfig);
  if (update.optimizersConfig) next.optimizerConfig = mergeDefined(next.optimizerConfig, update.optimizersConfig);
  if (update.vectors) next.params.vectors = applyVectorsDiff(next.params.vectors, update.vectors);
  if (update.sparseVectors)
    next.params.sparseVectors = applySparseDiff(next.params.sparseVectors, update.sparseVectors);
  if (update.quantizationConfig) {
    const quantization = applyQuantizationDiff(update.quantizationConfig);
    if (quantization) next.quantizationConfig = quantization;
    else delete next.quantizationConfig;
  }
  if (update.strictModeConfig) next.strictModeConfig = mergeStrictMode(next.strictModeConfig, update.strictModeConfig);
  if (update.metadata) next.metadata = mergeMetadata(next.metadata, update.metadata);
  return next;
}

function applyVectorsDiff(vectors: VectorsConfig, diff: VectorsConfigDiff): VectorsConfig {
  if ('params' in diff) {
    if (!('params' in vectors)) {
      throw DomainError.invalidArgument(
        'Wrong input: Not existing vector name error: the collection has named vectors; update them with vectors_config.params_map',
      );
    }
    return { params: applyVectorParamsDiff(vectors.params, diff.params) };
  }
  if ('params' in vectors) {
    const names = Object.keys(diff.paramsMap).filter((name) => name !== '');
    if (names.length > 0)
      throw DomainError.invalidArgument(`Wrong input: Not existing vector name error: ${names.join(', ')}`);
    // The unnamed vector is the one named "" (Qdrant's convention).
    const unnamed = diff.paramsMap[''];
    return unnamed ? { params: applyVectorParamsDiff(vectors.params, unnamed) } : vectors;
  }
  const missing = Object.keys(diff.paramsMap).filter((name) => !Object.hasOwn(vectors.paramsMap, name));
  if (missing.length > 0)
    throw DomainError.invalidArgument(`Wrong input: Not existing vector name error: ${missing.join(', ')}`);
  const paramsMap = { ...vectors.paramsMap };
  for (const [name, entry] of Object.entries(diff.paramsMap)) {
    setOwn(paramsMap, name, applyVectorParamsDiff(paramsMap[name], entry));
  }
  return { paramsMap };
}

function applyVectorParamsDiff(params: VectorParams, diff: VectorParamsDiff): VectorParams {
  const next: VectorParams = { ...params };
  if (diff.hnswConfig) {
    // An empty diff removes the override, so the collection-level HNSW config applies again.
    const hasValues = Object.values(diff.hnswConfig).some((v) => v !== undefined);
    if (hasValues) next.hnswConfig = mergeDefined<HnswConfig>(params.hnswConfig ?? {}, diff.hnswConfig);
    else delete next.hnswConfig;
  }
  if (diff.quantizationConfig) {
    const quantization = applyQuantizationDiff(diff.quantizationConfig);
    if (quantization) next.quantizationConfig = quantization;
    else delete next.quantizationConfig;
  }
  if (diff.onDisk !== undefined) next.onDisk = diff.onDisk;
  if (diff.memory !== undefined) next.memory = diff.memory;
  return next;
}

function applyQuantizationDiff(diff: QuantizationConfigDiff): QuantizationConfig | undefined {
  return 'disabled' in diff ? undefined : diff;
}

function applySparseDiff(stored: SparseVectorsConfig | undefined, diff: SparseVectorsConfig): SparseVectorsConfig {
  const current = stored ?? {};
  const missing = Object.keys(diff).filter((name) => !Object.hasOwn(current, name));
  if (missing.length > 0)
    throw DomainError.invalidArgument(`Wrong input: Not existing vector name error: ${missing.join(', ')}`);
  const next: SparseVectorsConfig = { ...current };
  for (const [name, entry] of Object.entries(diff)) {
    setOwn<SparseVectorParams>(
      next,
      name,
      compact({
        index: entry.index ? mergeDefined(current[name].index ?? {}, entry.index) : current[name].index,
        modifier: entry.modifier ?? current[name].modifier,
      }),
    );
  }
  return next;
}

function mergeStrictMode<T extends object>(stored: T | undefined, diff: T): T {
  const merged = mergeDefined<T>((stored ?? {}) as T, diff) as Record<string, unknown>;
  const storedMaps = (stored ?? {}) as Record<string, unknown>;
  // Per-vector limits merge by vector name rather than replacing the whole map.
  for (const key of ['multivectorConfig', 'sparseConfig']) {
    const before = storedMaps[key] as Record<string, object> | undefined;
    const after = (diff as Record<string, unknown>)[key] as Record<string, object> | undefined;
    if (before && after) merged[key] = { ...before, ...after };
  }
  return merged as T;
}
