/**
 * An external point id: an unsigned 64-bit integer (bigint) or a UUID (lowercase, hyphenated string).
 * The two never collide as map keys, because a UUID always contains hyphens.
 */
export type PointId = bigint | string;

export const MAX_U64 = (1n << 64n) - 1n;

/** A string usable as a Map key that identifies the point. */
export function pointIdKey(id: PointId): string {
  return typeof id === 'bigint' ? id.toString() : id;
}

/** Inverse of {@link pointIdKey}. */
export function pointIdFromKey(key: string): PointId {
  return key.includes('-') ? key : BigInt(key);
}

const UUID_PATTERN = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;

/** Parses a UUID in any accepted spelling into the canonical hyphenated lowercase form, or undefined. */
export function canonicalUuid(text: string): string | undefined {
  const trimmed = text
    .trim()
    .replace(/^urn:uuid:/i, '')
    .replace(/^\{(.*)\}$/, '$1');
  if (!UUID_PATTERN.test(trimmed)) return undefined;
  const hex = trimmed.replace(/-/g, '').toLowerCase();
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Orders points as Qdrant does when scrolling: numeric ids first (ascending), then UUIDs (by value). */
export function comparePointIds(a: PointId, b: PointId): number {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'bigint') return -1;
  if (typeof b === 'bigint') return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}
