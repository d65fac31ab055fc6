import { DomainError, isJsonObject, JsonObject, JsonValue } from '@vectorstore/common';

/** One step of a payload JSON path (Qdrant's `JsonPathItem`). */
export type PathSegment =
  | { kind: 'key'; key: string }
  | { kind: 'index'; index: number }
  /** `[]`: every element of the array. */
  | { kind: 'wildcard' };

const parsedPaths = new Map<string, readonly PathSegment[]>();
const PARSED_PATHS_LIMIT = 10_000;

/**
 * Parses a payload key such as `a.b`, `a[].b`, `a[0].b` or `"a.b".c` (quoted keys may hold dots
 * and brackets). Throws InvalidArgument naming the key when it is malformed.
 */
export function parsePath(key: string): readonly PathSegment[] {
  const cached = parsedPaths.get(key);
  if (cached !== undefined) return cached;
  const segments = parseUncached(key);
  if (parsedPaths.size >= PARSED_PATHS_LIMIT) parsedPaths.clear();
  parsedPaths.set(key, segments);
  return segments;
}

function parseUncached(key: string): PathSegment[] {
  const fail = (reason: string): never => {
    throw DomainError.invalidArgument(`Invalid payload key \`${key}\`: ${reason}`);
  };
  if (key.length === 0) fail('key must not be empty');
  const segments: PathSegment[] = [];
  let i = 0;
  for (;;) {
    // A key: quoted or bare.
    if (key[i] === '"') {
      const end = key.indexOf('"', i + 1);
      if (end < 0) fail('unterminated quote');
      segments.push({ kind: 'key', key: key.slice(i + 1, end) });
      i = end + 1;
    } else {
      let j = i;
      while (j < key.length && key[j] !== '.' && key[j] !== '[' && key[j] !== ']' && key[j] !== '"') j++;
      if (j === i) fail(`expected a key at position ${i}`);
      segments.push({ kind: 'key', key: key.slice(i, j) });
      i = j;
    }
    // Any number of `[]` / `[N]`.
    while (key[i] === '[') {
      const end = key.indexOf(']', i + 1);
      if (end < 0) fail('unterminated `[`');
      const inner = key.slice(i + 1, end);
      if (inner.length === 0) {
        segments.push({ kind: 'wildcard' });
      } else if (/^\d+$/.test(inner) && inner.length <= 9) {
        segments.push({ kind: 'index', index: Number(inner) });
      } else {
        fail(`invalid array index \`${inner}\``);
      }
      i = end + 1;
    }
    if (i === key.length) return segments;
    if (key[i] !== '.') fail(`unexpected \`${key[i]}\` at position ${i}`);
    i++;
    if (i === key.length) fail('key must not end with `.`');
  }
}

/** Writes a parsed path back as text (canonical spelling). */
export function formatPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const segment of segments) {
    if (segment.kind === 'key') {
      const bare = segment.key.length > 0 && !/[.[\]"]/.test(segment.key);
      const text = bare ? segment.key : `"${segment.key}"`;
      out += out.length === 0 ? text : `.${text}`;
    } else {
      out += segment.kind === 'wildcard' ? '[]' : `[${segment.index}]`;
    }
  }
  return out;
}

/** Qdrant's nested `array_key`: the key with `[]` appended unless it already ends with one. */
export function nestedArrayKey(key: string): string {
  const segments = parsePath(key);
  return segments[segments.length - 1].kind === 'wildcard' ? key : `${key}[]`;
}

/**
 * The values found at `key`, as Qdrant's `get_value`: arrays met at the end of the path are NOT
 * expanded (so `is_empty`, `is_null` and `values_count` can tell `[]`, `[null]` and `null` apart).
 * A key step on a non-object, or an index step on a non-array, finds nothing.
 */
export function rawValuesAt(payload: JsonObject, key: string): JsonValue[] {
  const result: JsonValue[] = [];
  collect(parsePath(key), 0, payload, result);
  return result;
}

function collect(path: readonly PathSegment[], at: number, value: JsonValue | undefined, out: JsonValue[]): void {
  if (value === undefined) return;
  if (at === path.length) {
    out.push(value);
    return;
  }
  const segment = path[at];
  if (segment.kind === 'key') {
    if (isJsonObject(value) && Object.prototype.hasOwnProperty.call(value, segment.key)) {
      collect(path, at + 1, value[segment.key], out);
    }
  } else if (Array.isArray(value)) {
    if (segment.kind === 'index') {
      collect(path, at + 1, value[segment.index], out);
    } else {
      for (const element of value) collect(path, at + 1, element, out);
    }
  }
}

/**
 * The values at `key` with final arrays flattened one level: what a `match` or `range` tests
 * ("any element"). Missing → []. `null` values are kept.
 */
export function valuesAt(payload: JsonObject, key: string): JsonValue[] {
  const raw = rawValuesAt(payload, key);
  if (raw.length === 1 && !Array.isArray(raw[0])) return raw;
  const out: JsonValue[] = [];
  for (const value of raw) {
    if (Array.isArray(value)) {
      for (const element of value) out.push(element);
    } else {
      out.push(value);
    }
  }
  return out;
}
