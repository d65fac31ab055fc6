import {
  BinaryQuantizationEncoding,
  BinaryQuantizationQueryEncoding,
  CompressionRatio,
  Datatype,
  Distance,
  HnswConfig,
  MaxOptimizationThreads,
  Memory,
  Modifier,
  OptimizersConfig,
  QuantizationConfig,
  QuantizationConfigDiff,
  ShardingMethod,
  SparseVectorParams,
  SparseVectorsConfig,
  StrictModeConfig,
  VectorParams,
  VectorParamsDiff,
  VectorsConfig,
  VectorsConfigDiff,
  WalConfig,
} from '@vectorstore/collections';
import { bodyFormatError } from '../../core/rest/rest-format.error';
import {
  bool,
  Decoder,
  describeJson,
  enumOf,
  f64,
  isPlainObject,
  object,
  objectValue,
  record,
  u32,
  u64,
} from '../../core/rest/rest-decoders';

// REST spells enums in snake_case or lower case; the domain keeps Qdrant's gRPC names.
export const DISTANCE_NAMES: Record<string, Distance> = {
  Cosine: 'Cosine',
  Euclid: 'Euclid',
  Dot: 'Dot',
  Manhattan: 'Manhattan',
};
export const DATATYPE_NAMES: Record<string, Datatype> = {
  float32: 'Float32',
  uint8: 'Uint8',
  float16: 'Float16',
  turbo4: 'Turbo4',
};
export const MODIFIER_NAMES: Record<string, Modifier> = { none: 'None', idf: 'Idf' };
export const SHARDING_METHOD_NAMES: Record<string, ShardingMethod> = { auto: 'Auto', custom: 'Custom' };
export const COMPRESSION_NAMES: Record<string, CompressionRatio> = {
  x4: 'x4',
  x8: 'x8',
  x16: 'x16',
  x32: 'x32',
  x64: 'x64',
};
export const BINARY_ENCODING_NAMES: Record<string, BinaryQuantizationEncoding> = {
  one_bit: 'OneBit',
  two_bits: 'TwoBits',
  one_and_half_bits: 'OneAndHalfBits',
};
export const BINARY_QUERY_ENCODING_NAMES: Record<string, BinaryQuantizationQueryEncoding> = {
  default: 'Default',
  binary: 'Binary',
  scalar4bits: 'Scalar4Bits',
  scalar8bits: 'Scalar8Bits',
};

/** Qdrant reads `quantization` as `quantization_config` on collections and vectors. */
export const QUANTIZATION_ALIAS = { quantization: 'quantization_config' } as const;
/** …and `optimizer_config` as `optimizers_config` on collections. */
export const OPTIMIZERS_ALIAS = { optimizer_config: 'optimizers_config' } as const;

export const MEMORY_NAMES: Record<string, Memory> = { cold: 'Cold', cached: 'Cached', pinned: 'Pinned' };
const memory = enumOf(MEMORY_NAMES);

export const hnswDecoder: Decoder<HnswConfig> = object(
  {
    m: u64,
    ef_construct: u64,
    full_scan_threshold: u64,
    max_indexing_threads: u64,
    on_disk: bool,
    memory,
    payload_m: u64,
    inline_storage: bool,
  },
  [],
  { full_scan_threshold_kb: 'full_scan_threshold' },
);

export const walDecoder: Decoder<WalConfig> = object({
  wal_capacity_mb: u64,
  wal_segments_ahead: u64,
  wal_retain_closed: u64,
});

/** An integer, or `"auto"`. */
const maxOptimizationThreadsDecoder: Decoder<MaxOptimizationThreads> = (value, path) =>
  value === 'auto' ? { setting: 'Auto' } : { value: u64(value, path) };

export const optimizersDecoder: Decoder<OptimizersConfig> = object(
  {
    deleted_threshold: f64,
    vacuum_min_vector_number: u64,
    default_segment_number: u64,
    max_segment_size: u64,
    memmap_threshold: u64,
    indexing_threshold: u64,
    flush_interval_sec: u64,
    max_optimization_threads: maxOptimizationThreadsDecoder,
    prevent_unoptimized: bool,
  },
  [],
  {
    max_segment_size_kb: 'max_segment_size',
    memmap_threshold_kb: 'memmap_threshold',
    indexing_threshold_kb: 'indexing_threshold',
  },
);

const scalarDecoder = object({ type: enumOf({ int8: 'Int8' }), quantile: f64, always_ram: bool, memory }, ['type']);
const productDecoder = object({ compression: enumOf(COMPRESSION_NAMES), always_ram: bool, memory }, ['compression']);
const binaryDecoder = object({
  always_ram: bool,
  memory,
  encoding: enumOf(BINARY_ENCODING_NAMES),
  query_encoding: enumOf(BINARY_QUERY_ENCODING_NAMES),
});

