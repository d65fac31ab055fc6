import { turbo4RoundTrip } from './turbo4';

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
const random = (dim: number, seed: number) => {
  const next = rng(seed);
  return Float32Array.from({ length: dim }, () => next() * 2 - 1);
};
const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a).reduce((s, x, i) => s + x * b[i], 0);
const norm = (a: ArrayLike<number>) => Math.sqrt(dot(a, a));
const cosine = (a: ArrayLike<number>, b: ArrayLike<number>) => dot(a, b) / (norm(a) * norm(b));

describe('turbo4RoundTrip', () => {
  it('should keep direction and magnitude of random vectors in many dimensions', () => {
    for (const dim of [1, 2, 3, 7, 63, 64, 100, 128, 768]) {
      const v = random(dim, dim);
      const back = turbo4RoundTrip(v);
      expect(back).toHaveLength(dim);
      expect(cosine(v, back)).toBeGreaterThan(dim === 1 ? 0.999 : 0.97);
      expect(norm(back) / norm(v)).toBeGreaterThan(0.9);
      expect(norm(back) / norm(v)).toBeLessThan(1.1);
    }
  });

  it('should be deterministic, give non-integer values, and keep zero and constant vectors finite', () => {
    const v = random(64, 5);
    expect(turbo4RoundTrip(v)).toEqual(turbo4RoundTrip(v));
    expect(Array.from(turbo4RoundTrip(v)).some((x) => x !== Math.trunc(x))).toBe(true);
    expect(Array.from(turbo4RoundTrip(new Float32Array(64)))).toEqual(Array(64).fill(0));
    const constant = new Float32Array(64).fill(0.5);
    const back = turbo4RoundTrip(constant);
    expect(back.every(Number.isFinite)).toBe(true);
    expect(cosine(constant, back)).toBeGreaterThan(0.99);
  });

  it('should absorb extreme magnitudes and outliers', () => {
    for (const scale of [1e30, 1e-30]) {
      const v = random(64, 9).map((x) => x * scale);
      const back = turbo4RoundTrip(v);
      expect(back.every(Number.isFinite)).toBe(true);
      expect(cosine(v, back)).toBeGreaterThan(0.97);
      expect(norm(back) / norm(v)).toBeGreaterThan(0.9);
    }
    const outlier = random(64, 11);
    outlier[0] = 1e6;
    const back = turbo4RoundTrip(outlier);
    expect(cosine(outlier, back)).toBeGreaterThan(0.97);
  });
});
