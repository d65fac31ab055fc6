// Scalar int8 quantization: x ~ lo + scale * c with c in 0..255. Kernels work on code pairs (the query is
// encoded with the same lo/scale), with 16 codes per load and i32 accumulators.

/** Sum of squared code differences. n is a multiple of 16 (codes are zero padded). */
export function l2sqCodes(a: usize, b: usize, n: i32): u32 {
  let acc = i32x4.splat(0);
  for (let i = 0; i < n; i += 16) {
    const va = v128.load(a + <usize>i);
    const vb = v128.load(b + <usize>i);
    const d = v128.or(i8x16.sub_sat_u(va, vb), i8x16.sub_sat_u(vb, va));
    const lo = i16x8.extend_low_i8x16_u(d);
    const hi = i16x8.extend_high_i8x16_u(d);
    acc = i32x4.add(acc, i32x4.add(i32x4.dot_i16x8_s(lo, lo), i32x4.dot_i16x8_s(hi, hi)));
  }
  return <u32>(
    (i32x4.extract_lane(acc, 0) + i32x4.extract_lane(acc, 1) + i32x4.extract_lane(acc, 2) + i32x4.extract_lane(acc, 3))
  );
}

/** Sum of code products. */
export function dotCodes(a: usize, b: usize, n: i32): u32 {
  let acc = i32x4.splat(0);
  for (let i = 0; i < n; i += 16) {
    const va = v128.load(a + <usize>i);
    const vb = v128.load(b + <usize>i);
    acc = i32x4.add(acc, i32x4.dot_i16x8_s(i16x8.extend_low_i8x16_u(va), i16x8.extend_low_i8x16_u(vb)));
    acc = i32x4.add(acc, i32x4.dot_i16x8_s(i16x8.extend_high_i8x16_u(va), i16x8.extend_high_i8x16_u(vb)));
  }
  return <u32>(
    (i32x4.extract_lane(acc, 0) + i32x4.extract_lane(acc, 1) + i32x4.extract_lane(acc, 2) + i32x4.extract_lane(acc, 3))
  );
}

/** Sum of absolute code differences. */
export function l1Codes(a: usize, b: usize, n: i32): u32 {
  let acc = i32x4.splat(0);
  for (let i = 0; i < n; i += 16) {
    const va = v128.load(a + <usize>i);
    const vb = v128.load(b + <usize>i);
    const d = v128.or(i8x16.sub_sat_u(va, vb), i8x16.sub_sat_u(vb, va));
    acc = i32x4.add(acc, i32x4.extadd_pairwise_i16x8_u(i16x8.extadd_pairwise_i8x16_u(d)));
  }
  return <u32>(
    (i32x4.extract_lane(acc, 0) + i32x4.extract_lane(acc, 1) + i32x4.extract_lane(acc, 2) + i32x4.extract_lane(acc, 3))
  );
}

export function l2sqCodesScalar(a: usize, b: usize, n: i32): u32 {
  let s: u32 = 0;
  for (let i = 0; i < n; i++) {
    const d = <i32>load<u8>(a + <usize>i) - <i32>load<u8>(b + <usize>i);
    s += <u32>(d * d);
  }
  return s;
}

export function dotCodesScalar(a: usize, b: usize, n: i32): u32 {
  let s: u32 = 0;
  for (let i = 0; i < n; i++) s += <u32>load<u8>(a + <usize>i) * <u32>load<u8>(b + <usize>i);
  return s;
}

export function l1CodesScalar(a: usize, b: usize, n: i32): u32 {
  let s: u32 = 0;
  for (let i = 0; i < n; i++) s += <u32>abs<i32>(<i32>load<u8>(a + <usize>i) - <i32>load<u8>(b + <usize>i));
  return s;
}

/** Encodes n f32 values as codes (round to nearest, clipped to 0..255); returns the code sum. */
export function encodeInt8Vector(src: usize, dst: usize, n: i32, lo: f32, scale: f32): u32 {
  const inv: f32 = scale > 0 ? <f32>1 / scale : 0;
  let sum: u32 = 0;
  for (let i = 0; i < n; i++) {
    let c = nearest<f32>((load<f32>(src + ((<usize>i) << 2)) - lo) * inv);
    if (c < 0) c = 0;
    if (c > 255) c = 255;
    const u = <u32>c;
    store<u8>(dst + <usize>i, <u8>u);
    sum += u;
  }
  return sum;
}
