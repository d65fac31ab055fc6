import { isJsonObject, JsonObject, JsonValue, setOwn } from '@vectorstore/common';
import { parsePath } from '../../filter/payload-path';
import { NamedVectors } from '../../model/vectors.model';

/** Sets `value` at a dotted path inside `payload` (creating objects on the way), as Qdrant's set_payload `key`. */
export function setAtPath(payload: JsonObject, key: string, value: JsonObject): JsonObject {
  const segments = parsePath(key);
  const root: JsonObject = structuredClone(payload);
  let target: JsonObject = root;
  for (const segment of segments) {
    if (segment.kind !== 'key') throw new Error(`payload key ${key}: only object keys may be used to set a payload`);
    const next = Object.hasOwn(target, segment.key) ? target[segment.key] : undefined;
    if (!isJsonObject(next)) setOwn(target, segment.key, {});
    target = target[segment.key] as JsonObject;
  }
  for (const [k, v] of Object.entries(value)) setOwn(target, k, v as JsonValue);
  return root;
}

/** Removes payload keys; a dotted key removes inside nested objects. */
export function deleteKeys(payload: JsonObject, keys: readonly string[]): JsonObject {
  const result = structuredClone(payload);
  for (const key of keys) {
    const segments = parsePath(key);
    let target: JsonObject | undefined = result;
    for (let i = 0; i < segments.length - 1 && target; i++) {
      const segment = segments[i];
      const next: unknown =
        segment.kind === 'key' && Object.hasOwn(target, segment.key) ? target[segment.key] : undefined;
      target = typeof next === 'object' && next !== null && !Array.isArray(next) ? (next as JsonObject) : undefined;
    }
    const last = segments[segments.length - 1];
    if (target && last?.kind === 'key') delete target[last.key];
  }
  return result;
}

/** The vectors without those named. */
export function omitVectors(vectors: NamedVectors, names: readonly string[]): NamedVectors {
  const result: NamedVectors = {};
  for (const [name, vector] of Object.entries(vectors)) if (!names.includes(name)) result[name] = vector;
  return result;
}
