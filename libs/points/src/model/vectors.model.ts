/** A dense vector; values validated finite before they reach storage. */
export interface DenseVector {
  kind: 'dense';
  values: Float32Array;
}

/** A sparse vector: parallel indices (unique) and values. */
export interface SparseVector {
  kind: 'sparse';
  indices: Uint32Array;
  values: Float32Array;
}

/** Several dense vectors of one point, compared with MaxSim. */
export interface MultiDenseVector {
  kind: 'multi';
  vectors: Float32Array[];
}

export type Vector = DenseVector | SparseVector | MultiDenseVector;

/** Vectors of a point by name; the unnamed (default) vector has the name "". */
export type NamedVectors = Record<string, Vector>;

export const DEFAULT_VECTOR_NAME = '';

export function dense(values: ArrayLike<number>): DenseVector {
  return { kind: 'dense', values: Float32Array.from(values) };
}
