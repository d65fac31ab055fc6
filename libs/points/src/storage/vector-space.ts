import {
  CollectionConfig,
  HnswConfig,
  QuantizationConfig,
  VectorParams,
  vectorsOnDisk,
} from '@vectorstore/collections';
import { DomainError } from '@vectorstore/common';
import { higherIsBetter } from '@vectorstore/engine';
import { DEFAULT_VECTOR_NAME } from '../model/vectors.model';

/** One named vector space of a collection, resolved from its config: what storage and search need. */
export type VectorSpace =
  | {
      name: string;
      kind: 'dense' | 'multi';
      dim: number;
      distance: 'Cosine' | 'Euclid' | 'Dot' | 'Manhattan';
      datatype: 'float32' | 'float16' | 'uint8';
      /** Stored as Qdrant's turbo4 (4-bit, see turbo4-vectors.ts): quantized on write, kept as f32 here. */
      turbo4?: boolean;
      hnsw: Required<Pick<HnswConfig, 'm' | 'efConstruct' | 'fullScanThreshold' | 'maxIndexingThreads'>>;
      quantization?: QuantizationConfig;
      onDisk: boolean;
    }
  | { name: string; kind: 'sparse'; idf: boolean; fullScanThreshold?: number };

/** The vector spaces a collection's config defines, by name ("" is the unnamed vector). */
export function vectorSpacesOf(config: CollectionConfig): Map<string, VectorSpace> {
  const spaces = new Map<string, VectorSpace>();
  const vectors = config.params.vectors;
  const dense =
    'params' in vectors ? [[DEFAULT_VECTOR_NAME, vectors.params] as const] : Object.entries(vectors.paramsMap);
  for (const [name, params] of dense) spaces.set(name, denseSpace(name, params, config));
  for (const [name, params] of Object.entries(config.params.sparseVectors ?? {})) {
    spaces.set(name, {
      name,
      kind: 'sparse',
      idf: params.modifier === 'Idf',
      fullScanThreshold: params.index?.fullScanThreshold,
    });
  }
  return spaces;
}

function denseSpace(name: string, params: VectorParams, config: CollectionConfig): VectorSpace {
  const hnsw = { ...config.hnswConfig, ...params.hnswConfig };
  return {
    name,
    kind: params.multivectorConfig ? 'multi' : 'dense',
    dim: params.size,
    distance: params.distance,
    datatype: params.datatype === 'Float16' ? 'float16' : params.datatype === 'Uint8' ? 'uint8' : 'float32',
    turbo4: params.datatype === 'Turbo4',
    hnsw: {
      m: hnsw.m ?? 16,
      efConstruct: hnsw.efConstruct ?? 100,
      fullScanThreshold: hnsw.fullScanThreshold ?? 10000,
      // 0 = automatic (one per CPU), as Qdrant.
      maxIndexingThreads: hnsw.maxIndexingThreads ?? 0,
    },
    quantization: params.quantizationConfig ?? config.quantizationConfig,
    onDisk: vectorsOnDisk(params),
  };
}

/** The space for `name`, or INVALID_ARGUMENT naming the vector. */
export function requireSpace(spaces: Map<string, VectorSpace>, name: string): VectorSpace {
  const space = spaces.get(name);
  if (!space) {
    const known = [...spaces.keys()].map((n) => (n === '' ? '(default)' : n)).join(', ') || 'none';
    throw DomainError.invalidArgument(
      `Wrong input: Not existing vector name error: ${name === '' ? '(default vector)' : name}; the collection has: ${known}`,
    );
  }
  return space;
}

/**
 * Whether higher scores are better for a space: sparse scores are similarities; dense and multivector
 * scores follow the distance (a multivector Euclid or Manhattan score is a distance, as in Qdrant).
 */
export function spaceHigherIsBetter(space: VectorSpace): boolean {
  return space.kind === 'sparse' || higherIsBetter(space.distance);
}
