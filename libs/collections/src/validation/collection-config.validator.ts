import { PayloadStorageParams } from '../model/collection.model';
import {
  BINARY_ENCODINGS,
  BINARY_QUERY_ENCODINGS,
  TURBO_BITS,
  COMPRESSION_RATIOS,
  HnswConfig,
  Memory,
  MEMORY_PLACEMENTS,
  OptimizersConfig,
  QuantizationConfig,
  QuantizationConfigDiff,
  StrictModeConfig,
  WalConfig,
} from '../model/index-config.model';
import {
  CollectionParamsDiff,
  CreateCollectionRequest,
  CreateVectorNameRequest,
  DeleteVectorNameRequest,
  UpdateCollectionRequest,
} from '../model/requests.model';
import {
  Datatype,
  DATATYPES,
  DISTANCES,
  MODIFIERS,
  SparseVectorsConfig,
  VectorParams,
  VectorParamsDiff,
  VectorsConfig,
  VectorsConfigDiff,
} from '../model/vectors.model';
import {
  checkCollectionNameReference,
  checkNewCollectionName,
  checkVectorName,
  checkVectorNameReference,
} from './name.rules';
import { ValidationIssues } from '@vectorstore/common';

export const MAX_VECTOR_SIZE = 65536;
/** A single node keeps every shard local; beyond this many a typo is likelier than intent. */
export const MAX_SHARD_NUMBER = 1024;

/** Validates a create request field by field; throws INVALID_ARGUMENT listing every problem. */
export function validateCreateCollection(request: CreateCollectionRequest): void {
  const issues = new ValidationIssues();
  checkNewCollectionName(issues, 'collection_name', request.name);
  if (request.vectors) checkVectorsConfig(issues, 'vectors_config', request.vectors);
  if (request.sparseVectors) checkSparseVectors(issues, 'sparse_vectors_config', request.sparseVectors);
  checkNameCollisions(issues, request.vectors, request.sparseVectors);
  if (request.hnswConfig) checkHnsw(issues, 'hnsw_config', request.hnswConfig);
  if (request.walConfig) checkWal(issues, 'wal_config', request.walConfig);
  if (request.optimizersConfig) checkOptimizers(issues, 'optimizers_config', request.optimizersConfig);
  if (request.payload) checkPayloadStorage(issues, 'payload', request.payload);
  issues.range('shard_number', request.shardNumber, 1, MAX_SHARD_NUMBER);
  issues.range('replication_factor', request.replicationFactor, 1);
  issues.range('write_consistency_factor', request.writeConsistencyFactor, 1);
  issues.oneOf('sharding_method', request.shardingMethod, ['Auto', 'Custom']);
  if (request.quantizationConfig) checkQuantization(issues, 'quantization_config', request.quantizationConfig);
  if (request.strictModeConfig) checkStrictMode(issues, 'strict_mode_config', request.strictModeConfig);
  issues.throwIfAny();
}

/** Validates an update request's diffs. */
export function validateUpdateCollection(request: UpdateCollectionRequest): void {
  const issues = new ValidationIssues();
  checkCollectionNameReference(issues, 'collection_name', request.name);
  issues.range('timeout', request.timeout, 1);
  if (request.optimizersConfig) checkOptimizers(issues, 'optimizers_config', request.optimizersConfig);
  if (request.params) checkParamsDiff(issues, 'params', request.params);
  if (request.hnswConfig) checkHnsw(issues, 'hnsw_config', request.hnswConfig);
  if (request.vectors) checkVectorsDiff(issues, 'vectors_config', request.vectors);
  if (request.quantizationConfig) checkQuantization(issues, 'quantization_config', request.quantizationConfig);
  if (request.sparseVectors) checkSparseVectors(issues, 'sparse_vectors_config', request.sparseVectors);
  if (request.strictModeConfig) checkStrictMode(issues, 'strict_mode_config', request.strictModeConfig);
  issues.throwIfAny();
}

/**
 * CreateVectorName: a non-empty vector name (the unnamed vector comes only with the collection), a
 * dense config as a collection's vector params (size 1..65536, a distance) or a sparse one.
 */
export function validateCreateVectorName(request: CreateVectorNameRequest): void {
  const issues = new ValidationIssues();
  checkCollectionNameReference(issues, 'collection_name', request.collectionName);
  const config = request.config;
  if (request.vectorName.length === 0)
    issues.add('vector_name', 'must not be empty (the unnamed vector is defined when the collection is created)');
  else checkVectorName(issues, 'vector_name', request.vectorName, 'dense' in config ? 'dense' : 'sparse');
  if ('dense' in config) {
    checkVectorParams(issues, 'dense_config', config.dense);
  } else {
    issues.oneOf('sparse_config.modifier', config.sparse.modifier, MODIFIERS);
    issues.oneOf('sparse_config.datatype', config.sparse.datatype, DATATYPES);
    checkSparseDatatype(issues, 'sparse_config.datatype', config.sparse.datatype);
  }
  issues.range('timeout', request.timeout, 1);
  issues.throwIfAny();
}

