// Query-time entry points: HNSW k-NN, exact scan, and rescoring of candidates on original vectors.
import * as L from '../layout';
import * as S from '../state';
import { originalDist, queryDist, rowDist } from '../distance/dispatch';
import { dotF32Padded, l1F32, l2sqF32Padded } from '../distance/f32';
import { accepted } from './graph';
import { heapsReset, rDrainAscending, rPop, rPush, rReplaceTop, rSize, rTopDist } from './heap';
import { greedyClosest, greedyDist, greedyId, searchLayer } from './search-layer';

/** HNSW search: greedy descent to level 1, then searchLayer(ef) on level 0; writes the k best to out. */
export function knn(k: i32, ef: i32): i32 {
  if (S.entry < 0 || k <= 0) return 0;
  let cur = <u32>S.entry;
  let curDist = queryDist(cur);
  for (let l = S.maxLevel; l > 0; l--) {
    greedyClosest(cur, curDist, l);
    cur = greedyId;
    curDist = greedyDist;
  }
  searchLayer(cur, curDist, 0, ef > k ? ef : k);
  while (rSize > k) rPop();
  return rDrainAscending(S.outPtr);
}

/** Exact scan over all accepted slots in the current traversal representation. */
export function scan(k: i32): i32 {
  heapsReset();
  if (k <= 0) return 0;
  const n = S.count;
  if (S.traversal == L.TR_ORIGINAL && S.dtype == L.DT_F32) return scanF32(k, n);
  for (let slot: u32 = 0; slot < n; slot++) {
    if (!accepted(slot)) continue;
    const d = queryDist(slot);
    if (rSize < k) rPush(d, slot);
    else if (d < rTopDist()) rReplaceTop(d, slot);
  }
  return rDrainAscending(S.outPtr);
}

/** The common case with the kernel choice hoisted out of the loop: f32 originals, one streaming pass. */
function scanF32(k: i32, n: u32): i32 {
  const q = S.curQuery;
  const dim = S.dim;
  const dimPad = S.dimPad; // stored vectors and queries are zero padded to dimPad
  const stride = S.vecStride;
  const metric = S.metric;
  const filtering = S.useAllowed || S.deletedCount > 0;
  let v = S.vecBase;
  // a plain sequential pass: the hardware prefetcher already streams it (touching ahead measured no gain)
  for (let slot: u32 = 0; slot < n; slot++, v += stride) {
    if (filtering && !accepted(slot)) continue;
    let d: f32;
    if (metric == L.MT_L2) d = l2sqF32Padded(q, v, dimPad);
    else if (metric == L.MT_DOT) d = -dotF32Padded(q, v, dimPad);
    else d = l1F32(q, v, dim);
    if (rSize < k) rPush(d, slot);
    else if (d < rTopDist()) rReplaceTop(d, slot);
  }
  return rDrainAscending(S.outPtr);
}

/** Re-ranks the n candidates in out by original-vector distance and keeps the k best. */
export function rescoreOut(n: i32, k: i32): i32 {
  heapsReset();
  for (let i = 0; i < n; i++) {
    const slot = load<u32>(S.outPtr + ((<usize>i) << 3));
    const d = originalDist(S.queryPtr, slot);
    if (rSize < k) rPush(d, slot);
    else if (d < rTopDist()) rReplaceTop(d, slot);
  }
  return rDrainAscending(S.outPtr);
}

/** Original distances from the query to the n slots listed as u32 at ids, written as f32 to out. */
export function distancesTo(ids: usize, n: i32, out: usize): void {
  for (let i = 0; i < n; i++) {
    store<f32>(out + ((<usize>i) << 2), originalDist(S.queryPtr, load<u32>(ids + ((<usize>i) << 2))));
  }
}

/**
 * Original distances from the query to n rows held outside VEC: row i (vecStride bytes, stored form) at
 * rows + i * vecStride, its slot (u32) at ids + 4i for per-slot data; f32 results to out.
 */
export function rowDistancesTo(rows: usize, ids: usize, n: i32, out: usize): void {
  const stride = S.vecStride;
  for (let i = 0; i < n; i++) {
    store<f32>(
      out + ((<usize>i) << 2),
      rowDist(S.queryPtr, rows + <usize>i * stride, load<u32>(ids + ((<usize>i) << 2))),
    );
  }
}
