import { ValidationIssues, setOwn } from '@vectorstore/common';
import type {
  DenseVector,
  MultiDenseVector,
  NamedVectors,
  SparseVector,
  Vector,
  VectorInput,
} from '@vectorstore/points';
import type { DenseVector__Output } from '../../grpc/generated/vectorstore/DenseVector';
import type { MultiDenseVector__Output } from '../../grpc/generated/vectorstore/MultiDenseVector';
import type { SparseIndices__Output } from '../../grpc/generated/vectorstore/SparseIndices';
import type { SparseVector__Output } from '../../grpc/generated/vectorstore/SparseVector';
import type { Vector__Output } from '../../grpc/generated/vectorstore/Vector';
import type { VectorInput__Output } from '../../grpc/generated/vectorstore/VectorInput';
import type { VectorOutput } from '../../grpc/generated/vectorstore/VectorOutput';
import type { Vectors__Output } from '../../grpc/generated/vectorstore/Vectors';
import type { VectorsOutput } from '../../grpc/generated/vectorstore/VectorsOutput';
import { pointIdFromProto } from './point-id.mapper';

const INFERENCE_NOT_SUPPORTED = 'inference is not supported';

/** `prefix.name`, or `name` when the field sits at the top level of a request. */
const at = (prefix: string, name: string): string => (prefix ? `${prefix}.${name}` : name);

/** Copies floats into a Float32Array, reporting every element that is not finite (NaN, ±Infinity, f32 overflow). */
function floats(issues: ValidationIssues, path: string, data: readonly number[] | undefined): Float32Array {
  const values = Float32Array.from(data ?? []);
  for (let i = 0; i < values.length; i++) {
    if (!Number.isFinite(values[i])) issues.add(`${path}[${i}]`, 'must be finite');
  }
  return values;
}

/** `path` names the DenseVector message; its floats are reported as `path.data[i]`. */
export function denseFromProto(
  issues: ValidationIssues,
  path: string,
  d: DenseVector__Output | undefined,
): DenseVector {
  return { kind: 'dense', values: floats(issues, `${path}.data`, d?.data) };
}

/** Sparse vector from parallel indices and values: same length, unique indices, finite values. */
export function sparseFromParts(
  issues: ValidationIssues,
  path: string,
  indices: readonly number[] | undefined,
  values: readonly number[] | undefined,
  names: { indices: string; values: string } = { indices: 'indices', values: 'values' },
): SparseVector {
  const idx = Uint32Array.from(indices ?? []);
  const vals = floats(issues, at(path, names.values), values);
  if (idx.length !== vals.length) {
    issues.add(
      path || names.values,
      `${names.indices} and ${names.values} must have the same length (${idx.length} != ${vals.length})`,
    );
  }
  const seen = new Set<number>();
  for (let i = 0; i < idx.length; i++) {
    if (seen.has(idx[i]))
      issues.add(`${at(path, names.indices)}[${i}]`, `duplicate index ${idx[i]}, indices must be unique`);
    seen.add(idx[i]);
  }
  return { kind: 'sparse', indices: idx, values: vals };
}

export function sparseFromProto(
  issues: ValidationIssues,
  path: string,
  s: SparseVector__Output | undefined,
): SparseVector {
  return sparseFromParts(issues, path, s?.indices, s?.values);
}

/** At least one vector, all of the same non-zero dimension. */
export function multiDenseFromProto(
  issues: ValidationIssues,
  path: string,
  m: MultiDenseVector__Output | undefined,
): MultiDenseVector {
  const vectors = (m?.vectors ?? []).map((v, i) => floats(issues, `${path}.vectors[${i}].data`, v.data));
  checkMulti(issues, `${path}.vectors`, vectors);
  return { kind: 'multi', vectors };
}

function checkMulti(issues: ValidationIssues, path: string, vectors: readonly Float32Array[]): void {
  if (vectors.length === 0) {
    issues.add(path, 'multivector must contain at least one vector');
    return;
  }
  const dim = vectors[0].length;
  vectors.forEach((v, i) => {
    if (v.length === 0) issues.add(`${path}[${i}]`, 'must not be empty');
    else if (v.length !== dim)
      issues.add(
        `${path}[${i}]`,
        `all vectors of a multivector must have the same dimension: expected ${dim}, got ${v.length}`,
      );
  });
}

/**
 * A write-side Vector: the oneof (dense 101 / sparse 102 / multi_dense 103) wins; otherwise the
 * deprecated flat form: data + indices is sparse, data + vectors_count a multivector of equal
 * parts, data alone dense. Inference inputs (document / image / object) are reported.
 */
export function vectorFromProto(issues: ValidationIssues, path: string, v: Vector__Output): Vector | undefined {
  switch (v.vector) {
    case 'dense':
      return denseFromProto(issues, `${path}.dense`, v.dense);
    case 'sparse':
      return sparseFromProto(issues, `${path}.sparse`, v.sparse);
    case 'multiDense':
      return multiDenseFromProto(issues, `${path}.multi_dense`, v.multiDense);
    case 'document':
    case 'image':
    case 'object':
      issues.add(`${path}.${v.vector}`, INFERENCE_NOT_SUPPORTED);
      return undefined;
    default:
      return legacyVectorFromProto(issues, path, v.data, v.indices, v.vectorsCount);
  }
}

