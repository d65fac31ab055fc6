import { JsonObject, setOwn } from '@vectorstore/common';

/** Returns `base` with every defined field of `diff` laid over it (one level deep). */
export function mergeDefined<T extends object>(base: T, diff: Partial<T> | undefined): T {
  if (!diff) return { ...base };
  const result: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [key, value] of Object.entries(diff)) {
    if (value !== undefined) result[key] = value;
  }
  return result as T;
}

/** Drops undefined fields so stored records and comparisons stay tidy. */
export function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** Merges metadata the way Qdrant does: keys are replaced, a null value removes the key. */
export function mergeMetadata(stored: JsonObject, diff: JsonObject | undefined): JsonObject {
  const result: JsonObject = { ...stored };
  for (const [key, value] of Object.entries(diff ?? {})) {
    if (value === null) delete result[key];
    else setOwn(result, key, value);
  }
  return result;
}
