import { DomainError, setOwn } from '@vectorstore/common';
import { CollectionParams } from '../model/collection.model';
import { NewVectorConfig } from '../model/requests.model';
import { SparseVectorParams, VectorParams } from '../model/vectors.model';

/** The dense params of `name`, if the collection has such a vector ("" is the unnamed one). */
function denseParams(params: CollectionParams, name: string): VectorParams | undefined {
  const vectors = params.vectors;
  if ('params' in vectors) return name === '' ? vectors.params : undefined;
  return Object.hasOwn(vectors.paramsMap, name) ? vectors.paramsMap[name] : undefined;
}

function sparseParams(params: CollectionParams, name: string): SparseVectorParams | undefined {
  const sparse = params.sparseVectors;
  return sparse && Object.hasOwn(sparse, name) ? sparse[name] : undefined;
}

/** The config of the dense or sparse vector `name`, if the collection has one. */
export function vectorConfigOf(
  params: CollectionParams,
  name: string,
): { dense: VectorParams } | { sparse: SparseVectorParams } | undefined {
  const dense = denseParams(params, name);
  if (dense) return { dense: structuredClone(dense) };
  const sparse = sparseParams(params, name);
  return sparse ? { sparse: structuredClone(sparse) } : undefined;
}

/** Whether the collection has a dense or sparse vector of that name. */
export function hasVectorName(params: CollectionParams, name: string): boolean {
  return denseParams(params, name) !== undefined || sparseParams(params, name) !== undefined;
}

/**
 * Adds a named vector to `params`. True when added; false when a vector of that name with the same
 * shape exists already (size, distance, datatype, multivector; or modifier and datatype for sparse),
 * which Qdrant treats as done. Another vector of that name is INVALID_ARGUMENT, in Qdrant's words.
 * A collection with a single unnamed vector becomes one with named vectors that keeps it as "".
 */
export function addVectorName(params: CollectionParams, name: string, config: NewVectorConfig): boolean {
  const dense = denseParams(params, name);
  const sparse = sparseParams(params, name);
  if ('dense' in config) {
    if (dense) {
      if (sameDense(dense, config.dense)) return false;
      throw DomainError.invalidArgument(
        `Wrong input: Vector \`${name}\` already exists with a different configuration`,
      );
    }
    if (sparse) throw DomainError.invalidArgument(`Wrong input: Vector \`${name}\` already exists as a sparse vector`);
    const added: VectorParams = { size: config.dense.size, distance: config.dense.distance };
    if (config.dense.datatype) added.datatype = config.dense.datatype;
    if (config.dense.multivectorConfig) added.multivectorConfig = config.dense.multivectorConfig;
    const vectors = params.vectors;
    if ('params' in vectors) {
      const paramsMap: Record<string, VectorParams> = { '': vectors.params };
      setOwn(paramsMap, name, added);
      params.vectors = { paramsMap };
    } else {
      setOwn(vectors.paramsMap, name, added);
    }
    return true;
  }
  if (sparse) {
    if (sameSparse(sparse, config.sparse)) return false;
    throw DomainError.invalidArgument(
      `Wrong input: Sparse vector \`${name}\` already exists with a different configuration`,
    );
  }
  if (dense) throw DomainError.invalidArgument(`Wrong input: Vector \`${name}\` already exists as a dense vector`);
  const added: SparseVectorParams = {};
  if (config.sparse.modifier) added.modifier = config.sparse.modifier;
  if (config.sparse.datatype) added.index = { datatype: config.sparse.datatype };
  params.sparseVectors ??= {};
  setOwn(params.sparseVectors, name, added);
  return true;
}

/** Removes a named vector (dense or sparse) from `params`; false when there is none of that name. */
export function removeVectorName(params: CollectionParams, name: string): boolean {
  let removed = false;
  const vectors = params.vectors;
  if ('paramsMap' in vectors && Object.hasOwn(vectors.paramsMap, name)) {
    delete vectors.paramsMap[name];
    removed = true;
  }
  if (params.sparseVectors && Object.hasOwn(params.sparseVectors, name)) {
    delete params.sparseVectors[name];
    removed = true;
  }
  return removed;
}

function sameDense(existing: VectorParams, wanted: Extract<NewVectorConfig, { dense: unknown }>['dense']): boolean {
  return (
    existing.size === wanted.size &&
    existing.distance === wanted.distance &&
    (existing.datatype ?? 'Float32') === (wanted.datatype ?? 'Float32') &&
    existing.multivectorConfig?.comparator === wanted.multivectorConfig?.comparator
  );
}

function sameSparse(
  existing: SparseVectorParams,
  wanted: Extract<NewVectorConfig, { sparse: unknown }>['sparse'],
): boolean {
  return (
    (existing.modifier ?? 'None') === (wanted.modifier ?? 'None') &&
    (existing.index?.datatype ?? 'Float32') === (wanted.datatype ?? 'Float32')
  );
}