const turboDecoder = object({
  bits: enumOf({ bits1: 'Bits1', bits1_5: 'Bits1_5', bits2: 'Bits2', bits4: 'Bits4' }),
  always_ram: bool,
  memory,
});

/** `{"scalar": …}`, `{"product": …}`, `{"binary": …}` or `{"turbo": …}` (serde's untagged enum). */
export const quantizationDecoder: Decoder<QuantizationConfig> = (value, path) => {
  const input = objectValue(value, path);
  if (input.scalar !== undefined) return { scalar: scalarDecoder(input.scalar, `${path}.scalar`) as never };
  if (input.product !== undefined) return { product: productDecoder(input.product, `${path}.product`) as never };
  if (input.binary !== undefined) return { binary: binaryDecoder(input.binary, `${path}.binary`) as never };
  if (input.turbo !== undefined) return { turbo: turboDecoder(input.turbo, `${path}.turbo`) as never };
  throw bodyFormatError(path, 'data did not match any variant of untagged enum QuantizationConfig');
};

/** As {@link quantizationDecoder}, or `"Disabled"` to remove quantization. */
export const quantizationDiffDecoder: Decoder<QuantizationConfigDiff> = (value, path) =>
  value === 'Disabled' ? { disabled: true } : quantizationDecoder(value, path);

export const vectorParamsDecoder: Decoder<VectorParams> = object(
  {
    size: u64,
    distance: enumOf(DISTANCE_NAMES),
    hnsw_config: hnswDecoder,
    quantization_config: quantizationDecoder,
    on_disk: bool,
    memory,
    datatype: enumOf(DATATYPE_NAMES),
    multivector_config: object({ comparator: enumOf({ max_sim: 'MaxSim' }) }, ['comparator']),
  },
  ['size', 'distance'],
  QUANTIZATION_ALIAS,
);

/** One unnamed vector (`{"size": 4, "distance": "Dot"}`) or a map of named ones. */
export const vectorsDecoder: Decoder<VectorsConfig> = (value, path) => {
  const input = objectValue(value, path);
  if ('size' in input || 'distance' in input) return { params: vectorParamsDecoder(input, path) };
  return { paramsMap: record(vectorParamsDecoder)(input, path) };
};

const vectorParamsDiffDecoder: Decoder<VectorParamsDiff> = object(
  {
    hnsw_config: hnswDecoder,
    quantization_config: quantizationDiffDecoder,
    on_disk: bool,
    memory,
  },
  [],
  QUANTIZATION_ALIAS,
);

/** A map of per-vector changes; `""` names the unnamed vector. */
export const vectorsDiffDecoder: Decoder<VectorsConfigDiff> = (value, path) => {
  const diffs = record(vectorParamsDiffDecoder)(value, path);
  const names = Object.keys(diffs);
  return names.length === 1 && names[0] === '' ? { params: diffs[''] } : { paramsMap: diffs };
};

export const sparseVectorsDecoder: Decoder<SparseVectorsConfig> = record<SparseVectorParams>(
  object({
    index: object({ full_scan_threshold: u64, on_disk: bool, memory, datatype: enumOf(DATATYPE_NAMES) }),
    modifier: enumOf(MODIFIER_NAMES),
  }),
);

export const strictModeDecoder: Decoder<StrictModeConfig> = object({
  enabled: bool,
  max_query_limit: u32,
  max_timeout: u32,
  unindexed_filtering_retrieve: bool,
  unindexed_filtering_update: bool,
  search_max_hnsw_ef: u32,
  search_allow_exact: bool,
  search_max_oversampling: f64,
  upsert_max_batchsize: u64,
  search_max_batchsize: u64,
  max_collection_vector_size_bytes: u64,
  read_rate_limit: u32,
  write_rate_limit: u32,
  max_collection_payload_size_bytes: u64,
  filter_max_conditions: u64,
  condition_max_size: u64,
  multivector_config: record(object({ max_vectors: u64 })),
  sparse_config: record(object({ max_length: u64 })),
  max_points_count: u64,
  max_payload_index_count: u64,
});

/** `payload`: the payload storage's params. */
export const payloadStorageDecoder = object({ memory });

export const shardNumberDecoder = u32;

/** Rejects a value that is not an object before field decoding (a clearer message than a missing field). */
export function requireObject(value: unknown, path: string): Record<string, unknown> {
  if (!isPlainObject(value)) throw bodyFormatError(path, `invalid type: ${describeJson(value)}, expected a map`);
  return value;
}
