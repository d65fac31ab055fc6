// f32 query x f32 stored vector. SIMD kernels use four independent f32x4 accumulators and a scalar tail;
// each has a scalar twin with one accumulator (results agree up to float summation order).

@inline export function hsum(v: v128): f32 {
  return f32x4.extract_lane(v, 0) + f32x4.extract_lane(v, 1) + f32x4.extract_lane(v, 2) + f32x4.extract_lane(v, 3);
}

export function dotF32(a: usize, b: usize, n: i32): f32 {
  let s0 = f32x4.splat(0);
  let s1 = s0;
  let s2 = s0;
  let s3 = s0;
  let i = 0;
  const n16 = n & ~15;
  for (; i < n16; i += 16) {
    const pa = a + (<usize>i << 2);
    const pb = b + (<usize>i << 2);
    s0 = f32x4.add(s0, f32x4.mul(v128.load(pa), v128.load(pb)));
    s1 = f32x4.add(s1, f32x4.mul(v128.load(pa, 16), v128.load(pb, 16)));
    s2 = f32x4.add(s2, f32x4.mul(v128.load(pa, 32), v128.load(pb, 32)));
    s3 = f32x4.add(s3, f32x4.mul(v128.load(pa, 48), v128.load(pb, 48)));
  }
  for (; i + 4 <= n; i += 4) {
    s0 = f32x4.add(s0, f32x4.mul(v128.load(a + (<usize>i << 2)), v128.load(b + (<usize>i << 2))));
  }
  let s = hsum(f32x4.add(f32x4.add(s0, s1), f32x4.add(s2, s3)));
  for (; i < n; i++) s += load<f32>(a + (<usize>i << 2)) * load<f32>(b + (<usize>i << 2));
  return s;
}

export function l2sqF32(a: usize, b: usize, n: i32): f32 {
  let s0 = f32x4.splat(0);
  let s1 = s0;
  let s2 = s0;
  let s3 = s0;
  let i = 0;
  const n16 = n & ~15;
  for (; i < n16; i += 16) {
    const pa = a + (<usize>i << 2);
    const pb = b + (<usize>i << 2);
    const d0 = f32x4.sub(v128.load(pa), v128.load(pb));
    const d1 = f32x4.sub(v128.load(pa, 16), v128.load(pb, 16));
    const d2 = f32x4.sub(v128.load(pa, 32), v128.load(pb, 32));
    const d3 = f32x4.sub(v128.load(pa, 48), v128.load(pb, 48));
    s0 = f32x4.add(s0, f32x4.mul(d0, d0));
    s1 = f32x4.add(s1, f32x4.mul(d1, d1));
    s2 = f32x4.add(s2, f32x4.mul(d2, d2));
    s3 = f32x4.add(s3, f32x4.mul(d3, d3));
  }
  for (; i + 4 <= n; i += 4) {
    const d = f32x4.sub(v128.load(a + (<usize>i << 2)), v128.load(b + (<usize>i << 2)));
    s0 = f32x4.add(s0, f32x4.mul(d, d));
  }
  let s = hsum(f32x4.add(f32x4.add(s0, s1), f32x4.add(s2, s3)));
  for (; i < n; i++) {
    const d = load<f32>(a + (<usize>i << 2)) - load<f32>(b + (<usize>i << 2));
    s += d * d;
  }
  return s;
}

