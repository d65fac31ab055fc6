import { f16ToF32, f32ToF16, Kernels, reference, roundF16, roundU8 } from '@vectorstore/engine';
import { seeded } from '../support/seeded-random';

const DIMS = [1, 3, 4, 15, 16, 17, 128, 784, 1536];
const NAMES = ['dot', 'l2sq', 'l1'] as const;
const REF = { dot: reference.dotRef, l2sq: reference.l2sqRef, l1: reference.l1Ref };

function close(actual: number, expected: number, scale: number): void {
  // f32 accumulation vs float64 reference: relative error bounded by ~n * eps on the magnitude sum
  expect(Math.abs(actual - expected)).toBeLessThanOrEqual(1e-5 * Math.max(1, scale));
}

describe('Kernels', () => {
  const rnd = seeded(7);
  const vec = (n: number, lo: number, hi: number) => Array.from({ length: n }, () => lo + (hi - lo) * rnd());

  describe.each(['f32', 'f16', 'u8'] as const)('stored %s', (stored) => {
    const encode = (b: number[]) =>
      stored === 'f32' ? Float32Array.from(b) : stored === 'f16' ? b.map(roundF16) : b.map(roundU8);
    it.each(DIMS)('should match the scalar twin and the TypeScript reference at dim %i', (dim) => {
      const a = Array.from(Float32Array.from(vec(dim, -1, 1)));
      const b = stored === 'u8' ? vec(dim, 0, 255) : vec(dim, -2, 2);
      const bStored = Array.from(encode(b));
      for (const name of NAMES) {
        const simd = Kernels.run(name, stored, a, b);
        const scalar = Kernels.run(name, stored, a, b, true);
        const ref = REF[name](a, bStored);
        const mag = reference.dotRef(a.map(Math.abs), bStored.map(Math.abs)) + reference.l2sqRef(a, bStored) + dim;
        close(simd, ref, mag);
        close(scalar, ref, mag);
        close(simd, scalar, mag);
      }
    });

    it('should give zero for zero vectors', () => {
      const z = new Array(17).fill(0);
      for (const name of NAMES) {
        expect(Kernels.run(name, stored, z, z)).toBe(0);
        expect(Kernels.run(name, stored, z, z, true)).toBe(0);
      }
    });
  });

  describe('f16 round trip', () => {
    it('should encode and decode like the format definition', () => {
      for (const x of [0, -0, 1, -1, 0.1, 65504, -65504, 1e-7, 6.1e-5, 3.14159, 1e6, -1e6]) {
        const back = f16ToF32(f32ToF16(x));
        if (Math.abs(x) >= 65504) expect(Math.abs(back)).toBe(65504);
        else expect(Math.abs(back - x)).toBeLessThanOrEqual(Math.max(Math.abs(x) * 2 ** -11, 2 ** -25));
      }
    });
    it('should decode every half identically in WASM (SIMD and scalar) and TypeScript', () => {
      const ones = new Array(8).fill(1);
      for (let h = 0; h < 0x7c00; h += 97) {
        const halves = [h, h | 0x8000, h + 1, h + 2, h + 3, h + 4, h + 5, h + 6].map((x) => f16ToF32(x & 0xffff));
        // dot with a ones query sums the decoded values; compare element by element via one-hot queries
        for (let i = 0; i < 8; i++) {
          const q = new Array(8).fill(0);
          q[i] = 1;
          expect(Kernels.run('dot', 'f16', q, halves)).toBe(Math.fround(halves[i]) + 0);
          expect(Kernels.run('dot', 'f16', q, halves, true)).toBe(Math.fround(halves[i]) + 0);
        }
        expect(Kernels.run('dot', 'f16', ones, halves)).toBeCloseTo(
          halves.reduce((s, x) => s + x, 0),
          0,
        );
      }
    });
  });

  describe('u8 round trip', () => {
    it('should round and clamp to 0..255', () => {
      expect([-3, 0, 1.4, 1.6, 254.5, 300].map(roundU8)).toEqual([0, 0, 1, 2, 255, 255]);
    });
  });

  describe('int8 code kernels', () => {
    it.each(DIMS)('should match the scalar twin and the reference at dim %i', (dim) => {
      const a = vec(dim, 0, 256).map(Math.floor);
      const b = vec(dim, 0, 256).map(Math.floor);
      for (const name of NAMES) {
        const ref = REF[name](a, b);
        expect(Kernels.codes(name, a, b)).toBe(ref);
        expect(Kernels.codes(name, a, b, true)).toBe(ref);
      }
    });
  });

  describe('hamming', () => {
    it('should count differing bits', () => {
      const a = Uint8Array.from(vec(24, 0, 256).map(Math.floor));
      const b = Uint8Array.from(vec(24, 0, 256).map(Math.floor));
      let expected = 0;
      for (let i = 0; i < 24; i++) for (let x = a[i] ^ b[i]; x; x >>= 1) expected += x & 1;
      expect(Kernels.hamming(a, b)).toBe(expected);
    });
  });

  describe('planeScore', () => {
    it('should equal the weighted bit count computed in TypeScript', () => {
      const words = 3;
      for (const nPlanes of [4, 8]) {
        const weights = Array.from({ length: words * 64 }, () => Math.floor(rnd() * (1 << nPlanes)));
        const bits = Array.from({ length: words * 64 }, () => (rnd() < 0.5 ? 1 : 0));
        const planes = new Uint8Array(nPlanes * words * 8);
        const code = new Uint8Array(words * 8);
        weights.forEach((w, j) => {
          for (let p = 0; p < nPlanes; p++) if ((w >> p) & 1) planes[p * words * 8 + (j >> 3)] |= 1 << (j & 7);
          if (bits[j]) code[j >> 3] |= 1 << (j & 7);
        });
        const lo = -1.5;
        const scale = 0.25;
        const expected = weights.reduce((s, w, j) => s + bits[j] * (lo + scale * w), 0);
        expect(Kernels.planeScore(planes, nPlanes, code, lo, scale)).toBeCloseTo(expected, 3);
      }
    });
  });

  describe('pqDistance', () => {
    it('should sum the table entries picked by the codes', () => {
      for (const nSub of [1, 3, 64]) {
        const table = Float32Array.from({ length: nSub * 256 }, () => rnd());
        const code = Uint8Array.from({ length: nSub }, () => Math.floor(rnd() * 256));
        const expected = Array.from(code).reduce((s, c, i) => s + table[i * 256 + c], 0);
        expect(Kernels.pqDistance(table, code)).toBeCloseTo(expected, 4);
      }
    });
  });
});
