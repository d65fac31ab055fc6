import { setOwn, ValidationIssues } from '@vectorstore/common';
import {
  denseVectorOf,
  inferVector,
  multiVectorOf,
  sparseVectorOf,
  type InferenceInput,
  type InferencePurpose,
  type NamedVectors,
  type Vector,
  type VectorInput,
} from '@vectorstore/points';
import { describeJson, isPlainObject } from '../../core/rest/rest-decoders';
import { bodyFormatError } from '../../core/rest/rest-format.error';
import { f32ArrayText } from '../../core/rest/rest-json';
import { pointIdDecoder } from './point-id.rest-mapper';

/**
 * Vectors in Qdrant's JSON (`VectorStruct`, `BatchVectorStruct`, `VectorInput`): untagged forms tried
 * in order, so a flat number array is dense, an array of arrays a multivector, `{indices, values}`
 * sparse and any other object a map of names. Shapes that fit none are 400; rule violations
 * (lengths, empty vectors) are collected in `issues` (422), in the words of the shared vector rules.
 */

function isInferenceInput(value: Record<string, unknown>): boolean {
  return 'model' in value && ('text' in value || 'image' in value || 'object' in value);
}

/** A Document, Image or InferenceObject, embedded by the local models (BM25) or refused as Qdrant does. */
function inferredVector(value: Record<string, unknown>, path: string, purpose: InferencePurpose): Vector {
  if (typeof value.model !== 'string') {
    throw bodyFormatError(`${path}.model`, `invalid type: ${describeJson(value.model)}, expected a string`);
  }
  const options = value.options;
  if (options !== undefined && options !== null && !isPlainObject(options)) {
    throw bodyFormatError(`${path}.options`, `invalid type: ${describeJson(options)}, expected a map`);
  }
  const input: InferenceInput = {
    model: value.model,
    kind: 'text' in value ? 'document' : 'image' in value ? 'image' : 'object',
    ...(isPlainObject(options) ? { options } : {}),
  };
  if (input.kind === 'document') {
    if (typeof value.text !== 'string') {
      throw bodyFormatError(`${path}.text`, `invalid type: ${describeJson(value.text)}, expected a string`);
    }
    input.text = value.text;
  }
  return inferVector(input, purpose);
}

function numbers(value: readonly unknown[], path: string): number[] {
  return value.map((item, i) => {
    if (typeof item === 'number') return item;
    if (typeof item === 'bigint') return Number(item);
    throw bodyFormatError(`${path}[${i}]`, `invalid type: ${describeJson(item)}, expected f32`);
  });
}

function numberArray(value: unknown, path: string): number[] {
  if (!Array.isArray(value)) throw bodyFormatError(path, `invalid type: ${describeJson(value)}, expected a sequence`);
  return numbers(value, path);
}

function unsignedArray(value: unknown, path: string): number[] {
  if (!Array.isArray(value)) throw bodyFormatError(path, `invalid type: ${describeJson(value)}, expected a sequence`);
  return value.map((item, i) => {
    if (typeof item !== 'bigint' || item < 0n || item > 0xffffffffn) {
      throw bodyFormatError(`${path}[${i}]`, `invalid type: ${describeJson(item)}, expected u32`);
    }
    return Number(item);
  });
}

function isSparseShape(value: Record<string, unknown>): boolean {
  return 'indices' in value && 'values' in value;
}

function sparseOf(issues: ValidationIssues, value: Record<string, unknown>, path: string): Vector {
  return sparseVectorOf(
    issues,
    path,
    unsignedArray(value.indices, `${path}.indices`),
    numberArray(value.values, `${path}.values`),
  );
}

/** An array: dense when flat (or empty), a multivector when it holds arrays. */
function arrayVector(issues: ValidationIssues, value: readonly unknown[], path: string): Vector {
  if (value.length > 0 && Array.isArray(value[0])) {
    return multiVectorOf(
      issues,
      path,
      value.map((row, i) => numberArray(row, `${path}[${i}]`)),
    );
  }
  return denseVectorOf(issues, path, numbers(value, path), { nonEmpty: true });
}

/**
 * One vector of a point or query: dense, multi or sparse, or an inference input embedded for `purpose`
 * (a stored document or a query).
 */
