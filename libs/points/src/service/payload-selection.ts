import { isJsonObject, JsonObject, JsonValue, setOwn } from '@vectorstore/common';
import { parsePath, PathSegment } from '../filter/payload-path';
import { NamedVectors } from '../model/vectors.model';
import { PayloadSelector, VectorSelector } from '../model/selectors.model';

/**
 * The payload to return for a selector, or undefined when none is wanted. As Qdrant: the payload is
 * walked with each node's path (array elements as `[]`); `include` keeps a node when its path and a
 * pattern agree as far as both go (so `a.b[].c` keeps `a`, `a.b`, each element, and their `c`),
 * `exclude` drops a node when a pattern is a prefix of its path.
 */
export function selectPayload(payload: JsonObject, selector: PayloadSelector): JsonObject | undefined {
  if ('enable' in selector) return selector.enable ? payload : undefined;
  if ('include' in selector) {
    const patterns = selector.include.map(parsePath);
    return filterPayload(payload, (path) => patterns.some((pattern) => agree(path, pattern)));
  }
  const patterns = selector.exclude.map(parsePath);
  return filterPayload(payload, (path) => patterns.every((pattern) => !startsWith(path, pattern)));
}

function sameSegment(a: PathSegment, b: PathSegment): boolean {
  if (a.kind === 'key') return b.kind === 'key' && a.key === b.key;
  if (a.kind === 'index') return b.kind === 'index' && a.index === b.index;
  return b.kind === 'wildcard';
}

function agree(path: readonly PathSegment[], pattern: readonly PathSegment[]): boolean {
  const n = Math.min(path.length, pattern.length);
  for (let i = 0; i < n; i++) if (!sameSegment(path[i], pattern[i])) return false;
  return true;
}

function startsWith(path: readonly PathSegment[], prefix: readonly PathSegment[]): boolean {
  return prefix.length <= path.length && agree(path, prefix);
}

/** Qdrant's `value_filter`: a copy of `payload` with the nodes `keep` accepts (children of kept nodes filtered in turn). */
function filterPayload(payload: JsonObject, keep: (path: readonly PathSegment[]) => boolean): JsonObject {
  const walk = (value: JsonValue, path: PathSegment[]): JsonValue => {
    if (Array.isArray(value)) {
      path.push({ kind: 'wildcard' });
      const out = value.filter(() => keep(path)).map((element) => walk(element, path));
      path.pop();
      return out;
    }
    if (isJsonObject(value)) {
      const out: JsonObject = {};
      for (const [key, child] of Object.entries(value)) {
        path.push({ kind: 'key', key });
        if (keep(path)) setOwn(out, key, walk(child, path));
        path.pop();
      }
      return out;
    }
    return value;
  };
  return walk(payload, []) as JsonObject;
}

/** The vector names to return for a selector, or undefined when none are wanted. */
export function selectedVectorNames(selector: VectorSelector): readonly string[] | 'all' | undefined {
  if ('enable' in selector) return selector.enable ? 'all' : undefined;
  return selector.include;
}

export function selectVectors(vectors: NamedVectors, selector: VectorSelector): NamedVectors | undefined {
  const names = selectedVectorNames(selector);
  if (names === undefined) return undefined;
  if (names === 'all') return vectors;
  const result: NamedVectors = {};
  for (const name of names) if (vectors[name]) result[name] = vectors[name];
  return result;
}
