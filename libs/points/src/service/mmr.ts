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
