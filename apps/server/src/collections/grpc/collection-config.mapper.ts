import {
  CollectionConfig,
  CompressionRatio,
  Datatype,
  Distance,
  HnswConfig,
  Memory,
  Modifier,
  OptimizersConfig,
  QuantizationConfig,
  QuantizationConfigDiff,
  SparseVectorParams,
  SparseVectorsConfig,
  StrictModeConfig,
  VectorParams,
  VectorParamsDiff,
  VectorsConfig,
  VectorsConfigDiff,
  WalConfig,
} from '@vectorstore/collections';
import { setOwn, ValidationIssues } from '@vectorstore/common';
import type { CollectionConfig as ProtoCollectionConfig } from '../../grpc/generated/vectorstore/CollectionConfig';
import type { Datatype as ProtoDatatype } from '../../grpc/generated/vectorstore/Datatype';
import type { HnswConfigDiff, HnswConfigDiff__Output } from '../../grpc/generated/vectorstore/HnswConfigDiff';
import type {
  OptimizersConfigDiff,
  OptimizersConfigDiff__Output,
} from '../../grpc/generated/vectorstore/OptimizersConfigDiff';
import type {
  QuantizationConfig as ProtoQuantization,
  QuantizationConfig__Output,
} from '../../grpc/generated/vectorstore/QuantizationConfig';
import type { QuantizationConfigDiff__Output } from '../../grpc/generated/vectorstore/QuantizationConfigDiff';
import type {
  SparseVectorConfig,
  SparseVectorConfig__Output,
} from '../../grpc/generated/vectorstore/SparseVectorConfig';
import type {
  StrictModeConfig as ProtoStrictMode,
  StrictModeConfig__Output,
} from '../../grpc/generated/vectorstore/StrictModeConfig';
import type {
  VectorParams as ProtoVectorParams,
  VectorParams__Output,
} from '../../grpc/generated/vectorstore/VectorParams';
import type { VectorParamsDiff__Output } from '../../grpc/generated/vectorstore/VectorParamsDiff';
import type {
  VectorsConfig as ProtoVectorsConfig,
  VectorsConfig__Output,
} from '../../grpc/generated/vectorstore/VectorsConfig';
import type { VectorsConfigDiff__Output } from '../../grpc/generated/vectorstore/VectorsConfigDiff';
import type { WalConfigDiff, WalConfigDiff__Output } from '../../grpc/generated/vectorstore/WalConfigDiff';
import { toProtoStruct } from '../../core/grpc/json-value.mapper';
import { defined, readEnum, readU64 } from '../../core/scalars';

// ---- proto -> domain (requests) ----

/** The proto `Memory` enum; its zero value means unset. */
export function readMemory(value: string | number | undefined): Memory | undefined {
  return readEnum<Memory>(value, 'MemoryUnknown');
}

export function hnswFromProto(issues: ValidationIssues, path: string, hnsw: HnswConfigDiff__Output): HnswConfig {
  return defined({
    m: readU64(issues, `${path}.m`, hnsw.m),
    efConstruct: readU64(issues, `${path}.ef_construct`, hnsw.efConstruct),
    fullScanThreshold: readU64(issues, `${path}.full_scan_threshold`, hnsw.fullScanThreshold),
    maxIndexingThreads: readU64(issues, `${path}.max_indexing_threads`, hnsw.maxIndexingThreads),
    onDisk: hnsw.onDisk,
    memory: readMemory(hnsw.memory),
    payloadM: readU64(issues, `${path}.payload_m`, hnsw.payloadM),
    inlineStorage: hnsw.inlineStorage,
  });
}

export function walFromProto(issues: ValidationIssues, path: string, wal: WalConfigDiff__Output): WalConfig {
  return defined({
    walCapacityMb: readU64(issues, `${path}.wal_capacity_mb`, wal.walCapacityMb),
    walSegmentsAhead: readU64(issues, `${path}.wal_segments_ahead`, wal.walSegmentsAhead),
    walRetainClosed: readU64(issues, `${path}.wal_retain_closed`, wal.walRetainClosed),
  });
}