/** DeleteVectorName: any vector name but the unnamed one, which a collection cannot lose. */
export function validateDeleteVectorName(request: DeleteVectorNameRequest): void {
  const issues = new ValidationIssues();
  checkCollectionNameReference(issues, 'collection_name', request.collectionName);
  if (request.vectorName.length === 0) issues.add('vector_name', 'the unnamed (default) vector cannot be deleted');
  else checkVectorNameReference(issues, 'vector_name', request.vectorName);
  issues.range('timeout', request.timeout, 1);
  issues.throwIfAny();
}

function checkVectorsConfig(issues: ValidationIssues, path: string, vectors: VectorsConfig): void {
  if ('params' in vectors) {
    checkVectorParams(issues, `${path}.params`, vectors.params);
    return;
  }
  for (const [name, params] of Object.entries(vectors.paramsMap)) {
    const entryPath = `${path}.params_map.map.${name}`;
    checkVectorName(issues, entryPath, name, 'dense');
    checkVectorParams(issues, entryPath, params);
  }
}

function checkVectorParams(issues: ValidationIssues, path: string, params: VectorParams): void {
  issues.range(`${path}.size`, params.size, 1, MAX_VECTOR_SIZE);
  if (params.size === undefined) issues.add(`${path}.size`, 'must be set');
  if ((params.distance as string | undefined) === undefined) {
    issues.add(`${path}.distance`, 'must be set to one of Cosine, Euclid, Dot, Manhattan');
  } else {
    issues.oneOf(`${path}.distance`, params.distance, DISTANCES);
  }
  issues.oneOf(`${path}.datatype`, params.datatype, DATATYPES);
  checkMemory(issues, `${path}.memory`, params.memory, 'dense vector storage');
  if (params.hnswConfig) checkHnsw(issues, `${path}.hnsw_config`, params.hnswConfig);
  if (params.quantizationConfig) checkQuantization(issues, `${path}.quantization_config`, params.quantizationConfig);
  if (params.multivectorConfig)
    issues.oneOf(`${path}.multivector_config.comparator`, params.multivectorConfig.comparator, ['MaxSim']);
}

function checkVectorsDiff(issues: ValidationIssues, path: string, diff: VectorsConfigDiff): void {
  const entries: Array<[string, VectorParamsDiff]> =
    'params' in diff
      ? [[`${path}.params`, diff.params]]
      : Object.entries(diff.paramsMap).map(([n, d]) => [`${path}.params_map.map.${n}`, d]);
  for (const [entryPath, entry] of entries) {
    checkMemory(issues, `${entryPath}.memory`, entry.memory, 'dense vector storage');
    if (entry.hnswConfig) checkHnsw(issues, `${entryPath}.hnsw_config`, entry.hnswConfig);
    if (entry.quantizationConfig)
      checkQuantization(issues, `${entryPath}.quantization_config`, entry.quantizationConfig);
  }
}

function checkSparseVectors(issues: ValidationIssues, path: string, sparse: SparseVectorsConfig): void {
  for (const [name, params] of Object.entries(sparse)) {
    const entryPath = `${path}.map.${name}`;
    checkVectorName(issues, entryPath, name, 'sparse');
    issues.oneOf(`${entryPath}.modifier`, params.modifier, MODIFIERS);
    issues.oneOf(`${entryPath}.index.datatype`, params.index?.datatype, DATATYPES);
    checkSparseDatatype(issues, `${entryPath}.index.datatype`, params.index?.datatype);
    checkMemory(issues, `${entryPath}.index.memory`, params.index?.memory);
  }
}

function checkNameCollisions(
  issues: ValidationIssues,
  dense: VectorsConfig | undefined,
  sparse: SparseVectorsConfig | undefined,
): void {
  if (!dense || !sparse || 'params' in dense) return;
  for (const name of Object.keys(sparse)) {
    if (name in dense.paramsMap) {
      issues.add(
        'sparse_vectors_config',
        `Dense and sparse vector names must be unique - duplicate found with '${name}'`,
      );
    }
  }
}

function checkHnsw(issues: ValidationIssues, path: string, hnsw: HnswConfig): void {
  issues.range(`${path}.m`, hnsw.m, 0);
  issues.range(`${path}.ef_construct`, hnsw.efConstruct, 4);
  // Qdrant's HnswConfigDiff: at least 10 (KB of vectors), on create and update alike.
  issues.range(`${path}.full_scan_threshold`, hnsw.fullScanThreshold, 10);
  issues.range(`${path}.max_indexing_threads`, hnsw.maxIndexingThreads, 0);
  issues.range(`${path}.payload_m`, hnsw.payloadM, 0);
  checkMemory(issues, `${path}.memory`, hnsw.memory);
}

/**
 * A memory placement; `notPinnable` names a component that cannot be pinned (dense vectors and
 * payloads have no in-heap variant in Qdrant), refused in Qdrant's words.
 */
