// IEEE binary16 conversion in TypeScript (the engine stores float16 vectors as these bits).

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** Largest finite half. Encoding saturates here instead of producing an infinity. */
export const F16_MAX = 65504;

/** f32 -> half bits, round to nearest even, saturating to +-65504. */
export function f32ToF16(value: number): number {
  const v = Math.max(-F16_MAX, Math.min(F16_MAX, value));
  f32[0] = v;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const exp = (x >>> 23) & 0xff;
  let mant = x & 0x7fffff;
  if (exp === 0 && mant === 0) return sign;
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7bff;
  if (e <= 0) {
    // subnormal half
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let h = mant >>> shift;
    const rem = mant & ((1 << shift) - 1);
    const half = 1 << (shift - 1);
    if (rem > half || (rem === half && h & 1)) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem === 0x1000 && h & 1)) h++;
  if ((h & 0x7fff) >= 0x7c00) return sign | 0x7bff;
  return sign | h;
}

/** half bits -> number (the reference decoder, written from the format definition). */
export function f16ToF32(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

/** Value after a float16 round trip. */
export function roundF16(value: number): number {
  return f16ToF32(f32ToF16(value));
}

/** Value after a uint8 round trip (round to nearest, clamp to 0..255). */
export function roundU8(value: number): number {
  return Math.max(0, Math.min(255, Math.round(value)));
}
