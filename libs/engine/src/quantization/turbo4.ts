// The turbo4 datatype (Qdrant 1.19's 4-bit TurboQuant storage): a vector is rotated by a fixed random
// orthogonal transform (a sign-randomized Walsh-Hadamard transform on each power-of-two block of its
// dimensions, so 63 = 32 + 16 + 8 + 4 + 2 + 1), each rotated coordinate is quantized to one of 16
// levels spread over the vector's own range, and the codes are rotated back. The rotation spreads any
// outlier over its block, so 4 bits keep the direction (cosine > 0.99 for typical vectors) and the
// magnitude.

/** Fixed sign flips (a seeded xorshift), the same in every process and version: stored values depend on them. */
function signs(length: number): Float64Array {
  const out = new Float64Array(length);
  let state = 0x9e3779b9 >>> 0;
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    out[i] = state & 1 ? -1 : 1;
  }
  return out;
}

const SIGN_CACHE = new Map<number, Float64Array>();
function signsFor(dim: number): Float64Array {
  let cached = SIGN_CACHE.get(dim);
  if (!cached) {
    cached = signs(dim);
    SIGN_CACHE.set(dim, cached);
  }
  return cached;
}

/** In-place orthonormal Walsh-Hadamard transform of `v[from, from + n)` (n a power of two); its own inverse. */
function hadamard(v: Float64Array, from: number, n: number): void {
  for (let h = 1; h < n; h *= 2) {
    for (let i = from; i < from + n; i += 2 * h) {
      for (let j = i; j < i + h; j++) {
        const a = v[j];
        const b = v[j + h];
        v[j] = a + b;
        v[j + h] = a - b;
      }
    }
  }
  const scale = 1 / Math.sqrt(n);
  for (let i = from; i < from + n; i++) v[i] *= scale;
}

/** Applies `transform` to each power-of-two block of `dim`, largest first. */
function forEachBlock(dim: number, visit: (from: number, n: number) => void): void {
  let from = 0;
  for (let bit = 31; bit >= 0; bit--) {
    const n = 2 ** bit;
    if ((dim & n) !== 0) {
      visit(from, n);
      from += n;
    }
  }
}

/** The 16 levels of 4-bit codes. */
const LEVELS = 15;

/**
 * A vector as turbo4 stores it: rotated, quantized to 4 bits per coordinate with a per-vector scale,
 * rotated back. Deterministic; a zero vector stays zero and every value stays finite (computed in
 * f64, so even 1e30-scale inputs do not overflow).
 */
export function turbo4RoundTrip(values: Float32Array): Float32Array {
  const dim = values.length;
  const flips = signsFor(dim);
  const v = new Float64Array(dim);
  for (let i = 0; i < dim; i++) v[i] = values[i] * flips[i];
  forEachBlock(dim, (from, n) => hadamard(v, from, n));
  let max = 0;
  for (let i = 0; i < dim; i++) max = Math.max(max, Math.abs(v[i]));
  if (max === 0 || !Number.isFinite(max)) return new Float32Array(dim);
  const step = (2 * max) / LEVELS;
  for (let i = 0; i < dim; i++) v[i] = Math.round((v[i] + max) / step) * step - max;
  forEachBlock(dim, (from, n) => hadamard(v, from, n));
  const out = new Float32Array(dim);
  for (let i = 0; i < dim; i++) out[i] = v[i] * flips[i];
  return out;
}