function checkMemory(issues: ValidationIssues, path: string, memory: Memory | undefined, notPinnable?: string): void {
  if (memory === undefined) return;
  issues.oneOf(path, memory, MEMORY_PLACEMENTS);
  if (memory === 'Pinned' && notPinnable) {
    issues.add(path, `\`pinned\` memory placement is not supported for ${notPinnable}`);
  }
}

/** Sparse vectors have no turbo4 form, in Qdrant's words. */
function checkSparseDatatype(issues: ValidationIssues, path: string, datatype: Datatype | undefined): void {
  if (datatype === 'Turbo4') issues.add(path, 'sparse vectors do not support the `turbo4` datatype');
}

function checkPayloadStorage(issues: ValidationIssues, path: string, payload: PayloadStorageParams): void {
  checkMemory(issues, `${path}.memory`, payload.memory, 'payload storage');
}

function checkWal(issues: ValidationIssues, path: string, wal: WalConfig): void {
  // One WAL segment file: 1 TiB is far beyond any use and keeps byte offsets exact.
  issues.range(`${path}.wal_capacity_mb`, wal.walCapacityMb, 1, 1_048_576);
  issues.range(`${path}.wal_segments_ahead`, wal.walSegmentsAhead, 0);
  issues.range(`${path}.wal_retain_closed`, wal.walRetainClosed, 1);
}

function checkOptimizers(issues: ValidationIssues, path: string, optimizers: OptimizersConfig): void {
  issues.between(`${path}.deleted_threshold`, optimizers.deletedThreshold, 0, 1);
  issues.range(`${path}.vacuum_min_vector_number`, optimizers.vacuumMinVectorNumber, 100);
  issues.range(`${path}.max_segment_size`, optimizers.maxSegmentSize, 1);
  const threads = optimizers.maxOptimizationThreads;
  if (threads && 'setting' in threads)
    issues.oneOf(`${path}.max_optimization_threads.setting`, threads.setting, ['Auto']);
}

function checkParamsDiff(issues: ValidationIssues, path: string, params: CollectionParamsDiff): void {
  if (params.payload) checkPayloadStorage(issues, `${path}.payload`, params.payload);
  issues.range(`${path}.replication_factor`, params.replicationFactor, 1);
  issues.range(`${path}.write_consistency_factor`, params.writeConsistencyFactor, 1);
}

function checkQuantization(
  issues: ValidationIssues,
  path: string,
  quantization: QuantizationConfig | QuantizationConfigDiff,
): void {
  if ('scalar' in quantization) {
    if ((quantization.scalar.type as string | undefined) !== 'Int8') {
      issues.add(
        `${path}.scalar.type`,
        `value ${quantization.scalar.type ?? 'UnknownQuantization'} invalid, must be Int8`,
      );
    }
    issues.between(`${path}.scalar.quantile`, quantization.scalar.quantile, 0.5, 1);
    checkMemory(issues, `${path}.scalar.memory`, quantization.scalar.memory);
  } else if ('product' in quantization) {
    issues.oneOf(`${path}.product.compression`, quantization.product.compression, COMPRESSION_RATIOS);
    checkMemory(issues, `${path}.product.memory`, quantization.product.memory);
  } else if ('binary' in quantization) {
    checkMemory(issues, `${path}.binary.memory`, quantization.binary.memory);
    issues.oneOf(`${path}.binary.encoding`, quantization.binary.encoding, BINARY_ENCODINGS);
    issues.oneOf(`${path}.binary.query_encoding`, quantization.binary.queryEncoding, BINARY_QUERY_ENCODINGS);
  } else if ('turbo' in quantization) {
    checkMemory(issues, `${path}.turbo.memory`, quantization.turbo.memory);
    issues.oneOf(`${path}.turbo.bits`, quantization.turbo.bits, TURBO_BITS);
  }
}

function checkStrictMode(issues: ValidationIssues, path: string, strict: StrictModeConfig): void {
  issues.range(`${path}.max_query_limit`, strict.maxQueryLimit, 1);
  issues.range(`${path}.max_timeout`, strict.maxTimeout, 1);
  issues.range(`${path}.max_points_count`, strict.maxPointsCount, 1);
  issues.range(`${path}.read_rate_limit`, strict.readRateLimit, 1);
  issues.range(`${path}.write_rate_limit`, strict.writeRateLimit, 1);
  issues.range(`${path}.search_max_hnsw_ef`, strict.searchMaxHnswEf, 0);
  // A float over gRPC may be infinite; the stored config is JSON, which has no Infinity.
  const oversampling = strict.searchMaxOversampling;
  if (oversampling !== undefined && !(oversampling >= 1 && Number.isFinite(oversampling))) {
    const rule = oversampling === Infinity ? 'a finite number' : '1 or larger';
    issues.add(`${path}.search_max_oversampling`, `value ${oversampling} invalid, must be ${rule}`);
  }
}
