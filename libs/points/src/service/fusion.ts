import { DomainError } from '@vectorstore/common';
import { Candidate } from './candidate';

/** What fusion reads of a candidate: a point key and its score in one list (a Candidate, or a merged hit). */
export type Scored = Pick<Candidate, 'key' | 'score'>;

const f32 = Math.fround;

/**
 * Reciprocal rank fusion as Qdrant: a point at 0-based `rank` of a list weighted `w` scores
 * `1 / ((rank + 1) / w + k - 1)` (with w = 1: `1 / (rank + k)`), summed over the lists; a weight of
 * 0 or less contributes nothing. `weights`, when given, must have one entry per list.
 */
export function rrf<C extends Scored>(sources: C[][], k: number, weights?: readonly number[]): C[] {
  if (weights !== undefined && weights.length !== sources.length) {
    throw DomainError.validation([
      `query.rrf.weights: Number of weights in RRF should match number of pre-fetches: got ${weights.length}, expected ${sources.length}`,
    ]);
  }
  const fused = new Map<string, C>();
  sources.forEach((list, i) => {
    const weight = weights?.[i] ?? 1;
    list.forEach((c, rank) => {
      const score = weight <= 0 ? 0 : f32(1 / f32(f32((rank + 1) / weight) + k - 1));
      const entry = fused.get(c.key) ?? { ...c, score: 0 };
      entry.score = f32(entry.score + score);
      fused.set(c.key, entry);
    });
  });
  return [...fused.values()].sort((a, b) => b.score - a.score);
}

/**
 * Distribution-based score fusion as Qdrant: each list is normalised between mean ± 3 sample standard
 * deviations (Welford, in f32; not clamped; a single point scores 0.5), then the lists are summed.
 */
export function dbsf<C extends Scored>(sources: C[][]): C[] {
  const fused = new Map<string, C>();
  for (const list of sources) {
    for (const [c, normalized] of distributionNormalized(list)) {
      const entry = fused.get(c.key) ?? { ...c, score: 0 };
      entry.score = f32(entry.score + normalized);
      fused.set(c.key, entry);
    }
  }
  return [...fused.values()].sort((a, b) => b.score - a.score);
}

function distributionNormalized<C extends Scored>(list: C[]): Array<[C, number]> {
  if (list.length < 2) return list.map((c) => [c, 0.5]);
  let mean = 0;
  let aggregate = 0;
  list.forEach((c, i) => {
    const oldDelta = f32(c.score - mean);
    mean = f32(mean + f32(oldDelta / (i + 1)));
    aggregate = f32(aggregate + f32(oldDelta * f32(c.score - mean)));
  });
  const std = f32(Math.sqrt(f32(aggregate / (list.length - 1))));
  const low = f32(mean - f32(3 * std));
  const high = f32(mean + f32(3 * std));
  if (low === high) return list.map((c) => [c, 0.5]);
  return list.map((c) => [c, f32(f32(c.score - low) / f32(high - low))]);
}
