// The one random source for tests and benches: mulberry32 (Tommy Ettinger's 32-bit generator), small,
// fast and good enough for test data. The same seed gives the same stream in every spec and bench, so a
// failing run repeats. Production code keeps its own generator (libs/engine/src/hnsw/random.ts).

/** A seeded stream of pseudo-random numbers (mulberry32). */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Uniform integer in [0, 2^32). */
  uint32(): number {
    const s = (this.state = (this.state + 0x6d2b79f5) >>> 0);
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.uint32() / 4294967296;
  }

  /** Uniform in [lo, hi). */
  float(lo: number, hi: number): number {
    return lo + this.next() * (hi - lo);
  }

  /** Integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Integer in [lo, hi] inclusive. */
  int(lo: number, hi: number): number {
    return lo + this.below(hi - lo + 1);
  }

  /** true with probability p. */
  bool(p = 0.5): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)];
  }

  /** Standard normal (Box-Muller; 1 - next() is in (0, 1], so the logarithm is finite). */
  gaussian(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** A random version-4 UUID, lower case. */
  uuid(): string {
    const hex = Array.from({ length: 32 }, () => this.int(0, 15).toString(16));
    hex[12] = '4';
    hex[16] = ((this.int(0, 15) & 0x3) | 0x8).toString(16);
    const s = hex.join('');
    return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`;
  }

  /** A float32-representable vector with components in [-1, 1), as a plain array (JSON/gRPC bodies). */
  vector(dim: number): number[] {
    return Array.from({ length: dim }, () => Math.fround(this.float(-1, 1)));
  }

  /** n components uniform in [lo, hi). */
  floats(n: number, lo = -1, hi = 1): Float32Array {
    return Float32Array.from({ length: n }, () => this.float(lo, hi));
  }
}

/** The stream of `new Rng(seed)` as a plain function, for code that takes `() => number`. */
export function seeded(seed: number): () => number {
  const rng = new Rng(seed);
  return () => rng.next();
}

/** n vectors from a mixture of `clusters` Gaussian blobs (standard normal centres, `spread` around them). */
export function clustered(n: number, dim: number, clusters: number, seed: number, spread = 0.3): Float32Array[] {
  const rng = new Rng(seed);
  const centers = Array.from({ length: clusters }, () => Float32Array.from({ length: dim }, () => rng.gaussian()));
  return Array.from({ length: n }, () => {
    const c = centers[rng.below(clusters)];
    return Float32Array.from({ length: dim }, (_, j) => c[j] + spread * rng.gaussian());
  });
}
