// @vectorstore/engine: the only code that touches WebAssembly. See docs/engine.md.
export { EngineBusyError, EngineInputError } from './errors';
export { EngineWorkersError } from './worker/worker-starts';
export {
  type Distance,
  type Datatype,
  DISTANCES,
  DATATYPES,
  toScore,
  higherIsBetter,
  normalizeInPlace,
} from './distance/metric';
export { f32ToF16, f16ToF32, roundF16, roundU8 } from './distance/f16';
export * as reference from './distance/reference';
export type {
  QuantizationConfig,
  ScalarQuantization,
  ProductQuantization,
  BinaryQuantization,
  BinaryEncoding,
  BinaryQueryEncoding,
  QuantizationSearchParams,
} from './quantization/config';
export type { IndexConfig } from './hnsw/index-config';
export type { AllowedSlots, SearchParams, SearchResult } from './hnsw/index-core';
export { VectorIndex, type SaveOptions } from './hnsw/vector-index';
export type { VectorBatch } from './validate';
export { Kernels } from './distance/kernels';
export { ABI_VERSION } from './wasm/layout';
export { MultiVectorIndex, type MultiVectorConfig } from './multivector/multi-vector-index';
export { SparseIndex, type SparseCorpus, type SparseIndexConfig, type SparseVector } from './sparse/sparse-index';
export { turbo4RoundTrip } from './quantization/turbo4';