export function vectorFromRest(
  issues: ValidationIssues,
  value: unknown,
  path: string,
  purpose: InferencePurpose = 'store',
): Vector {
  if (Array.isArray(value)) return arrayVector(issues, value, path);
  if (isPlainObject(value)) {
    if (isSparseShape(value)) return sparseOf(issues, value, path);
    if (isInferenceInput(value)) return inferredVector(value, path, purpose);
  }
  throw bodyFormatError(path, 'data did not match any variant of untagged enum Vector');
}

/**
 * A point's `vector`: a bare array is the default vector `""`, an object a map of names (each a
 * dense, multi or sparse vector). Entries are named `?` in messages, as Qdrant does on REST.
 */
export function namedVectorsFromRest(issues: ValidationIssues, value: unknown, path: string): NamedVectors {
  const result: NamedVectors = {};
  if (Array.isArray(value)) {
    setOwn(result, '', arrayVector(issues, value, path));
    return result;
  }
  if (!isPlainObject(value)) {
    throw bodyFormatError(path, 'data did not match any variant of untagged enum VectorStruct');
  }
  if (isInferenceInput(value)) {
    setOwn(result, '', inferredVector(value, path, 'store'));
    return result;
  }
  for (const [name, item] of Object.entries(value)) {
    setOwn(result, name, vectorFromRest(issues, item, `${path}.?`));
  }
  return result;
}

/**
 * `batch.vectors`: one entry per id; a list (the default vector of each point) or a map of names
 * to lists. Returns one NamedVectors per point.
 */
export function batchVectorsFromRest(
  issues: ValidationIssues,
  value: unknown,
  path: string,
  count: number,
): NamedVectors[] {
  const perPoint: NamedVectors[] = Array.from({ length: count }, () => ({}));
  const fill = (name: string, list: unknown, listPath: string): void => {
    if (!Array.isArray(list)) {
      throw bodyFormatError(listPath, `invalid type: ${describeJson(list)}, expected a sequence`);
    }
    if (list.length !== count) {
      issues.add(listPath, `number of vectors (${list.length}) must match the number of ids (${count})`);
      return;
    }
    list.forEach((item, i) => setOwn(perPoint[i], name, vectorFromRest(issues, item, `${listPath}[${i}]`)));
  };
  if (Array.isArray(value)) fill('', value, path);
  else if (isPlainObject(value)) {
    for (const [name, list] of Object.entries(value)) fill(name, list, `${path}.?`);
  } else throw bodyFormatError(path, 'data did not match any variant of untagged enum BatchVectorStruct');
  return perPoint;
}

/** A query input (`VectorInput`): a point id (integer or UUID string) or a vector. */
export function vectorInputFromRest(
  issues: ValidationIssues,
  value: unknown,
  path: string,
  options: { example?: boolean } = {},
): VectorInput {
  if (typeof value === 'bigint' || typeof value === 'string') return { pointId: pointIdDecoder(value, path) };
  // A recommend example that is an empty list is malformed only once the query runs (Qdrant: 400).
  if (options.example && Array.isArray(value) && value.length === 0) {
    return { vector: { kind: 'dense', values: new Float32Array(0) } };
  }
  return { vector: vectorFromRest(issues, value, path, 'query') };
}

// ---------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------

/** One vector as Qdrant writes it: floats as their shortest f32 text. */
export function vectorToRest(vector: Vector): unknown {
  switch (vector.kind) {
    case 'dense':
      return f32ArrayText(vector.values);
    case 'sparse':
      return { indices: Array.from(vector.indices), values: f32ArrayText(vector.values) };
    case 'multi':
      return vector.vectors.map(f32ArrayText);
  }
}

/** A point's vectors: a bare vector when `""` is the only one, otherwise a map (possibly empty). */
export function namedVectorsToRest(vectors: NamedVectors): unknown {
  const names = Object.keys(vectors);
  if (names.length === 1 && names[0] === '') return vectorToRest(vectors['']);
  const result: Record<string, unknown> = {};
  for (const name of names) setOwn(result, name, vectorToRest(vectors[name]));
  return result;
}
