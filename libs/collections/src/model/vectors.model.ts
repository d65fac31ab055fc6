import { HnswConfig, Memory, QuantizationConfig, QuantizationConfigDiff } from './index-config.model';

export const DISTANCES = ['Cosine', 'Euclid', 'Dot', 'Manhattan'] as const;
/** How vectors are compared; Qdrant's names. */
export type Distance = (typeof DISTANCES)[number];

export const DATATYPES = ['Float32', 'Uint8', 'Float16', 'Turbo4'] as const;
/**
 * Stored element type; absent means the default (Float32). `Turbo4` (Qdrant 1.19's 4-bit TurboQuant
 * storage) is a name the API knows, refused by validation: storage does not implement it.
 */
export type Datatype = (typeof DATATYPES)[number];

export const MODIFIERS = ['None', 'Idf'] as const;
export type Modifier = (typeof MODIFIERS)[number];

export interface MultiVectorConfig {
  comparator: 'MaxSim';
}

/** One dense vector space of a collection. Per-vector hnsw/quantization override the collection's. */
export interface VectorParams {
  size: number;
  distance: Distance;
  hnswConfig?: HnswConfig;
  quantizationConfig?: QuantizationConfig;
  onDisk?: boolean;
  /** Placement of the original vectors (Qdrant 1.19); wins over `onDisk`. `Pinned` is refused. */
  memory?: Memory;
  datatype?: Datatype;
  multivectorConfig?: MultiVectorConfig;
}

/** Either one unnamed vector or a map of named vectors (the map may be empty). */
export type VectorsConfig = { params: VectorParams } | { paramsMap: Record<string, VectorParams> };

export interface VectorParamsDiff {
  /** An empty object removes the per-vector override. */
  hnswConfig?: HnswConfig;
  quantizationConfig?: QuantizationConfigDiff;
  onDisk?: boolean;
  memory?: Memory;
}

export type VectorsConfigDiff = { params: VectorParamsDiff } | { paramsMap: Record<string, VectorParamsDiff> };

export interface SparseIndexConfig {
  /** A count of vectors, not KB: full scan is preferred below it. */
  fullScanThreshold?: number;
  onDisk?: boolean;
  /** Placement of the inverted index; recorded and reported (the index is always held in memory). */
  memory?: Memory;
  datatype?: Datatype;
}

export interface SparseVectorParams {
  index?: SparseIndexConfig;
  modifier?: Modifier;
}

export type SparseVectorsConfig = Record<string, SparseVectorParams>;
