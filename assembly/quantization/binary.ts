// Binary quantization: every stored bit j compares one dimension bitDim[j] with a threshold bitThr[j]
// (1-bit: one threshold per dimension; 2-bit: two thermometer thresholds; 1.5-bit: two thresholds on even
// dimensions, one on odd ones). Distances are Hamming distances, or, for scalar query encodings, the dot
// product of a 4/8-bit quantized query weight per bit with the stored bits, computed on bit planes.

/** Hamming distance over nWords u64 words. */
export function hamming(a: usize, b: usize, nWords: i32): u32 {
  let s: u64 = 0;
  for (let i = 0; i < nWords; i++)
    s += popcnt<u64>(load<u64>(a + ((<usize>i) << 3)) ^ load<u64>(b + ((<usize>i) << 3)));
  return <u32>s;
}

/**
 * Weighted bit count: sum over planes p of 2^p * popcount(plane_p & code), plus lo/scale * popcount(code),
 * returned scaled so that higher means more similar.
 */
export function planeScore(planes: usize, nPlanes: i32, code: usize, nWords: i32, lo: f32, scale: f32): f32 {
  let acc: u64 = 0;
  let ones: u64 = 0;
  for (let w = 0; w < nWords; w++) {
    const c = load<u64>(code + ((<usize>w) << 3));
    ones += popcnt<u64>(c);
    let pw: u64 = 0;
    for (let p = nPlanes - 1; p >= 0; p--) {
      pw = (pw << 1) + popcnt<u64>(c & load<u64>(planes + ((<usize>(p * nWords + w)) << 3)));
    }
    acc += pw;
  }
  return <f32>acc * scale + <f32>ones * lo;
}

/** Encodes a decoded f32 vector into bits using the bitDim/bitThr tables. */
export function encodeBits(src: usize, dst: usize, nBits: i32, nWords: i32, bitDim: usize, bitThr: usize): void {
  for (let w = 0; w < nWords; w++) {
    let word: u64 = 0;
    const base = w << 6;
    const end = min(base + 64, nBits);
    for (let j = base; j < end; j++) {
      const d = load<u32>(bitDim + ((<usize>j) << 2));
      if (load<f32>(src + ((<usize>d) << 2)) > load<f32>(bitThr + ((<usize>j) << 2)))
        word |= (<u64>1) << (<u64>(j - base));
    }
    store<u64>(dst + ((<usize>w) << 3), word);
  }
}
