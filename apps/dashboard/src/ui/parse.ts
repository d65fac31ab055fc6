import type { Json } from '../api/types';

const MAX_U64 = 2n ** 64n - 1n;

/** Parses the editor's text: empty is "no filter"; otherwise a JSON object, or an error to show. */
export function parseFilter(text: string): { filter?: Json; error?: string } {
  if (text.trim() === '') return {};
  try {
    const value = JSON.parse(text) as Json;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return { error: 'A filter is a JSON object, e.g. {"must": [{"key": "city", "match": {"value": "Berlin"}}]}' };
    }
    return { filter: value };
  } catch (error) {
    return { error: `Invalid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** Reads a point id as the API takes it: an unsigned integer or a UUID. */
export function parsePointId(text: string): { id?: number | bigint | string; error?: string } {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) {
    const id = Number(trimmed);
    if (Number.isSafeInteger(id)) return { id };
    // Above 2^53 a number would round: a bigint, which the request writes back as exact digits.
    return BigInt(trimmed) <= MAX_U64 ? { id: BigInt(trimmed) } : { error: 'A point id is at most 2^64-1' };
  }
  if (/^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(trimmed)) return { id: trimmed };
  return { error: 'A point id is an unsigned integer or a UUID' };
}

/** Reads a pasted vector: a JSON array of numbers. */
export function parseVector(text: string): { vector?: number[]; error?: string } {
  try {
    const value = JSON.parse(text) as Json;
    if (Array.isArray(value) && value.length > 0 && value.every((x) => typeof x === 'number')) {
      return { vector: value as number[] };
    }
  } catch {
    // reported below
  }
  return { error: 'A vector is a JSON array of numbers, e.g. [0.1, 0.2, 0.3, 0.4]' };
}

/** Optional extra settings of a new collection: empty, or a JSON object merged into the request body. */
export function parseSettings(text: string): { value?: Record<string, Json>; error?: string } {
  if (text.trim() === '') return { value: {} };
  try {
    const value = JSON.parse(text) as Json;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return { value };
  } catch (error) {
    return { error: `Invalid JSON: ${error instanceof Error ? error.message : String(error)}` };
  }
  return { error: 'The settings are a JSON object, e.g. {"hnsw_config": {"m": 32}}' };
}
