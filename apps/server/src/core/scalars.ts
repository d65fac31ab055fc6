import { ValidationIssues } from '@vectorstore/common';

/**
 * Reads a uint64 that proto-loader delivered as a decimal string into a JS number, reporting
 * values beyond 2^53 (no configuration value is that large; a bigger one is a client bug).
 */
export function readU64(
  issues: ValidationIssues,
  path: string,
  value: string | number | undefined,
): number | undefined {
  if (value === undefined) return undefined;
  const parsed = typeof value === 'number' ? value : Number(value);
  if (!Number.isSafeInteger(parsed)) {
    issues.add(path, `value ${value} invalid, must be at most ${Number.MAX_SAFE_INTEGER}`);
    return undefined;
  }
  return parsed;
}

/** Reads an enum that proto-loader delivered by name; numbers it does not know come through as numbers. */
export function readEnum<T extends string>(value: string | number | undefined, unset?: string): T | undefined {
  if (value === undefined || value === unset) return undefined;
  return String(value) as T;
}

/** Keeps only defined properties, so optional proto fields that were absent stay absent. */
export function defined<T extends object>(value: T): T {
  // A plain loop: this runs for every message of every response (entries/filter/fromEntries cost 3 arrays).
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = v;
  }
  return out as T;
}
