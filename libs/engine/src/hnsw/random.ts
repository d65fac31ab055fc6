// Seeded randomness for HNSW levels and quantizer sampling (mulberry32), so builds are reproducible.

export class SeededRandom {
  constructor(private state: number) {
    this.state = state >>> 0;
  }
  get seed(): number {
    return this.state;
  }
  /** Uniform in [0, 1). */
  next(): number {
    let t = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
}

/** HNSW level: floor(-ln(U) * mL) with mL = 1 / ln(m), capped at 255 (stored as u8). */
export function randomLevel(rng: SeededRandom, m: number): number {
  const u = 1 - rng.next();
  return Math.min(255, Math.floor(-Math.log(u) / Math.log(m)));
}

/** k distinct indexes from 0..n-1 (all of them when k >= n), in ascending order. */
export function sampleIndexes(rng: SeededRandom, n: number, k: number): Uint32Array {
  if (k >= n) return Uint32Array.from({ length: n }, (_, i) => i);
  const picked = new Set<number>();
  while (picked.size < k) picked.add(rng.int(n));
  return Uint32Array.from([...picked].sort((a, b) => a - b));
}
