import type { Json, Point } from '../api/types';

/** hnsw_ef values from "16, 32, 64": whole numbers ≥ 1, sorted, without repeats. */
export function parseEfList(text: string): { values?: number[]; error?: string } {
  const parts = text
    .split(/[\s,]+/)
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0) return { error: 'At least one hnsw_ef value, e.g. 16, 32, 64' };
  const values = parts.map(Number);
  if (values.some((v) => !Number.isInteger(v) || v < 1)) return { error: 'Whole numbers of 1 or more' };
  return { values: [...new Set(values)].sort((a, b) => a - b) };
}

/**
 * precision@k of the index: for each query, the share of the exact top k that the index's top k found, averaged
 * over the queries with at least one exact result (1 when none has any). Ids compare as their text (u64 safe).
 */
export function precisionAtK(exact: Point[][], approximate: Point[][]): number {
  let sum = 0;
  let counted = 0;
  exact.forEach((truth, i) => {
    if (truth.length === 0) return;
    const found = new Set((approximate[i] ?? []).map((p) => String(p.id)));
    sum += truth.filter((p) => found.has(String(p.id))).length / truth.length;
    counted++;
  });
  return counted === 0 ? 1 : sum / counted;
}

/** The vector a sampled point is queried with: the one named `using`, or its only (default) vector. */
export function vectorOf(point: Point, using: string): Json | undefined {
  const vector = point.vector;
  if (vector === undefined || vector === null) return undefined;
  if (using !== '') return typeof vector === 'object' && !Array.isArray(vector) ? vector[using] : undefined;
  return Array.isArray(vector) ? vector : undefined;
}
