import { isJsonObject, JsonObject, JsonValue, setOwn } from '@vectorstore/common';
import { parsePath, PathSegment } from '../../filter/payload-path';
import { NamedVectors } from '../../model/vectors.model';

/**
 * Merges `value` into the object at `key` inside `payload`, as Qdrant's set_payload `key` (its
 * `value_set`): missing or non-object nodes on the way become objects; `[n]` descends into element n
 * of an array (nothing happens past its end); `[]` into every element.
 */
export function setAtPath(payload: JsonObject, key: string, value: JsonObject): JsonObject {
  const segments = parsePath(key);
  const root: JsonObject = structuredClone(payload);
  const set = (node: JsonValue | undefined, at: number): JsonValue => {
    if (at === segments.length) {
      const target: JsonObject = isJsonObject(node) ? node : {};
      for (const [k, v] of Object.entries(value)) setOwn(target, k, structuredClone(v as JsonValue));
      return target;
    }
    const segment = segments[at];
    if (segment.kind === 'key') {
      const target: JsonObject = isJsonObject(node) ? node : {};
      setOwn(target, segment.key, set(Object.hasOwn(target, segment.key) ? target[segment.key] : undefined, at + 1));
      return target;
    }
    if (!Array.isArray(node)) return [];
    if (segment.kind === 'index') {
      if (segment.index < node.length) node[segment.index] = set(node[segment.index], at + 1);
      return node;
    }
    for (let i = 0; i < node.length; i++) node[i] = set(node[i], at + 1);
    return node;
  };
  return set(root, 0) as JsonObject;
}

/**
 * Removes payload keys, as Qdrant's `value_remove`: a path removes inside nested objects and, with
 * `[n]` or `[]`, inside array elements; a path ending in `[]` empties the array, one ending in `[n]`
 * removes nothing (removing by index is not idempotent).
 */
export function deleteKeys(payload: JsonObject, keys: readonly string[]): JsonObject {
  const result = structuredClone(payload);
  const remove = (node: JsonValue | undefined, segments: readonly PathSegment[], at: number): void => {
    const segment = segments[at];
    const last = at === segments.length - 1;
    if (segment.kind === 'key') {
      if (!isJsonObject(node) || !Object.hasOwn(node, segment.key)) return;
      if (last) delete node[segment.key];
      else remove(node[segment.key], segments, at + 1);
    } else if (Array.isArray(node)) {
      if (segment.kind === 'wildcard') {
        if (last) node.length = 0;
        else for (const element of node) remove(element, segments, at + 1);
      } else if (!last && segment.index < node.length) {
        remove(node[segment.index], segments, at + 1);
      }
    }
  };
  for (const key of keys) remove(result, parsePath(key), 0);
  return result;
}

/** The vectors without those named. */
export function omitVectors(vectors: NamedVectors, names: readonly string[]): NamedVectors {
  const result: NamedVectors = {};
  for (const [name, vector] of Object.entries(vectors)) if (!names.includes(name)) result[name] = vector;
  return result;
}