export function optimizersFromProto(
  issues: ValidationIssues,
  path: string,
  o: OptimizersConfigDiff__Output,
): OptimizersConfig {
  let maxOptimizationThreads: OptimizersConfig['maxOptimizationThreads'];
  if (o.maxOptimizationThreads) {
    const threads = o.maxOptimizationThreads;
    if (threads.variant === 'value') {
      const value = readU64(issues, `${path}.max_optimization_threads.value`, threads.value);
      if (value !== undefined) maxOptimizationThreads = { value };
    } else if (threads.variant === 'setting') {
      maxOptimizationThreads = { setting: readEnum<'Auto'>(threads.setting) ?? 'Auto' };
    } else {
      issues.add(`${path}.max_optimization_threads`, 'Malformed MaxOptimizationThreads: set value or setting');
    }
  }
  return defined({
    deletedThreshold: o.deletedThreshold,
    vacuumMinVectorNumber: readU64(issues, `${path}.vacuum_min_vector_number`, o.vacuumMinVectorNumber),
    defaultSegmentNumber: readU64(issues, `${path}.default_segment_number`, o.defaultSegmentNumber),
    maxSegmentSize: readU64(issues, `${path}.max_segment_size`, o.maxSegmentSize),
    memmapThreshold: readU64(issues, `${path}.memmap_threshold`, o.memmapThreshold),
    indexingThreshold: readU64(issues, `${path}.indexing_threshold`, o.indexingThreshold),
    flushIntervalSec: readU64(issues, `${path}.flush_interval_sec`, o.flushIntervalSec),
    deprecatedMaxOptimizationThreads: readU64(
      issues,
      `${path}.deprecated_max_optimization_threads`,
      o.deprecatedMaxOptimizationThreads,
    ),
    maxOptimizationThreads,
    preventUnoptimized: o.preventUnoptimized,
  });
}

export function quantizationFromProto(
  issues: ValidationIssues,
  path: string,
  q: QuantizationConfig__Output | QuantizationConfigDiff__Output,
): QuantizationConfigDiff | undefined {
  switch (q.quantization) {
    case 'scalar':
      return {
        scalar: defined({
          type: readEnum<'Int8'>(q.scalar?.type) as 'Int8',
          quantile: q.scalar?.quantile,
          alwaysRam: q.scalar?.alwaysRam,
          memory: readMemory(q.scalar?.memory),
        }),
      };
    case 'product':
      return {
        product: defined({
          compression: readEnum<CompressionRatio>(q.product?.compression) ?? 'x4',
          alwaysRam: q.product?.alwaysRam,
          memory: readMemory(q.product?.memory),
        }),
      };
    case 'binary': {
      const b = q.binary ?? {};
      let queryEncoding: string | undefined;
      if (b.queryEncoding) {
        if (b.queryEncoding.variant === 'setting') queryEncoding = readEnum(b.queryEncoding.setting) ?? 'Default';
        else issues.add(`${path}.binary.query_encoding`, 'must set setting');
      }
      return {
        binary: defined({
          alwaysRam: b.alwaysRam,
          memory: readMemory(b.memory),
          encoding: readEnum(b.encoding),
          queryEncoding,
        }) as { alwaysRam?: boolean },
      };
    }
    case 'disabled':
      return { disabled: true };
    default:
      issues.add(path, 'Quantization type is not specified: set one of scalar, product, binary');
      return undefined;
  }
}

/** QuantizationConfig (no `disabled` case) for create requests. */
export function quantizationConfigFromProto(
  issues: ValidationIssues,
  path: string,
  q: QuantizationConfig__Output,
): QuantizationConfig | undefined {
  return quantizationFromProto(issues, path, q) as QuantizationConfig | undefined;
}

export function vectorParamsFromProto(issues: ValidationIssues, path: string, p: VectorParams__Output): VectorParams {
  return defined({
    size: readU64(issues, `${path}.size`, p.size) as number,
    distance: readEnum<Distance>(p.distance) as Distance,
    hnswConfig: p.hnswConfig ? hnswFromProto(issues, `${path}.hnsw_config`, p.hnswConfig) : undefined,
    quantizationConfig: p.quantizationConfig
      ? quantizationConfigFromProto(issues, `${path}.quantization_config`, p.quantizationConfig)
      : undefined,
    onDisk: p.onDisk,
    memory: readMemory(p.memory),
    datatype: readEnum<Datatype>(p.datatype, 'Default'),
    multivectorConfig: p.multivectorConfig
      ? { comparator: readEnum<'MaxSim'>(p.multivectorConfig.comparator) ?? 'MaxSim' }
      : undefined,
  });
}

