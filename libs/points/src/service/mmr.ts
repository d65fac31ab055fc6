import { reference } from '@vectorstore/engine';
import { SparseVector, Vector } from '../model/vectors.model';
import { VectorSpace } from '../storage/vector-space';
import { rawSimilarity } from './discovery';
import { withScratchVectors } from './scratch-vectors';

/**
 * Qdrant's Maximal Marginal Relevance, over candidates known only by index: the most relevant first,
 * then repeatedly the one maximizing `lambda * relevance - (1 - lambda) * (greatest similarity to one
 * already picked)`. Relevance and similarity are in the space's similarity terms (rawSimilarity).
 * Returns the indexes picked, in the order picked. Pairs are scored lazily, each at most once.
 */
export function mmrOrder(
  relevance: readonly number[],
  similarity: (i: number, j: number) => number,
  lambda: number,
  limit: number,
): number[] {
  const n = relevance.length;
  if (n < 2) return [...relevance.keys()].slice(0, limit);
  const cache = new Map<number, number>();
  const pair = (i: number, j: number): number => {
    const key = i < j ? i * n + j : j * n + i;
    let value = cache.get(key);
    if (value === undefined) cache.set(key, (value = similarity(i, j)));
    return value;
  };
  const remaining = new Set(relevance.keys());
  let first = 0;
  for (const i of remaining) if (relevance[i] > relevance[first]) first = i;
  const picked = [first];
  remaining.delete(first);
  while (picked.length < limit && remaining.size > 0) {
    let best = -1;
    let bestScore = -Infinity;
    for (const i of remaining) {
      let closest = -Infinity;
      for (const j of picked) closest = Math.max(closest, pair(i, j));
      const score = lambda * relevance[i] - (1 - lambda) * closest;
      if (score > bestScore) {
        bestScore = score;
        best = i;
      }
    }
    picked.push(best);
    remaining.delete(best);
  }
  return picked;
}

/**
 * MMR over candidates given with their vectors, as Qdrant computes it (a volatile storage of the
 * candidates' vectors): relevance is each candidate's similarity to the query and diversity its
 * similarity to the candidates picked, both in the space's similarity terms (rawSimilarity) and without
 * a sparse vector's IDF. Returns the indexes picked, in the order picked.
 */
export function mmrPick(
  space: VectorSpace,
  query: Vector,
  vectors: readonly Vector[],
  lambda: number,
  limit: number,
): number[] {
  if (vectors.length < 2) return [...vectors.keys()].slice(0, limit);
  if (space.kind === 'multi') {
    // MaxSim and its conventions are the engine's: score with a throwaway store of the same space.
    return withScratchVectors(space, vectors, (store, slots) => {
      const relevance = new Array<number>(vectors.length).fill(-Infinity);
      const hits = store.score(query, slots);
      hits.slots.forEach((slot, i) => (relevance[slot] = rawSimilarity(space, hits.scores[i])));
      const similarity = (i: number, j: number): number => {
        const scored = store.score(vectors[j], [i]);
        return scored.scores.length > 0 ? rawSimilarity(space, scored.scores[0]) : 0;
      };
      return mmrOrder(relevance, similarity, lambda, limit);
    });
  }
  const score = pairScore(space);
  const relevance = vectors.map((v) => rawSimilarity(space, score(query, v)));
  return mmrOrder(relevance, (i, j) => rawSimilarity(space, score(vectors[i], vectors[j])), lambda, limit);
}

/**
 * `mmrPick` over items that carry their vector (or not): items without one are left out, as Qdrant does;
 * the picked items are returned in the order picked.
 */
export function mmrPickItems<T>(
  space: VectorSpace,
  query: Vector,
  items: readonly T[],
  vectorOf: (item: T) => Vector | undefined,
  lambda: number,
  limit: number,
): T[] {
  const withVector = items.flatMap((item) => {
    const vector = vectorOf(item);
    return vector ? [{ item, vector }] : [];
  });
  const picked = mmrPick(
    space,
    query,
    withVector.map((c) => c.vector),
    lambda,
    limit,
  );
  return picked.map((i) => withVector[i].item);
}

/** The search score of vector b for query a in a dense or sparse space (sparse: plain dot, no IDF). */
export function pairScore(space: VectorSpace): (a: Vector, b: Vector) => number {
  if (space.kind === 'sparse') return (a, b) => (a.kind === 'sparse' && b.kind === 'sparse' ? sparseDot(a, b) : 0);
  const distance = space.kind === 'dense' ? space.distance : 'Dot';
  return (a, b) => (a.kind === 'dense' && b.kind === 'dense' ? reference.scoreRef(distance, a.values, b.values) : 0);
}

function sparseDot(a: SparseVector, b: SparseVector): number {
  const weights = new Map<number, number>();
  a.indices.forEach((index, i) => weights.set(index, a.values[i]));
  let sum = 0;
  b.indices.forEach((index, i) => (sum += (weights.get(index) ?? 0) * b.values[i]));
  return sum;
}
