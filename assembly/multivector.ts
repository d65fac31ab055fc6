// Multivector MaxSim: for each query vector the best similarity against the document's vectors, summed.
// Similarity is the metric's score with higher = better: dot (Cosine after normalization, Dot), and the
// negated squared L2 / L1 distance for Euclid / Manhattan (Qdrant's internal scores).
import { MT_DOT, MT_L2 } from './layout';
import { dotF32, l1F32, l2sqF32 } from './distance/f32';

export function maxSim(q: usize, nq: i32, doc: usize, nd: i32, dim: i32, metric: i32): f32 {
  let total: f32 = 0;
  const stride = (<usize>dim) << 2;
  for (let i = 0; i < nq; i++) {
    const qi = q + <usize>i * stride;
    let best: f32 = -Infinity;
    for (let j = 0; j < nd; j++) {
      const dj = doc + <usize>j * stride;
      let s: f32;
      if (metric == MT_DOT) s = dotF32(qi, dj, dim);
      else if (metric == MT_L2) s = -l2sqF32(qi, dj, dim);
      else s = -l1F32(qi, dj, dim);
      if (s > best) best = s;
    }
    total += best;
  }
  return total;
}

/** MaxSim of one query against many documents laid out back to back; offsets/counts are u32 arrays. */
export function maxSimScan(
  q: usize,
  nq: i32,
  vectors: usize,
  offsets: usize,
  counts: usize,
  nDocs: i32,
  dim: i32,
  metric: i32,
  out: usize,
): void {
  const stride = (<usize>dim) << 2;
  for (let d = 0; d < nDocs; d++) {
    const off = <usize>load<u32>(offsets + ((<usize>d) << 2));
    const n = <i32>load<u32>(counts + ((<usize>d) << 2));
    store<f32>(out + ((<usize>d) << 2), n > 0 ? maxSim(q, nq, vectors + off * stride, n, dim, metric) : -Infinity);
  }
}
