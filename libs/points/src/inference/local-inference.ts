import { DomainError } from '@vectorstore/common';
import type { SparseVector } from '../model/vectors.model';
import { bm25ConfigOf, bm25Document, bm25Query, type Bm25Config } from './bm25';

/**
 * Inference inputs (Qdrant's Document, Image and InferenceObject) turned into vectors on the server. Like Qdrant
 * without an inference service, only the local models (BM25) are served; any other model is refused with
 * Qdrant's message.
 */
export interface InferenceInput {
  model: string;
  /** A Document's text; images and objects carry no text. */
  text?: string;
  kind: 'document' | 'image' | 'object';
  options?: Record<string, unknown>;
}

/** Documents are embedded for storage on writes and as queries on reads (BM25 weighs them differently). */
export type InferencePurpose = 'store' | 'query';

export const INFERENCE_NOT_CONFIGURED =
  'InferenceService is not initialized. Please check if it was properly configured and initialized during startup.';

const LOCAL_MODELS = new Set(['qdrant/bm25', 'bm25']);

export function isLocalModel(model: string): boolean {
  return LOCAL_MODELS.has(model.toLowerCase());
}

// Batches repeat the same options for every point: build the analyzer once per distinct options.
const configCache = new Map<string, Bm25Config>();
const CONFIG_CACHE_LIMIT = 64;

function cachedConfig(options: Record<string, unknown> | undefined): Bm25Config {
  const key = JSON.stringify(options ?? {}, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
  let config = configCache.get(key);
  if (config === undefined) {
    config = bm25ConfigOf(options);
    if (configCache.size >= CONFIG_CACHE_LIMIT) configCache.clear();
    configCache.set(key, config);
  }
  return config;
}

/** The vector of an inference input, or InvalidArgument as Qdrant words it. */
export function inferVector(input: InferenceInput, purpose: InferencePurpose): SparseVector {
  if (!isLocalModel(input.model)) throw DomainError.invalidArgument(INFERENCE_NOT_CONFIGURED);
  if (input.kind !== 'document' || input.text === undefined) {
    throw DomainError.invalidArgument(`Only text input is supported for ${input.model}.`);
  }
  const config = cachedConfig(input.options);
  return purpose === 'store' ? bm25Document(config, input.text) : bm25Query(config, input.text);
}
