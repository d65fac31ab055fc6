// Plain TypeScript twins of the WASM kernels (float64 accumulation), the slow reference the tests trust.
import { Distance } from './metric';

export function dotRef(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

export function l2sqRef(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i] - b[i];
    s += d * d;
  }
  return s;
}

export function l1Ref(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += Math.abs(a[i] - b[i]);
  return s;
}

export function cosineRef(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const na = Math.sqrt(dotRef(a, a));
  const nb = Math.sqrt(dotRef(b, b));
  if (na === 0 || nb === 0) return 0;
  return dotRef(a, b) / (na * nb);
}

/** The Qdrant score of vector b for query a under a distance. */
export function scoreRef(d: Distance, a: ArrayLike<number>, b: ArrayLike<number>): number {
  switch (d) {
    case 'Cosine':
      return cosineRef(a, b);
    case 'Dot':
      return dotRef(a, b);
    case 'Euclid':
      return Math.sqrt(l2sqRef(a, b));
    case 'Manhattan':
      return l1Ref(a, b);
  }
}

/** Brute-force top-k by Qdrant score, best first, ties to the lower slot (the slow twin of HNSW). */
export function bruteForceRef(
  d: Distance,
  query: ArrayLike<number>,
  vectors: readonly ArrayLike<number>[],
  k: number,
  accept: (slot: number) => boolean = () => true,
): { slot: number; score: number }[] {
  const hi = d === 'Cosine' || d === 'Dot';
  const all: { slot: number; score: number }[] = [];
  vectors.forEach((v, slot) => {
    if (accept(slot)) all.push({ slot, score: scoreRef(d, query, v) });
  });
  all.sort((x, y) => (hi ? y.score - x.score : x.score - y.score) || x.slot - y.slot);
  return all.slice(0, k);
}
