export const MEMORY_PLACEMENTS = ['Cold', 'Cached', 'Pinned'] as const;
/**
 * Where a component's data is held (Qdrant 1.19's `memory`, beside the older `on_disk` and
 * `always_ram` flags, which it overrides): `Cold` stays on disk and is read on demand, `Cached` is
 * loaded and may be evicted, `Pinned` is loaded and kept.
 */
export type Memory = (typeof MEMORY_PLACEMENTS)[number];

/**
 * HNSW parameters; every field optional because the same shape is a diff (request) and,
 * at collection level, a complete config once defaults are merged in.
 */
export interface HnswConfig {
  /** Edges per node (the paper's M); level 0 keeps m0 = 2m. */
  m?: number;
  /** Candidate list size while building (efConstruction). */
  efConstruct?: number;
  /** KB; below it (estimated matching points) a filtered search scans instead of walking the graph. */
  fullScanThreshold?: number;
  /** 0 selects automatically. */
  maxIndexingThreads?: number;
  onDisk?: boolean;
  /** Placement of the graph; recorded and reported (the graph is always held in memory). */
  memory?: Memory;
  /** Extra payload-aware links per node; unset means m. */
  payloadM?: number;
  inlineStorage?: boolean;
}

export interface WalConfig {
  walCapacityMb?: number;
  walSegmentsAhead?: number;
  walRetainClosed?: number;
}

export type MaxOptimizationThreads = { value: number } | { setting: 'Auto' };

export interface OptimizersConfig {
  deletedThreshold?: number;
  vacuumMinVectorNumber?: number;
  defaultSegmentNumber?: number;
  /** Deprecated; KB. */
  maxSegmentSize?: number;
  /** KB; 0 disables memmap. */
  memmapThreshold?: number;
  /** KB; 0 disables vector indexing. */
  indexingThreshold?: number;
  flushIntervalSec?: number;
  /** Deprecated in favour of maxOptimizationThreads. */
  deprecatedMaxOptimizationThreads?: number;
  maxOptimizationThreads?: MaxOptimizationThreads;
  preventUnoptimized?: boolean;
}

export const COMPRESSION_RATIOS = ['x4', 'x8', 'x16', 'x32', 'x64'] as const;
export type CompressionRatio = (typeof COMPRESSION_RATIOS)[number];

export const BINARY_ENCODINGS = ['OneBit', 'TwoBits', 'OneAndHalfBits'] as const;
export type BinaryQuantizationEncoding = (typeof BINARY_ENCODINGS)[number];

export const BINARY_QUERY_ENCODINGS = ['Default', 'Binary', 'Scalar4Bits', 'Scalar8Bits'] as const;
export type BinaryQuantizationQueryEncoding = (typeof BINARY_QUERY_ENCODINGS)[number];

export interface ScalarQuantization {
  type: 'Int8';
  /** Fraction of values kept inside the int8 range (0.5..1.0). */
  quantile?: number;
  alwaysRam?: boolean;
  /** Placement of the quantized vectors; wins over `alwaysRam` (`Pinned` is `alwaysRam: true`). */
  memory?: Memory;
}

export interface ProductQuantization {
  compression: CompressionRatio;
  alwaysRam?: boolean;
  memory?: Memory;
}

export interface BinaryQuantization {
  alwaysRam?: boolean;
  memory?: Memory;
  encoding?: BinaryQuantizationEncoding;
  queryEncoding?: BinaryQuantizationQueryEncoding;
}

export const TURBO_BITS = ['Bits1', 'Bits1_5', 'Bits2', 'Bits4'] as const;
export type TurboBits = (typeof TURBO_BITS)[number];

/** Qdrant 1.19's TurboQuant quantization: accepted and reported; searches here use the original vectors. */
export interface TurboQuantization {
  bits?: TurboBits;
  alwaysRam?: boolean;
  memory?: Memory;
}

export type QuantizationConfig =
  | { scalar: ScalarQuantization }
  | { product: ProductQuantization }
  | { binary: BinaryQuantization }
  | { turbo: TurboQuantization };

/** `disabled` removes quantization; any other case replaces it. */
export type QuantizationConfigDiff = QuantizationConfig | { disabled: true };

export interface StrictModeConfig {
  enabled?: boolean;
  maxQueryLimit?: number;
  maxTimeout?: number;
  unindexedFilteringRetrieve?: boolean;
  unindexedFilteringUpdate?: boolean;
  searchMaxHnswEf?: number;
  searchAllowExact?: boolean;
  searchMaxOversampling?: number;
  upsertMaxBatchsize?: number;
  searchMaxBatchsize?: number;
  maxCollectionVectorSizeBytes?: number;
  readRateLimit?: number;
  writeRateLimit?: number;
  maxCollectionPayloadSizeBytes?: number;
  filterMaxConditions?: number;
  conditionMaxSize?: number;
  multivectorConfig?: Record<string, { maxVectors?: number }>;
  sparseConfig?: Record<string, { maxLength?: number }>;
  maxPointsCount?: number;
  maxPayloadIndexCount?: number;
}
