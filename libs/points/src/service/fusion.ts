import { Candidate } from './candidate';

/** Reciprocal rank fusion: score = sum of 1 / (k + rank), rank from 0. */
export function rrf(sources: Candidate[][], k: number): Candidate[] {
  const fused = new Map<string, Candidate>();
  for (const list of sources) {
    list.forEach((c, rank) => {
      const entry = fused.get(c.key) ?? { ...c, score: 0 };
      entry.score += 1 / (k + rank);
      fused.set(c.key, entry);
    });
  }
  return [...fused.values()].sort((a, b) => b.score - a.score);
}

/** Distribution-based score fusion: each list normalised by mean ± 3 standard deviations, then summed. */
export function dbsf(sources: Candidate[][]): Candidate[] {
  const fused = new Map<string, Candidate>();
  for (const list of sources) {
    if (list.length === 0) continue;
    const mean = list.reduce((s, c) => s + c.score, 0) / list.length;
    const std = Math.sqrt(list.reduce((s, c) => s + (c.score - mean) ** 2, 0) / list.length);
    const low = mean - 3 * std;
    const high = mean + 3 * std;
    for (const c of list) {
      const normalized = high === low ? 0.5 : Math.min(1, Math.max(0, (c.score - low) / (high - low)));
      const entry = fused.get(c.key) ?? { ...c, score: 0 };
      entry.score += normalized;
      fused.set(c.key, entry);
    }
  }
  return [...fused.values()].sort((a, b) => b.score - a.score);
}