export function vectorsFromProto(
  issues: ValidationIssues,
  path: string,
  v: VectorsConfig__Output,
): VectorsConfig | undefined {
  if (v.config === 'params' && v.params) return { params: vectorParamsFromProto(issues, `${path}.params`, v.params) };
  if (v.config === 'paramsMap') {
    const paramsMap: Record<string, VectorParams> = {};
    for (const [name, params] of Object.entries(v.paramsMap?.map ?? {})) {
      setOwn(paramsMap, name, vectorParamsFromProto(issues, `${path}.params_map.map.${name}`, params));
    }
    return { paramsMap };
  }
  issues.add(path, 'must set params or params_map');
  return undefined;
}

export function vectorsDiffFromProto(
  issues: ValidationIssues,
  path: string,
  v: VectorsConfigDiff__Output,
): VectorsConfigDiff | undefined {
  const entry = (entryPath: string, d: VectorParamsDiff__Output): VectorParamsDiff =>
    defined({
      hnswConfig: d.hnswConfig ? hnswFromProto(issues, `${entryPath}.hnsw_config`, d.hnswConfig) : undefined,
      quantizationConfig: d.quantizationConfig
        ? quantizationFromProto(issues, `${entryPath}.quantization_config`, d.quantizationConfig)
        : undefined,
      onDisk: d.onDisk,
      memory: readMemory(d.memory),
    });
  if (v.config === 'params' && v.params) return { params: entry(`${path}.params`, v.params) };
  if (v.config === 'paramsMap') {
    const paramsMap: Record<string, VectorParamsDiff> = {};
    for (const [name, d] of Object.entries(v.paramsMap?.map ?? {}))
      setOwn(paramsMap, name, entry(`${path}.params_map.map.${name}`, d));
    return { paramsMap };
  }
  issues.add(path, 'must set params or params_map');
  return undefined;
}

export function sparseFromProto(
  issues: ValidationIssues,
  path: string,
  s: SparseVectorConfig__Output,
): SparseVectorsConfig {
  const result: SparseVectorsConfig = {};
  for (const [name, params] of Object.entries(s.map ?? {})) {
    const entryPath = `${path}.map.${name}`;
    setOwn<SparseVectorParams>(
      result,
      name,
      defined({
        index: params.index
          ? defined({
              fullScanThreshold: readU64(
                issues,
                `${entryPath}.index.full_scan_threshold`,
                params.index.fullScanThreshold,
              ),
              onDisk: params.index.onDisk,
              memory: readMemory(params.index.memory),
              datatype: readEnum<Datatype>(params.index.datatype, 'Default'),
            })
          : undefined,
        modifier: readEnum<Modifier>(params.modifier),
      }),
    );
  }
  return result;
}

export function strictModeFromProto(
  issues: ValidationIssues,
  path: string,
  s: StrictModeConfig__Output,
): StrictModeConfig {
  const u64 = (field: string, value: string | undefined) => readU64(issues, `${path}.${field}`, value);
  return defined({
    enabled: s.enabled,
    maxQueryLimit: s.maxQueryLimit,
    maxTimeout: s.maxTimeout,
    unindexedFilteringRetrieve: s.unindexedFilteringRetrieve,
    unindexedFilteringUpdate: s.unindexedFilteringUpdate,
    searchMaxHnswEf: s.searchMaxHnswEf,
    searchAllowExact: s.searchAllowExact,
    searchMaxOversampling: s.searchMaxOversampling,
    upsertMaxBatchsize: u64('upsert_max_batchsize', s.upsertMaxBatchsize),
    searchMaxBatchsize: u64('search_max_batchsize', s.searchMaxBatchsize),
    maxCollectionVectorSizeBytes: u64('max_collection_vector_size_bytes', s.maxCollectionVectorSizeBytes),
    readRateLimit: s.readRateLimit,
    writeRateLimit: s.writeRateLimit,
    maxCollectionPayloadSizeBytes: u64('max_collection_payload_size_bytes', s.maxCollectionPayloadSizeBytes),
    filterMaxConditions: u64('filter_max_conditions', s.filterMaxConditions),
    conditionMaxSize: u64('condition_max_size', s.conditionMaxSize),
    multivectorConfig: s.multivectorConfig
      ? Object.fromEntries(
          Object.entries(s.multivectorConfig.multivectorConfig ?? {}).map(([name, m]) => [
            name,
            defined({ maxVectors: u64(`multivector_config.${name}.max_vectors`, m.maxVectors) }),
          ]),
        )
      : undefined,
    sparseConfig: s.sparseConfig
      ? Object.fromEntries(
          Object.entries(s.sparseConfig.sparseConfig ?? {}).map(([name, m]) => [
            name,
            defined({ maxLength: u64(`sparse_config.${name}.max_length`, m.maxLength) }),
          ]),
        )
      : undefined,
    maxPointsCount: u64('max_points_count', s.maxPointsCount),
    maxPayloadIndexCount: u64('max_payload_index_count', s.maxPayloadIndexCount),
  });
}

