import { Rng } from '../../../../test/support/seeded-random';
import { countBits, writeAllowedBitmap } from './allowed-bitmap';

// The slow twin: one bit at a time.
function naive(n: number, allowed: Uint8Array | ((s: number) => boolean)): { bits: number[]; count: number } {
  const bits: number[] = [];
  for (let s = 0; s < n; s++) {
    const on =
      typeof allowed === 'function' ? allowed(s) : s >> 3 < allowed.length && (allowed[s >> 3] & (1 << (s & 7))) !== 0;
    bits.push(on ? 1 : 0);
  }
  return { bits, count: bits.reduce((a, b) => a + b, 0) };
}

function readBits(u8: Uint8Array, base: number, n: number): number[] {
  return Array.from({ length: n }, (_, s) => ((u8[base + (s >> 3)] >> (s & 7)) & 1) as number);
}

describe('writeAllowedBitmap', () => {
  it('should copy a bitmap, clear the bits past n, and count the allowed slots', () => {
    const rng = new Rng(4);
    for (const n of [0, 1, 7, 8, 9, 63, 64, 65, 1000, 1003]) {
      for (const extra of [-3, 0, 5]) {
        const len = Math.max(0, Math.ceil(n / 8) + extra);
        const allowed = Uint8Array.from({ length: len }, () => rng.below(256));
        for (const base of [0, 1, 64]) {
          const u8 = new Uint8Array(base + Math.ceil(n / 8) + 16).fill(0xff); // stale bytes
          const want = naive(n, allowed);
          expect(writeAllowedBitmap(u8, base, n, allowed)).toBe(want.count);
          expect(readBits(u8, base, n)).toEqual(want.bits);
          if (n % 8 !== 0) expect(u8[base + Math.ceil(n / 8) - 1] >> (n % 8)).toBe(0);
        }
      }
    }
  });

  it('should write a predicate as bits', () => {
    const pick = (s: number) => s % 3 === 0 || s % 7 === 1;
    const u8 = new Uint8Array(200).fill(0xff);
    const want = naive(1000, pick);
    expect(writeAllowedBitmap(u8, 3, 1000, pick)).toBe(want.count);
    expect(readBits(u8, 3, 1000)).toEqual(want.bits);
  });
});

describe('countBits', () => {
  it('should count the set bits of any byte range, aligned or not', () => {
    const rng = new Rng(5);
    const u8 = Uint8Array.from({ length: 300 }, () => rng.below(256));
    const sub = u8.subarray(1); // a view that is not 4-aligned
    for (const [from, to] of [
      [0, 0],
      [0, 300],
      [1, 2],
      [3, 299],
      [5, 17],
    ]) {
      let want = 0;
      for (let i = from; i < to; i++) for (let b = 0; b < 8; b++) want += (u8[i] >> b) & 1;
      expect(countBits(u8, from, to)).toBe(want);
      if (to <= 299 && from >= 1) expect(countBits(sub, from - 1, to - 1)).toBe(want);
    }
  });
});