/** The deprecated flat vector form, shared by `Vector` and by `SearchPoints.vector` + `sparse_indices`. */
export function legacyVectorFromProto(
  issues: ValidationIssues,
  path: string,
  data: readonly number[] | undefined,
  indices?: SparseIndices__Output,
  vectorsCount?: number,
  names: { data: string; indices: string } = { data: 'data', indices: 'indices' },
): Vector {
  if (indices) {
    return sparseFromParts(issues, path, indices.data, data, { indices: `${names.indices}.data`, values: names.data });
  }
  const values = floats(issues, at(path, names.data), data);
  if (vectorsCount === undefined) return { kind: 'dense', values };
  if (vectorsCount === 0 || values.length === 0) {
    issues.add(at(path, 'vectors_count'), `empty multi-vector data with vectors count ${vectorsCount}`);
    return { kind: 'multi', vectors: [] };
  }
  if (values.length % vectorsCount !== 0) {
    issues.add(
      at(path, 'vectors_count'),
      `data length ${values.length} is not divisible by vectors count ${vectorsCount}`,
    );
    return { kind: 'multi', vectors: [] };
  }
  const dim = values.length / vectorsCount;
  const vectors = Array.from({ length: vectorsCount }, (_, i) => values.slice(i * dim, (i + 1) * dim));
  return { kind: 'multi', vectors };
}

/**
 * `Vectors` (oneof vector | vectors) to NamedVectors: the single vector is the default vector ""
 * (a sparse one is rejected, as sparse vectors are always named); a NamedVectors map keeps its names.
 */
export function vectorsFromProto(
  issues: ValidationIssues,
  path: string,
  v: Vectors__Output | undefined,
): NamedVectors | undefined {
  switch (v?.vectorsOptions) {
    case 'vector': {
      const vector = vectorFromProto(issues, `${path}.vector`, v.vector ?? { data: [] });
      if (vector?.kind === 'sparse') issues.add(`${path}.vector`, 'sparse vector must be named');
      return vector ? namedVectors([['', vector]]) : undefined;
    }
    case 'vectors': {
      const entries: Array<[string, Vector]> = [];
      for (const [name, item] of Object.entries(v.vectors?.vectors ?? {})) {
        const vector = vectorFromProto(issues, `${path}.vectors.${name}`, item);
        if (vector) entries.push([name, vector]);
      }
      return namedVectors(entries);
    }
    default:
      issues.add(path, 'must set vector or vectors');
      return undefined;
  }
}

/** Builds a NamedVectors whose keys are own properties even for names like `__proto__`. */
function namedVectors(entries: ReadonlyArray<[string, Vector]>): NamedVectors {
  const result: NamedVectors = {};
  for (const [name, vector] of entries) setOwn(result, name, vector);
  return result;
}

/** Query input (oneof variant): a stored point's id or an explicit vector. */
export function vectorInputFromProto(
  issues: ValidationIssues,
  path: string,
  v: VectorInput__Output | undefined,
): VectorInput | undefined {
  const wrap = (vector: Vector): VectorInput => ({ vector });
  switch (v?.variant) {
    case 'id': {
      const pointId = pointIdFromProto(issues, `${path}.id`, v.id);
      return pointId === undefined ? undefined : { pointId };
    }
    case 'dense':
      return wrap(denseFromProto(issues, `${path}.dense`, v.dense));
    case 'sparse':
      return wrap(sparseFromProto(issues, `${path}.sparse`, v.sparse));
    case 'multiDense':
      return wrap(multiDenseFromProto(issues, `${path}.multi_dense`, v.multiDense));
    case 'document':
    case 'image':
    case 'object':
      issues.add(`${path}.${v.variant}`, INFERENCE_NOT_SUPPORTED);
      return undefined;
    default:
      issues.add(path, 'must set one of id, dense, sparse, multi_dense');
      return undefined;
  }
}

/** How vectors are written into responses. */
export interface VectorOutputOptions {
  /**
   * Also fill the deprecated flat fields (data, indices, vectors_count). Qdrant 1.17+ answers with
   * the `vector` oneof only (lib/api/src/conversions/vectors.rs), so the default is false.
   */
  legacyFields?: boolean;
}

export function vectorToProto(vector: Vector, options: VectorOutputOptions = {}): VectorOutput {
  switch (vector.kind) {
    case 'dense': {
      const data = Array.from(vector.values);
      return options.legacyFields ? { data, dense: { data } } : { dense: { data } };
    }
    case 'sparse': {
      const values = Array.from(vector.values);
      const indices = Array.from(vector.indices);
      const sparse = { values, indices };
      return options.legacyFields ? { data: values, indices: { data: indices }, sparse } : { sparse };
    }
    case 'multi': {
      const multiDense = { vectors: vector.vectors.map((v) => ({ data: Array.from(v) })) };
      if (!options.legacyFields) return { multiDense };
      return { data: vector.vectors.flatMap((v) => Array.from(v)), vectorsCount: vector.vectors.length, multiDense };
    }
  }
}

/**
 * NamedVectors to VectorsOutput: a point holding only the default vector "" answers with `vector`;
 * otherwise (named vectors, or none at all) with the `vectors` map.
 */
export function namedVectorsToProto(vectors: NamedVectors, options: VectorOutputOptions = {}): VectorsOutput {
  const names = Object.keys(vectors);
  if (names.length === 1 && names[0] === '') return { vector: vectorToProto(vectors[''], options) };
  return {
    vectors: { vectors: Object.fromEntries(names.map((name) => [name, vectorToProto(vectors[name], options)])) },
  };
}
