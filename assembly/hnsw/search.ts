// Query-time entry points: HNSW k-NN, exact scan, and rescoring of candidates on original vectors.
import * as L from '../layout';
import * as S from '../state';
import { dataPtr, originalDist, queryDist, rowDist } from '../distance/dispatch';
import { dotF32Padded, l1F32, l2sqF32Padded } from '../distance/f32';
import { heapsReset, rDrainAscending, rPop, rPush, rReplaceTop, rSize, rTopDist } from './heap';
import { greedyClosest, greedyDist, greedyId, searchLayer } from './search-layer';
import { accepted } from './graph';

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
  const f32 = S.traversal == L.TR_ORIGINAL && S.dtype == L.DT_F32;
  // Deletes alone leave most slots accepted: the sequential pass with its hoisted kernel is faster there
  // than walking bitmap words and touching rows ahead (measured 2.7-3.1 ms vs 3.7-6.3 ms on 100k x 128-d
  // with 5% deleted), and a filter's scattered rows are where the walk pays.
  if (S.useAllowed || (S.deletedCount > 0 && !f32)) return scanAccepted(k, n);
  if (f32) return scanF32(k, n);
  for (let slot: u32 = 0; slot < n; slot++) {
    const d = queryDist(slot);
    if (rSize < k) rPush(d, slot);
    else if (d < rTopDist()) rReplaceTop(d, slot);
  }
  return rDrainAscending(S.outPtr);
}

/**
 * How far ahead (accepted slots) the filtered scan touches rows, and how much of each row (bytes). Measured
 * on 100k x 128-d f32 at 1-50% allowed (bench/engine/filtered-scan.ts): 4-32 ahead within noise of each
 * other; touching the first two cache lines slightly ahead (~5%) of touching all eight or none.
 */
const SCAN_AHEAD: i32 = 8;
const SCAN_TOUCH_BYTES: usize = 128;
/** Sink for the touch loads (kept observable so the loads are not optimized away). */
export let scanTouch: u32 = 0;

/** The slots of word w (slots 64w .. 64w + 63) that may appear in results: allowed, not deleted, below n. */
@inline function acceptedBits(w: u32, n: u32): u64 {
  // both bitmaps are regions of whole 64-byte blocks, so the word past the last slot's byte is still theirs
  let bits: u64 = S.useAllowed ? load<u64>(S.allowedBase + (<usize>w << 3)) : <u64>-1;
  if (S.deletedCount > 0) bits &= ~load<u64>(S.deletedBase + (<usize>w << 3));
  if ((w + 1) << 6 > n) bits &= (<u64>1 << <u64>(n & 63)) - 1;
  return bits;
}

/**
 * Exact scan of the accepted slots only (a filter or deletes), in slot order as the plain scan, so results
 * and ties are the same. The bitmaps are walked a 64-bit word at a time (count trailing zeros), not slot
 * by slot. The accepted rows lie scattered over the vector array, so scoring them one after another waits
 * on memory for each; instead a second cursor walks SCAN_AHEAD accepted slots ahead and touches the start of
 * its row, so several rows' misses (and TLB walks) are in flight while one is scored (wasm has no prefetch
 * instruction, but independent loads overlap; searchLayer does the same for a node's neighbours).
 */
function scanAccepted(k: i32, n: u32): i32 {
  const words = (n + 63) >> 6;
  if (words == 0) return 0;
  const touchBytes = min<usize>(S.traversal == L.TR_ORIGINAL ? S.vecStride : S.qStride, SCAN_TOUCH_BYTES);
  let sink: u32 = 0;
  // the touch cursor: word tw, its accepted slots not yet touched in tbits
  let tw: u32 = 0;
  let tbits = acceptedBits(0, n);
  for (let i = 0; i <= SCAN_AHEAD; i++) {
    while (tbits == 0 && tw + 1 < words) tbits = acceptedBits(++tw, n);
    if (tbits == 0) break;
    const p = dataPtr((tw << 6) + <u32>ctz(tbits));
    tbits &= tbits - 1;
    for (let off: usize = 0; off < touchBytes; off += 64) sink ^= load<u32>(p + off);
  }
  for (let w: u32 = 0; w < words; w++) {
    let bits = acceptedBits(w, n);
    while (bits != 0) {
      const slot = (w << 6) + <u32>ctz(bits);
      bits &= bits - 1;
      while (tbits == 0 && tw + 1 < words) tbits = acceptedBits(++tw, n);
      if (tbits != 0) {
        const p = dataPtr((tw << 6) + <u32>ctz(tbits));
        tbits &= tbits - 1;
        for (let off: usize = 0; off < touchBytes; off += 64) sink ^= load<u32>(p + off);
      }
      const d = queryDist(slot);
      if (rSize < k) rPush(d, slot);
      else if (d < rTopDist()) rReplaceTop(d, slot);
    }
  }
  scanTouch ^= sink;
  return rDrainAscending(S.outPtr);
}

/** The unfiltered common case (deletes at most) with the kernel choice hoisted out of the loop: f32 originals, one streaming pass. */
function scanF32(k: i32, n: u32): i32 {
  const q = S.curQuery;
  const dim = S.dim;
  const dimPad = S.dimPad; // stored vectors and queries are zero padded to dimPad
  const stride = S.vecStride;
  const metric = S.metric;
  const deletes = S.deletedCount > 0;
  let v = S.vecBase;
  // a plain sequential pass: the hardware prefetcher already streams it (touching ahead measured no gain)
  for (let slot: u32 = 0; slot < n; slot++, v += stride) {
    if (deletes && !accepted(slot)) continue;
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
