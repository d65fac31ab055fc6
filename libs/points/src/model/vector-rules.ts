import { ValidationIssues } from '@vectorstore/common';
import { DenseVector, MultiDenseVector, SparseVector } from './vectors.model';

/**
 * The rules a vector given in a request must follow before it meets a collection, in Qdrant's
 * words (`validator` messages of lib/sparse and lib/common/common/src/validation.rs). Both
 * transports build their vectors through these functions; `path` is the field as each wire names
 * it (REST `points[0].vector.?`, gRPC `points[0].vectors.vectors_options.vectors.[]`).
 */

/** Largest total number of floats in one multivector (Qdrant's release-build limit). */
export const MAX_MULTIVECTOR_FLOATS = 1_048_576;

const at = (path: string, name: string): string => (path ? `${path}.${name}` : name);

/** Copies floats into a Float32Array, reporting every element that is not finite (NaN, ±Infinity, f32 overflow). */
export function finiteFloats(issues: ValidationIssues, path: string, data: ArrayLike<number>): Float32Array {
  const values = Float32Array.from(data);
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i])) issues.add(`${path}[${i}]`, 'must be finite');
  }
  return values;
}

/** A dense vector. REST rejects an empty one (`dense vector must not be empty`); gRPC leaves it to the dimension check. */
export function denseVectorOf(
  issues: ValidationIssues,
  path: string,
  data: ArrayLike<number>,
  options: { nonEmpty?: boolean } = {},
): DenseVector {
  if (options.nonEmpty && data.length === 0) issues.add(path, 'dense vector must not be empty');
  return { kind: 'dense', values: finiteFloats(issues, path, data) };
}

/** A sparse vector: indices and values of the same length, indices unique, values finite. */
export function sparseVectorOf(
  issues: ValidationIssues,
  path: string,
  indices: ArrayLike<number>,
  values: ArrayLike<number>,
): SparseVector {
  const idx = Uint32Array.from(indices);
  const vals = finiteFloats(issues, at(path, 'values'), values);
  if (idx.length !== vals.length) {
    issues.add(at(path, 'values'), 'Validation error: must be the same length as indices [{}]');
  }
  const seen = new Set<number>();
  for (const index of idx) {
    if (seen.has(index)) {
      issues.add(at(path, 'indices'), 'Validation error: must be unique [{}]');
      break;
    }
    seen.add(index);
  }
  return sortedSparse(idx, vals);
}

/** Qdrant keeps sparse vectors sorted by index; a pair order that is already sorted is kept as is. */
function sortedSparse(indices: Uint32Array, values: Float32Array): SparseVector {
  let sorted = true;
  for (let i = 1; i < indices.length && sorted; i++) sorted = indices[i - 1] <= indices[i];
  if (sorted || indices.length !== values.length) return { kind: 'sparse', indices, values };
  const order = Array.from(indices.keys()).sort((a, b) => indices[a] - indices[b]);
  return {
    kind: 'sparse',
    indices: Uint32Array.from(order, (i) => indices[i]),
    values: Float32Array.from(order, (i) => values[i]),
  };
}

/** A multivector: at least one row, no empty row, fewer than 2^20 floats, rows of one dimension. */
export function multiVectorOf(
  issues: ValidationIssues,
  path: string,
  rows: ReadonlyArray<ArrayLike<number>>,
): MultiDenseVector {
  const vectors = rows.map((row, i) => finiteFloats(issues, `${path}[${i}]`, row));
  const data = at(path, 'data');
  const total = vectors.reduce((sum, v) => sum + v.length, 0);
  if (vectors.length === 0) issues.add(data, 'multi vector must not be empty');
  else if (vectors.some((v) => v.length === 0)) issues.add(data, 'all vectors must be non-empty');
  else if (total >= MAX_MULTIVECTOR_FLOATS)
    issues.add(data, `Total size of all vectors (${total}) must be less than ${MAX_MULTIVECTOR_FLOATS}`);
  else {
    const bad = vectors.find((v) => v.length !== vectors[0].length);
    if (bad) issues.add(data, `all vectors must have the same dimension, found vector with dimension ${bad.length}`);
  }
  return { kind: 'multi', vectors };
}

/** gRPC's deprecated flat multivector: `data` cut into `vectorsCount` rows of equal length. */
export function multiVectorFromFlat(
  issues: ValidationIssues,
  path: string,
  data: ArrayLike<number>,
  vectorsCount: number,
): MultiDenseVector {
  const values = finiteFloats(issues, at(path, 'data'), data);
  const fail = (message: string): MultiDenseVector => {
    issues.add(at(path, 'data'), message);
    return { kind: 'multi', vectors: [] };
  };
  if (vectorsCount === 0)
    return fail('Validation error: invalid_vector_count [{"vectors_count": "vectors count must be greater than 0"}]');
  if (values.length === 0) return fail('multi vector must not be empty');
  if (values.length >= MAX_MULTIVECTOR_FLOATS)
    return fail(`Total size of all vectors (${values.length}) must be less than ${MAX_MULTIVECTOR_FLOATS}`);
  if (values.length % vectorsCount !== 0) {
    return fail(
      `Validation error: invalid dense vector length for vectors count [{"vector_len": ${values.length}, "vectors_count": ${vectorsCount}}]`,
    );
  }
  const dim = values.length / vectorsCount;
  return {
    kind: 'multi',
    vectors: Array.from({ length: vectorsCount }, (_, i) => values.slice(i * dim, (i + 1) * dim)),
  };
}
