/** How many points a condition may match: a guaranteed range [min, max] and a best guess `exp`. */
export interface CardinalityEstimate {
  min: number;
  exp: number;
  max: number;
}

export const exactEstimate = (n: number): CardinalityEstimate => ({ min: n, exp: n, max: n });

/** Nothing known: anywhere in [0, total], guessed at half (Qdrant's unknown estimate). */
export const unknownEstimate = (total: number): CardinalityEstimate => ({
  min: 0,
  exp: Math.floor(total / 2),
  max: total,
});

const clampExp = (e: CardinalityEstimate): CardinalityEstimate => ({
  min: e.min,
  max: e.max,
  exp: Math.min(e.max, Math.max(e.min, Math.round(e.exp))),
});

/** All must hold: intersection. `exp` assumes independence. */
export function combineMust(estimates: readonly CardinalityEstimate[], total: number): CardinalityEstimate {
  if (estimates.length === 0) return exactEstimate(total);
  if (estimates.length === 1) return estimates[0];
  let minSum = 0;
  let max = total;
  let probability = 1;
  for (const e of estimates) {
    minSum += e.min;
    max = Math.min(max, e.max);
    probability *= total === 0 ? 0 : e.exp / total;
  }
  const min = Math.max(0, minSum - (estimates.length - 1) * total);
  return clampExp({ min: Math.min(min, max), exp: probability * total, max });
}

/** At least one holds: union. */
export function combineShould(estimates: readonly CardinalityEstimate[], total: number): CardinalityEstimate {
  if (estimates.length === 1) return estimates[0];
  let min = 0;
  let maxSum = 0;
  let missProbability = 1;
  for (const e of estimates) {
    min = Math.max(min, e.min);
    maxSum += e.max;
    missProbability *= total === 0 ? 1 : 1 - e.exp / total;
  }
  return clampExp({ min, exp: (1 - missProbability) * total, max: Math.min(total, maxSum) });
}

/** At least `count` of the conditions hold. */
export function combineMinShould(
  estimates: readonly CardinalityEstimate[],
  count: number,
  total: number,
): CardinalityEstimate {
  if (count <= 0) return exactEstimate(total);
  if (count > estimates.length) return exactEstimate(0);
  if (count === 1) return combineShould(estimates, total);
  // A matching point contributes at least `count` to the sum of the per-condition counts.
  const maxSum = estimates.reduce((s, e) => s + e.max, 0);
  const max = Math.min(total, Math.floor(maxSum / count));
  const union = combineShould(estimates, total);
  return clampExp({ min: 0, exp: union.exp / count, max });
}

/** The condition must not hold: complement. */
export function invertEstimate(e: CardinalityEstimate, total: number): CardinalityEstimate {
  return { min: Math.max(0, total - e.max), exp: Math.max(0, total - e.exp), max: Math.max(0, total - e.min) };
}
