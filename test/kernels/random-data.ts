// Seeded data generators shared by the kernel and recall specs.

export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function gaussian(rnd: () => number): number {
  const u = 1 - rnd();
  const v = rnd();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** n vectors from a mixture of `clusters` Gaussian blobs. */
export function clustered(n: number, dim: number, clusters: number, seed: number, spread = 0.3): Float32Array[] {
  const rnd = seeded(seed);
  const centers = Array.from({ length: clusters }, () => Float32Array.from({ length: dim }, () => gaussian(rnd)));
  return Array.from({ length: n }, () => {
    const c = centers[Math.floor(rnd() * clusters)];
    return Float32Array.from({ length: dim }, (_, j) => c[j] + spread * gaussian(rnd));
  });
}