export function l1F32(a: usize, b: usize, n: i32): f32 {
  let s0 = f32x4.splat(0);
  let s1 = s0;
  let s2 = s0;
  let s3 = s0;
  let i = 0;
  const n16 = n & ~15;
  for (; i < n16; i += 16) {
    const pa = a + (<usize>i << 2);
    const pb = b + (<usize>i << 2);
    s0 = f32x4.add(s0, f32x4.abs(f32x4.sub(v128.load(pa), v128.load(pb))));
    s1 = f32x4.add(s1, f32x4.abs(f32x4.sub(v128.load(pa, 16), v128.load(pb, 16))));
    s2 = f32x4.add(s2, f32x4.abs(f32x4.sub(v128.load(pa, 32), v128.load(pb, 32))));
    s3 = f32x4.add(s3, f32x4.abs(f32x4.sub(v128.load(pa, 48), v128.load(pb, 48))));
  }
  for (; i + 4 <= n; i += 4) {
    s0 = f32x4.add(s0, f32x4.abs(f32x4.sub(v128.load(a + (<usize>i << 2)), v128.load(b + (<usize>i << 2)))));
  }
  let s = hsum(f32x4.add(f32x4.add(s0, s1), f32x4.add(s2, s3)));
  for (; i < n; i++) s += Mathf.abs(load<f32>(a + (<usize>i << 2)) - load<f32>(b + (<usize>i << 2)));
  return s;
}

export function dotF32Scalar(a: usize, b: usize, n: i32): f32 {
  let s: f32 = 0;
  for (let i = 0; i < n; i++) s += load<f32>(a + (<usize>i << 2)) * load<f32>(b + (<usize>i << 2));
  return s;
}

export function l2sqF32Scalar(a: usize, b: usize, n: i32): f32 {
  let s: f32 = 0;
  for (let i = 0; i < n; i++) {
    const d = load<f32>(a + (<usize>i << 2)) - load<f32>(b + (<usize>i << 2));
    s += d * d;
  }
  return s;
}

export function l1F32Scalar(a: usize, b: usize, n: i32): f32 {
  let s: f32 = 0;
  for (let i = 0; i < n; i++) s += Mathf.abs(load<f32>(a + (<usize>i << 2)) - load<f32>(b + (<usize>i << 2)));
  return s;
}

// Block kernels for zero-padded data (n a multiple of 16): no tails, inlined into hot loops.

@inline export function l2sqF32Padded(a: usize, b: usize, n: i32): f32 {
  let s0 = f32x4.splat(0);
  let s1 = s0;
  let s2 = s0;
  let s3 = s0;
  for (let i = 0; i < n; i += 16) {
    const pa = a + (<usize>i << 2);
    const pb = b + (<usize>i << 2);
    const d0 = f32x4.sub(v128.load(pa), v128.load(pb));
    const d1 = f32x4.sub(v128.load(pa, 16), v128.load(pb, 16));
    const d2 = f32x4.sub(v128.load(pa, 32), v128.load(pb, 32));
    const d3 = f32x4.sub(v128.load(pa, 48), v128.load(pb, 48));
    s0 = f32x4.add(s0, f32x4.mul(d0, d0));
    s1 = f32x4.add(s1, f32x4.mul(d1, d1));
    s2 = f32x4.add(s2, f32x4.mul(d2, d2));
    s3 = f32x4.add(s3, f32x4.mul(d3, d3));
  }
  return hsum(f32x4.add(f32x4.add(s0, s1), f32x4.add(s2, s3)));
}

@inline export function dotF32Padded(a: usize, b: usize, n: i32): f32 {
  let s0 = f32x4.splat(0);
  let s1 = s0;
  let s2 = s0;
  let s3 = s0;
  for (let i = 0; i < n; i += 16) {
    const pa = a + (<usize>i << 2);
    const pb = b + (<usize>i << 2);
    s0 = f32x4.add(s0, f32x4.mul(v128.load(pa), v128.load(pb)));
    s1 = f32x4.add(s1, f32x4.mul(v128.load(pa, 16), v128.load(pb, 16)));
    s2 = f32x4.add(s2, f32x4.mul(v128.load(pa, 32), v128.load(pb, 32)));
    s3 = f32x4.add(s3, f32x4.mul(v128.load(pa, 48), v128.load(pb, 48)));
  }
  return hsum(f32x4.add(f32x4.add(s0, s1), f32x4.add(s2, s3)));
}
