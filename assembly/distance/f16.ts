// f32 query x f16 stored vector (IEEE binary16 bits). Decoding: shift the 15 magnitude bits into an f32
// exponent/mantissa position and multiply by 2^112, which is exact for normal and subnormal halves; the
// engine never stores half infinities or NaN (the encoder saturates at +-65504).
import { hsum } from './f32';

const POW2_112: f32 = reinterpret<f32>(0x77800000);

@inline function f16x4(p: usize): v128 {
  const h = v128.load16x4_u(p);
  const sign = i32x4.shl(v128.and(h, i32x4.splat(0x8000)), 16);
  const mag = i32x4.shl(v128.and(h, i32x4.splat(0x7fff)), 13);
  return v128.or(f32x4.mul(mag, f32x4.splat(POW2_112)), sign);
}

/** One half (given as its 16 bits) to f32, the scalar twin of the SIMD decode. */
@inline export function f16ToF32(h: u32): f32 {
  const mag = reinterpret<f32>((h & 0x7fff) << 13) * POW2_112;
  return reinterpret<f32>(reinterpret<u32>(mag) | ((h & 0x8000) << 16));
}

/** Decodes n halves at src into f32 at dst. */
export function decodeF16(src: usize, dst: usize, n: i32): void {
  let i = 0;
  for (; i + 4 <= n; i += 4) v128.store(dst + (<usize>i << 2), f16x4(src + (<usize>i << 1)));
  for (; i < n; i++) store<f32>(dst + (<usize>i << 2), f16ToF32(load<u16>(src + (<usize>i << 1))));
}

export function dotF16(a: usize, b: usize, n: i32): f32 {
  let s0 = f32x4.splat(0);
  let s1 = s0;
  let i = 0;
  const n8 = n & ~7;
  for (; i < n8; i += 8) {
    const pa = a + (<usize>i << 2);
    const pb = b + (<usize>i << 1);
    s0 = f32x4.add(s0, f32x4.mul(v128.load(pa), f16x4(pb)));
    s1 = f32x4.add(s1, f32x4.mul(v128.load(pa, 16), f16x4(pb + 8)));
  }
  let s = hsum(f32x4.add(s0, s1));
  for (; i < n; i++) s += load<f32>(a + (<usize>i << 2)) * f16ToF32(load<u16>(b + (<usize>i << 1)));
  return s;
}

export function l2sqF16(a: usize, b: usize, n: i32): f32 {
  let s0 = f32x4.splat(0);
  let s1 = s0;
  let i = 0;
  const n8 = n & ~7;
  for (; i < n8; i += 8) {
    const pa = a + (<usize>i << 2);
    const pb = b + (<usize>i << 1);
    const d0 = f32x4.sub(v128.load(pa), f16x4(pb));
    const d1 = f32x4.sub(v128.load(pa, 16), f16x4(pb + 8));
    s0 = f32x4.add(s0, f32x4.mul(d0, d0));
    s1 = f32x4.add(s1, f32x4.mul(d1, d1));
  }
  let s = hsum(f32x4.add(s0, s1));
  for (; i < n; i++) {
    const d = load<f32>(a + (<usize>i << 2)) - f16ToF32(load<u16>(b + (<usize>i << 1)));
    s += d * d;
  }
  return s;
}

export function l1F16(a: usize, b: usize, n: i32): f32 {
  let s0 = f32x4.splat(0);
  let s1 = s0;
  let i = 0;
  const n8 = n & ~7;
  for (; i < n8; i += 8) {
    const pa = a + (<usize>i << 2);
    const pb = b + (<usize>i << 1);
    s0 = f32x4.add(s0, f32x4.abs(f32x4.sub(v128.load(pa), f16x4(pb))));
    s1 = f32x4.add(s1, f32x4.abs(f32x4.sub(v128.load(pa, 16), f16x4(pb + 8))));
  }
  let s = hsum(f32x4.add(s0, s1));
  for (; i < n; i++) s += Mathf.abs(load<f32>(a + (<usize>i << 2)) - f16ToF32(load<u16>(b + (<usize>i << 1))));
  return s;
}

export function dotF16Scalar(a: usize, b: usize, n: i32): f32 {
  let s: f32 = 0;
  for (let i = 0; i < n; i++) s += load<f32>(a + (<usize>i << 2)) * f16ToF32(load<u16>(b + (<usize>i << 1)));
  return s;
}

export function l2sqF16Scalar(a: usize, b: usize, n: i32): f32 {
  let s: f32 = 0;
  for (let i = 0; i < n; i++) {
    const d = load<f32>(a + (<usize>i << 2)) - f16ToF32(load<u16>(b + (<usize>i << 1)));
    s += d * d;
  }
  return s;
}

export function l1F16Scalar(a: usize, b: usize, n: i32): f32 {
  let s: f32 = 0;
  for (let i = 0; i < n; i++) s += Mathf.abs(load<f32>(a + (<usize>i << 2)) - f16ToF32(load<u16>(b + (<usize>i << 1))));
  return s;
}
