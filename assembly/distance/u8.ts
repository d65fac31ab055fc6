// f32 query x u8 stored vector (values 0..255 as stored by the uint8 datatype).
import { hsum } from './f32';

export function dotU8(a: usize, b: usize, n: i32): f32 {
  let s0 = f32x4.splat(0);
  let s1 = s0;
  let s2 = s0;
  let s3 = s0;
  let i = 0;
  const n16 = n & ~15;
  for (; i < n16; i += 16) {
    const pa = a + ((<usize>i) << 2);
    const v = v128.load(b + <usize>i);
    const lo = i16x8.extend_low_i8x16_u(v);
    const hi = i16x8.extend_high_i8x16_u(v);
    s0 = f32x4.add(s0, f32x4.mul(v128.load(pa), f32x4.convert_i32x4_u(i32x4.extend_low_i16x8_u(lo))));
    s1 = f32x4.add(s1, f32x4.mul(v128.load(pa, 16), f32x4.convert_i32x4_u(i32x4.extend_high_i16x8_u(lo))));
    s2 = f32x4.add(s2, f32x4.mul(v128.load(pa, 32), f32x4.convert_i32x4_u(i32x4.extend_low_i16x8_u(hi))));
    s3 = f32x4.add(s3, f32x4.mul(v128.load(pa, 48), f32x4.convert_i32x4_u(i32x4.extend_high_i16x8_u(hi))));
  }
  let s = hsum(f32x4.add(f32x4.add(s0, s1), f32x4.add(s2, s3)));
  for (; i < n; i++) s += load<f32>(a + ((<usize>i) << 2)) * <f32>load<u8>(b + <usize>i);
  return s;
}

export function l2sqU8(a: usize, b: usize, n: i32): f32 {
  let s0 = f32x4.splat(0);
  let s1 = s0;
  let s2 = s0;
  let s3 = s0;
  let i = 0;
  const n16 = n & ~15;
  for (; i < n16; i += 16) {
    const pa = a + ((<usize>i) << 2);
    const v = v128.load(b + <usize>i);
    const lo = i16x8.extend_low_i8x16_u(v);
    const hi = i16x8.extend_high_i8x16_u(v);
    const d0 = f32x4.sub(v128.load(pa), f32x4.convert_i32x4_u(i32x4.extend_low_i16x8_u(lo)));
    const d1 = f32x4.sub(v128.load(pa, 16), f32x4.convert_i32x4_u(i32x4.extend_high_i16x8_u(lo)));
    const d2 = f32x4.sub(v128.load(pa, 32), f32x4.convert_i32x4_u(i32x4.extend_low_i16x8_u(hi)));
    const d3 = f32x4.sub(v128.load(pa, 48), f32x4.convert_i32x4_u(i32x4.extend_high_i16x8_u(hi)));
    s0 = f32x4.add(s0, f32x4.mul(d0, d0));
    s1 = f32x4.add(s1, f32x4.mul(d1, d1));
    s2 = f32x4.add(s2, f32x4.mul(d2, d2));
    s3 = f32x4.add(s3, f32x4.mul(d3, d3));
  }
  let s = hsum(f32x4.add(f32x4.add(s0, s1), f32x4.add(s2, s3)));
  for (; i < n; i++) {
    const d = load<f32>(a + ((<usize>i) << 2)) - <f32>load<u8>(b + <usize>i);
    s += d * d;
  }
  return s;
}

export function l1U8(a: usize, b: usize, n: i32): f32 {
  let s0 = f32x4.splat(0);
  let s1 = s0;
  let s2 = s0;
  let s3 = s0;
  let i = 0;
  const n16 = n & ~15;
  for (; i < n16; i += 16) {
    const pa = a + ((<usize>i) << 2);
    const v = v128.load(b + <usize>i);
    const lo = i16x8.extend_low_i8x16_u(v);
    const hi = i16x8.extend_high_i8x16_u(v);
    s0 = f32x4.add(s0, f32x4.abs(f32x4.sub(v128.load(pa), f32x4.convert_i32x4_u(i32x4.extend_low_i16x8_u(lo)))));
    s1 = f32x4.add(s1, f32x4.abs(f32x4.sub(v128.load(pa, 16), f32x4.convert_i32x4_u(i32x4.extend_high_i16x8_u(lo)))));
    s2 = f32x4.add(s2, f32x4.abs(f32x4.sub(v128.load(pa, 32), f32x4.convert_i32x4_u(i32x4.extend_low_i16x8_u(hi)))));
    s3 = f32x4.add(s3, f32x4.abs(f32x4.sub(v128.load(pa, 48), f32x4.convert_i32x4_u(i32x4.extend_high_i16x8_u(hi)))));
  }
  let s = hsum(f32x4.add(f32x4.add(s0, s1), f32x4.add(s2, s3)));
  for (; i < n; i++) s += Mathf.abs(load<f32>(a + ((<usize>i) << 2)) - <f32>load<u8>(b + <usize>i));
  return s;
}

export function dotU8Scalar(a: usize, b: usize, n: i32): f32 {
  let s: f32 = 0;
  for (let i = 0; i < n; i++) s += load<f32>(a + ((<usize>i) << 2)) * <f32>load<u8>(b + <usize>i);
  return s;
}

export function l2sqU8Scalar(a: usize, b: usize, n: i32): f32 {
  let s: f32 = 0;
  for (let i = 0; i < n; i++) {
    const d = load<f32>(a + ((<usize>i) << 2)) - <f32>load<u8>(b + <usize>i);
    s += d * d;
  }
  return s;
}

export function l1U8Scalar(a: usize, b: usize, n: i32): f32 {
  let s: f32 = 0;
  for (let i = 0; i < n; i++) s += Mathf.abs(load<f32>(a + ((<usize>i) << 2)) - <f32>load<u8>(b + <usize>i));
  return s;
}

/** Decodes n bytes at src into f32 at dst, multiplied by scale. */
export function decodeU8(src: usize, dst: usize, n: i32, scale: f32): void {
  for (let i = 0; i < n; i++) store<f32>(dst + ((<usize>i) << 2), <f32>load<u8>(src + <usize>i) * scale);
}
