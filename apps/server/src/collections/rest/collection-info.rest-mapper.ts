import {
  CollectionConfig,
  CollectionInfo,
  HnswConfig,
  Memory,
  OptimizersConfig,
  PayloadIndexParams,
  QuantizationConfig,
  SparseVectorsConfig,
  StrictModeConfig,
  VectorParams,
  VectorsConfig,
} from '@vectorstore/collections';
import { userJsonToRest } from '../../core/rest/rest-json';
import { defined } from '../../core/scalars';
import {
  BINARY_ENCODING_NAMES,
  BINARY_QUERY_ENCODING_NAMES,
  DATATYPE_NAMES,
  MEMORY_NAMES,
  MODIFIER_NAMES,
  SHARDING_METHOD_NAMES,
} from './collection-config.rest-decoders';

type Json = Record<string, unknown>;

/** The REST name of a domain enum value, from the same tables the decoders read. */
function restName<T extends string>(names: Record<string, T>, value: T): string {
  return Object.keys(names).find((key) => names[key] === value) ?? value;
}

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Flat config objects (no user-chosen keys, no enums) with their field names in snake_case. */
function snakeKeys(value: object): Json {
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .map(([key, item]) => [snake(key), item]),
  );
}

/** A config object whose `memory` placement REST spells in lower case. */
function withMemory<T extends { memory?: Memory }>(value: T): Omit<T, 'memory'> & { memory?: string } {
  return { ...value, memory: value.memory && restName(MEMORY_NAMES, value.memory) };
}

function hnswToRest(h: HnswConfig): Json {
  return snakeKeys(withMemory(h));
}

function quantizationToRest(q: QuantizationConfig): Json {
  if ('scalar' in q) return { scalar: snakeKeys(withMemory({ ...q.scalar, type: 'int8' })) };
  if ('product' in q) return { product: snakeKeys(withMemory(q.product)) };
  if ('turbo' in q) {
    const { bits, ...rest } = withMemory(q.turbo);
    return { turbo: snakeKeys({ ...rest, bits: bits?.toLowerCase() }) };
  }
  const { encoding, queryEncoding, ...rest } = withMemory(q.binary);
  return {
    binary: snakeKeys({
      ...rest,
      encoding: encoding && restName(BINARY_ENCODING_NAMES, encoding),
      queryEncoding: queryEncoding && restName(BINARY_QUERY_ENCODING_NAMES, queryEncoding),
    }),
  };
}

function vectorParamsToRest(p: VectorParams): Json {
  return defined({
    size: p.size,
    distance: p.distance,
    hnsw_config: p.hnswConfig && hnswToRest(p.hnswConfig),
    quantization_config: p.quantizationConfig && quantizationToRest(p.quantizationConfig),
    on_disk: p.onDisk,
    memory: p.memory && restName(MEMORY_NAMES, p.memory),
    datatype: p.datatype && restName(DATATYPE_NAMES, p.datatype),
    multivector_config: p.multivectorConfig && { comparator: 'max_sim' },
  });
}

export function vectorsToRest(v: VectorsConfig): Json {
  if ('params' in v) return vectorParamsToRest(v.params);
  const result: Json = {};
  for (const [name, params] of Object.entries(v.paramsMap)) {
    Object.defineProperty(result, name, { value: vectorParamsToRest(params), enumerable: true, writable: true });
  }
  return result;
}

function sparseToRest(s: SparseVectorsConfig): Json {
  const result: Json = {};
  for (const [name, p] of Object.entries(s)) {
    const value = defined({
      index:
        p.index &&
        snakeKeys(withMemory({ ...p.index, datatype: p.index.datatype && restName(DATATYPE_NAMES, p.index.datatype) })),
      modifier: p.modifier && restName(MODIFIER_NAMES, p.modifier),
    });
    Object.defineProperty(result, name, { value, enumerable: true, writable: true });
  }
  return result;
}

