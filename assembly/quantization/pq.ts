// Product quantization: nSub sub-spaces of subDim dimensions, 256 centroids each, one byte per sub-space.
// Asymmetric distance: a per-query table of nSub x 256 sub-distances, summed by code.
import { MT_DOT, MT_L2 } from '../layout';

/** Fills table[s * 256 + c] with the metric's ranking distance between query sub-vector s and centroid c. */
export function pqTable(query: usize, codebooks: usize, nSub: i32, subDim: i32, metric: i32, table: usize): void {
  // sub-vectors are short (1..16 floats): inline loops beat a kernel call per centroid by a wide margin
  for (let s = 0; s < nSub; s++) {
    const q = query + ((<usize>(s * subDim)) << 2);
    const cb = codebooks + ((<usize>(s * 256 * subDim)) << 2);
    const row = table + ((<usize>(s * 256)) << 2);
    for (let c = 0; c < 256; c++) {
      const cp = cb + ((<usize>(c * subDim)) << 2);
      let d: f32 = 0;
      if (metric == MT_DOT) {
        for (let j = 0; j < subDim; j++) d -= load<f32>(q + ((<usize>j) << 2)) * load<f32>(cp + ((<usize>j) << 2));
      } else if (metric == MT_L2) {
        for (let j = 0; j < subDim; j++) {
          const x = load<f32>(q + ((<usize>j) << 2)) - load<f32>(cp + ((<usize>j) << 2));
          d += x * x;
        }
      } else {
        for (let j = 0; j < subDim; j++)
          d += Mathf.abs(load<f32>(q + ((<usize>j) << 2)) - load<f32>(cp + ((<usize>j) << 2)));
      }
      store<f32>(row + ((<usize>c) << 2), d);
    }
  }
}

/** Sum of table entries picked by the code bytes. */
export function pqDistance(table: usize, code: usize, nSub: i32): f32 {
  let s0: f32 = 0;
  let s1: f32 = 0;
  let s = 0;
  for (; s + 2 <= nSub; s += 2) {
    s0 += load<f32>(table + ((<usize>(s << 8) + <usize>load<u8>(code + <usize>s)) << 2));
    s1 += load<f32>(table + ((<usize>((s + 1) << 8) + <usize>load<u8>(code + <usize>s + 1)) << 2));
  }
  if (s < nSub) s0 += load<f32>(table + ((<usize>(s << 8) + <usize>load<u8>(code + <usize>s)) << 2));
  return s0 + s1;
}

/** Nearest centroid (squared L2) of x among k centroids of dimension sub; used by encoding and k-means. */
export function nearestCentroid(x: usize, centroids: usize, k: i32, sub: i32): i32 {
  let best = 0;
  let bestD: f32 = Infinity;
  if (sub % 4 == 0) {
    for (let c = 0; c < k; c++) {
      const cp = centroids + ((<usize>(c * sub)) << 2);
      let acc = f32x4.splat(0);
      for (let j = 0; j < sub; j += 4) {
        const d = f32x4.sub(v128.load(x + ((<usize>j) << 2)), v128.load(cp + ((<usize>j) << 2)));
        acc = f32x4.add(acc, f32x4.mul(d, d));
      }
      const dist =
        f32x4.extract_lane(acc, 0) +
        f32x4.extract_lane(acc, 1) +
        f32x4.extract_lane(acc, 2) +
        f32x4.extract_lane(acc, 3);
      if (dist < bestD) {
        bestD = dist;
        best = c;
      }
    }
    return best;
  }
  for (let c = 0; c < k; c++) {
    const cp = centroids + ((<usize>(c * sub)) << 2);
    let dist: f32 = 0;
    for (let j = 0; j < sub; j++) {
      const d = load<f32>(x + ((<usize>j) << 2)) - load<f32>(cp + ((<usize>j) << 2));
      dist += d * d;
    }
    if (dist < bestD) {
      bestD = dist;
      best = c;
    }
  }
  return best;
}

/** Assigns n points (stride sub floats) to their nearest centroids, writing u32 labels. */
export function assignCentroids(points: usize, n: i32, centroids: usize, k: i32, sub: i32, labels: usize): void {
  for (let i = 0; i < n; i++) {
    store<u32>(labels + ((<usize>i) << 2), nearestCentroid(points + ((<usize>(i * sub)) << 2), centroids, k, sub));
  }
}
