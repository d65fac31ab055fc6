// Placeholder exports; the distance, quantization and HNSW kernels arrive with the engine issue.
export const ABI_VERSION: i32 = 1;