// ---- domain -> proto (responses) ----

export function hnswToProto(h: HnswConfig): HnswConfigDiff {
  return defined({ ...h });
}

export function walToProto(w: WalConfig): WalConfigDiff {
  return defined({ ...w });
}

export function optimizersToProto(o: OptimizersConfig): OptimizersConfigDiff {
  const { maxOptimizationThreads, ...rest } = o;
  return defined({ ...rest, maxOptimizationThreads });
}

/** Our protos have no TurboQuantization (the spec fixes the oneof): gRPC shows none for it (REST does). */
export function quantizationToProto(q: QuantizationConfig): ProtoQuantization | undefined {
  if ('turbo' in q) return undefined;
  if ('scalar' in q) return { scalar: defined({ ...q.scalar }) };
  if ('product' in q) return { product: defined({ ...q.product }) };
  const { queryEncoding, ...rest } = q.binary;
  return { binary: defined({ ...rest, queryEncoding: queryEncoding ? { setting: queryEncoding } : undefined }) };
}

/** Our protos have no `Turbo4` (the spec fixes the enum): gRPC shows the default datatype for it (REST shows turbo4). */
function datatypeToProto(datatype: Datatype | undefined): ProtoDatatype | undefined {
  return datatype === 'Turbo4' ? undefined : datatype;
}

export function vectorParamsToProto(p: VectorParams): ProtoVectorParams {
  return defined({
    size: p.size,
    distance: p.distance,
    hnswConfig: p.hnswConfig ? hnswToProto(p.hnswConfig) : undefined,
    quantizationConfig: p.quantizationConfig ? quantizationToProto(p.quantizationConfig) : undefined,
    onDisk: p.onDisk,
    memory: p.memory,
    datatype: datatypeToProto(p.datatype),
    multivectorConfig: p.multivectorConfig,
  });
}

export function vectorsToProto(v: VectorsConfig): ProtoVectorsConfig {
  if ('params' in v) return { params: vectorParamsToProto(v.params) };
  return {
    paramsMap: { map: Object.fromEntries(Object.entries(v.paramsMap).map(([n, p]) => [n, vectorParamsToProto(p)])) },
  };
}

export function sparseToProto(s: SparseVectorsConfig): SparseVectorConfig {
  return {
    map: Object.fromEntries(
      Object.entries(s).map(([n, p]) => [
        n,
        defined({
          index: p.index && defined({ ...p.index, datatype: datatypeToProto(p.index.datatype) }),
          modifier: p.modifier,
        }),
      ]),
    ),
  };
}

export function strictModeToProto(s: StrictModeConfig): ProtoStrictMode {
  const { multivectorConfig, sparseConfig, ...rest } = s;
  return defined({
    ...rest,
    multivectorConfig: multivectorConfig ? { multivectorConfig } : undefined,
    sparseConfig: sparseConfig ? { sparseConfig } : undefined,
  });
}

export function collectionConfigToProto(c: CollectionConfig): ProtoCollectionConfig {
  const p = c.params;
  return {
    params: defined({
      shardNumber: p.shardNumber,
      onDiskPayload: p.onDiskPayload,
      vectorsConfig: vectorsToProto(p.vectors),
      replicationFactor: p.replicationFactor,
      writeConsistencyFactor: p.writeConsistencyFactor,
      readFanOutFactor: p.readFanOutFactor,
      shardingMethod: p.shardingMethod,
      sparseVectorsConfig: p.sparseVectors ? sparseToProto(p.sparseVectors) : undefined,
      readFanOutDelayMs: p.readFanOutDelayMs,
      payload: p.payload,
    }),
    hnswConfig: hnswToProto(c.hnswConfig),
    optimizerConfig: optimizersToProto(c.optimizerConfig),
    walConfig: walToProto(c.walConfig),
    ...(c.quantizationConfig && quantizationToProto(c.quantizationConfig)
      ? { quantizationConfig: quantizationToProto(c.quantizationConfig) }
      : {}),
    ...(c.strictModeConfig ? { strictModeConfig: strictModeToProto(c.strictModeConfig) } : {}),
    metadata: toProtoStruct(c.metadata),
  };
}