function optimizersToRest(o: OptimizersConfig): Json {
  const { maxOptimizationThreads, deprecatedMaxOptimizationThreads: _deprecated, ...rest } = o;
  // The stored config says Auto; REST shows it as null ("no limit, chosen dynamically").
  const threads = maxOptimizationThreads && 'value' in maxOptimizationThreads ? maxOptimizationThreads.value : null;
  return snakeKeys({ ...rest, maxOptimizationThreads: threads });
}

function strictModeToRest(s: StrictModeConfig): Json {
  const { multivectorConfig, sparseConfig, ...rest } = s;
  const perName = <T extends object>(config: Record<string, T> | undefined) =>
    config && Object.fromEntries(Object.entries(config).map(([name, limits]) => [name, snakeKeys(limits)]));
  return snakeKeys({ ...rest, multivectorConfig: perName(multivectorConfig), sparseConfig: perName(sparseConfig) });
}

export function collectionConfigToRest(c: CollectionConfig): Json {
  const p = c.params;
  return defined({
    params: defined({
      vectors: vectorsToRest(p.vectors),
      shard_number: p.shardNumber,
      sharding_method: p.shardingMethod && restName(SHARDING_METHOD_NAMES, p.shardingMethod),
      replication_factor: p.replicationFactor,
      write_consistency_factor: p.writeConsistencyFactor,
      read_fan_out_factor: p.readFanOutFactor,
      read_fan_out_delay_ms: p.readFanOutDelayMs,
      on_disk_payload: p.onDiskPayload,
      payload: p.payload && snakeKeys(withMemory(p.payload)),
      sparse_vectors: p.sparseVectors && sparseToRest(p.sparseVectors),
    }),
    hnsw_config: hnswToRest(c.hnswConfig),
    optimizer_config: optimizersToRest(c.optimizerConfig),
    wal_config: snakeKeys(c.walConfig),
    quantization_config: c.quantizationConfig ? quantizationToRest(c.quantizationConfig) : null,
    strict_mode_config: c.strictModeConfig && strictModeToRest(c.strictModeConfig),
    metadata: Object.keys(c.metadata).length > 0 ? userJsonToRest(c.metadata) : undefined,
  });
}

/** Payload index parameters as REST shows them: `{"type": "keyword", "is_tenant": true, …}`. */
export function payloadIndexParamsToRest(params: PayloadIndexParams): Json {
  const [type, given] = Object.entries(params)[0] as [string, { memory?: Memory }];
  const values = withMemory(given) as Json;
  if (type !== 'text') return { type, ...snakeKeys(values) };
  const { tokenizer, stopwords, stemmer, ...rest } = values as {
    tokenizer: string;
    stopwords?: { languages: string[]; custom: string[] };
    stemmer?: { snowball: { language: string } };
  };
  return {
    type,
    tokenizer: tokenizer.toLowerCase(),
    ...snakeKeys(rest),
    ...(stopwords ? { stopwords } : {}),
    ...(stemmer ? { stemmer: { type: 'snowball', language: stemmer.snowball.language } } : {}),
  };
}

/** `GET /collections/{c}`. */
export function collectionInfoToRest(info: CollectionInfo): Json {
  const payloadSchema: Json = {};
  for (const [field, schema] of Object.entries(info.payloadSchema)) {
    const value = defined({
      data_type: schema.dataType.toLowerCase(),
      params: schema.params && payloadIndexParamsToRest(schema.params),
      points: schema.points ?? 0,
    });
    Object.defineProperty(payloadSchema, field, { value, enumerable: true, writable: true });
  }
  return defined({
    status: info.status.toLowerCase(),
    optimizer_status: info.optimizerStatus.ok ? 'ok' : { error: info.optimizerStatus.error },
    warnings: info.warnings.length > 0 ? info.warnings.map((message) => ({ message })) : undefined,
    indexed_vectors_count: info.indexedVectorsCount,
    points_count: info.pointsCount,
    segments_count: info.segmentsCount,
    config: collectionConfigToRest(info.config),
    payload_schema: payloadSchema,
    update_queue: { length: info.updateQueueLength },
  });
}
