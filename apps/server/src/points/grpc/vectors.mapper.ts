import { ValidationIssues, setOwn } from '@vectorstore/common';
import type {
  DenseVector,
  MultiDenseVector,
  NamedVectors,
  SparseVector,
  Vector,
  VectorInput,
} from '@vectorstore/points';
import {
  denseVectorOf,
  inferVector,
  multiVectorFromFlat,
  multiVectorOf,
  sparseVectorOf,
  type InferencePurpose,
} from '@vectorstore/points';
import { fromProtoValue } from '../../core/grpc/json-value.mapper';
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

type InferenceCarrier = Pick<Vector__Output, 'document' | 'image' | 'object'>;

/** A document, image or object: embedded by the local models (BM25), otherwise refused as Qdrant does. */
function inferredFromProto(
  issues: ValidationIssues,
  path: string,
  v: InferenceCarrier,
  kind: 'document' | 'image' | 'object',
  purpose: InferencePurpose,
): Vector {
  const source = kind === 'document' ? v.document : kind === 'image' ? v.image : v.object;
  const rawOptions = source?.options ?? {};
  const options: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rawOptions)) {
    setOwn(options, key, fromProtoValue(issues, `${path}.${kind}.options.${key}`, value));
  }
  return inferVector(
    { model: source?.model ?? '', kind, options, ...(kind === 'document' ? { text: v.document?.text ?? '' } : {}) },
    purpose,
  );
}

/** `prefix.name`, or `name` when the field sits at the top level of a request. */
const at = (prefix: string, name: string): string => (prefix ? `${prefix}.${name}` : name);

/** `path` names the DenseVector message; its floats are reported as `path.data[i]`. */
export function denseFromProto(
  issues: ValidationIssues,
  path: string,
  d: DenseVector__Output | undefined,
): DenseVector {
  return denseVectorOf(issues, `${path}.data`, d?.data ?? []);
}

/** A sparse vector message; its rule violations are reported at `path.values` / `path.indices`, as Qdrant does. */
export function sparseFromProto(
  issues: ValidationIssues,
  path: string,
  s: SparseVector__Output | undefined,
): SparseVector {
  return sparseVectorOf(issues, path, s?.indices ?? [], s?.values ?? []);
}

/** At least one vector, all of the same non-zero dimension. */
export function multiDenseFromProto(
  issues: ValidationIssues,
  path: string,
  m: MultiDenseVector__Output | undefined,
): MultiDenseVector {
  return multiVectorOf(
    issues,
    path,
    (m?.vectors ?? []).map((v) => v.data ?? []),
  );
}

/**
 * A write-side Vector: the oneof (dense 101 / sparse 102 / multi_dense 103) wins; otherwise the
 * deprecated flat form: data + indices is sparse, data + vectors_count a multivector of equal
 * parts, data alone dense. Inference inputs (document / image / object) are embedded for `purpose`.
 */
export function vectorFromProto(
  issues: ValidationIssues,
  path: string,
  v: Vector__Output,
  purpose: InferencePurpose = 'store',
): Vector | undefined {
  switch (v.vector) {
    case 'dense':
      return denseFromProto(issues, `${path}.dense`, v.dense);
    case 'sparse':
      return sparseFromProto(issues, path, v.sparse);
    case 'multiDense':
      return multiDenseFromProto(issues, `${path}.multi_dense`, v.multiDense);
    case 'document':
    case 'image':
    case 'object':
      return inferredFromProto(issues, path, v, v.vector, purpose);
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
  names: { data: string } = { data: 'data' },
): Vector {
  if (indices) return sparseVectorOf(issues, path, indices.data ?? [], data ?? []);
  if (vectorsCount !== undefined) return multiVectorFromFlat(issues, path, data ?? [], vectorsCount);
  return denseVectorOf(issues, at(path, names.data), data ?? []);
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
        // Qdrant names every entry of the map `[]` in its messages.
        const vector = vectorFromProto(issues, `${path}.vectors_options.vectors.[]`, item);
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
      return wrap(inferredFromProto(issues, path, v, v.variant, 'query'));
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
