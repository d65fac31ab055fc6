// @vectorstore/engine: the only code that touches WebAssembly. See docs/engine.md.
export { EngineInputError } from './errors';
export { Distance, Datatype, DISTANCES, DATATYPES, toScore, higherIsBetter, normalizeInPlace } from './distance/metric';
export { f32ToF16, f16ToF32, roundF16, roundU8 } from './distance/f16';
export * as reference from './distance/reference';
export {
  QuantizationConfig, ScalarQuantization, ProductQuantization, BinaryQuantization, BinaryEncoding, BinaryQueryEncoding,
  QuantizationSearchParams,
} from './quantization/config';
export { IndexConfig } from './hnsw/index-config';
export { AllowedSlots, SearchParams, SearchResult } from './hnsw/index-core';
export { VectorIndex } from './hnsw/vector-index';
export { VectorBatch } from './validate';
export { Kernels } from './distance/kernels';
export { ABI_VERSION } from './wasm/layout';
export { MultiVectorIndex, MultiVectorConfig } from './multivector/multi-vector-index';
export { SparseIndex, SparseIndexConfig, SparseVector } from './sparse/sparse-index';
