// Exports only. The engine library (libs/engine) is the only caller; see libs/engine/src/wasm/exports.ts.
import * as L from './layout';
import * as S from './state';
import { insertOne } from './hnsw/insert';
import { touch } from './hnsw/search-layer';
import { readEntry } from './hnsw/locks';
import { knn, rescoreOut, scan, scanTouch, distancesTo, rowDistancesTo } from './hnsw/search';
import { encodeSlots, prepareQuery } from './quantization/encode';

export { dotF32, l2sqF32, l1F32, dotF32Scalar, l2sqF32Scalar, l1F32Scalar } from './distance/f32';
export { dotF16, l2sqF16, l1F16, dotF16Scalar, l2sqF16Scalar, l1F16Scalar, decodeF16 } from './distance/f16';
export { dotU8, l2sqU8, l1U8, dotU8Scalar, l2sqU8Scalar, l1U8Scalar } from './distance/u8';
export { l2sqCodes, dotCodes, l1Codes, l2sqCodesScalar, dotCodesScalar, l1CodesScalar } from './quantization/int8';
export { hamming, planeScore } from './quantization/binary';
export { pqDistance, assignCentroids } from './quantization/pq';
export { maxSim, maxSimScan } from './multivector';

/** Sinks of the search loop's and the filtered scan's touch loads; exported so the optimizer must keep them. */
export function touchSink(): u32 {
  return touch ^ scanTouch;
}

export function abiVersion(): i32 {
  return L.ABI_VERSION;
}

/** Tells this instance where the index header lives (each instance, including workers', once). */
export function setHeader(p: usize): void {
  S.setHeader(p);
}

export function heapBase(): usize {
  return __heap_base;
}

/** Inserts slots start..start+n-1 (vectors, levels and upper offsets written by the engine). */
export function insertBatch(start: u32, n: u32): void {
  S.loadState();
  for (let s = start; s < start + n; s++) insertOne(s);
  S.storeState();
}

/** HNSW search for the f32 query at H_QUERY; results at H_OUT; returns their count. */
export function searchKnn(k: i32, ef: i32, traversal: i32, useAllowed: i32): i32 {
  S.loadState();
  S.setTraversal(traversal);
  S.setUseAllowed(useAllowed != 0);
  if (traversal != L.TR_ORIGINAL) prepareQuery(traversal);
  const n = knn(k, ef);
  S.storeState();
  return n;
}

/** Exact scan; results at H_OUT; returns their count. */
export function searchExact(k: i32, traversal: i32, useAllowed: i32): i32 {
  S.loadState();
  S.setTraversal(traversal);
  S.setUseAllowed(useAllowed != 0);
  if (traversal != L.TR_ORIGINAL) prepareQuery(traversal);
  const n = scan(k);
  S.storeState();
  return n;
}

/** Rescores the first n results at H_OUT on original vectors, keeping k. */
export function rescore(n: i32, k: i32): i32 {
  S.loadState();
  const r = rescoreOut(n, k);
  S.storeState();
  return r;
}

/** Encodes slots for the configured quantization. */
export function encodeRange(start: u32, n: u32): void {
  S.loadState();
  encodeSlots(start, n);
  S.storeState();
}

/** Original distances from the query at H_QUERY to n slots (u32 at ids) into f32 at out. */
export function distances(ids: usize, n: i32, out: usize): void {
  S.loadState();
  distancesTo(ids, n, out);
}

/**
 * Original distances from the query at H_QUERY to n rows kept outside the index (external vectors): rows
 * back to back at `rows` (vecStride bytes each), their slots as u32 at ids (per-slot data: u8 Cosine norms),
 * f32 results at out.
 */
export function rowDistances(rows: usize, ids: usize, n: i32, out: usize): void {
  S.loadState();
  rowDistancesTo(rows, ids, n, out);
}

/** Bytes of one thread's scratch block (query, heaps, output, allowed bitmap, visited set). */
export function threadScratchBytes(capacity: u32): usize {
  S.loadState();
  return S.threadScratchBytes(capacity);
}

/**
 * Parallel build worker loop: takes slots from H_NEXT_SLOT until H_END_SLOT and inserts them, using the
 * thread's scratch block. Several instances sharing one memory run this at once.
 */
export function insertParallel(scratch: usize): void {
  S.loadState();
  S.useThreadScratch(scratch);
  S.setMt(true);
  const next = S.header + ((<usize>L.H_NEXT_SLOT) << 2);
  const end = load<u32>(S.header + ((<usize>L.H_END_SLOT) << 2));
  while (true) {
    const s = atomic.add<u32>(next, 1);
    if (s >= end) break;
    insertOne(s);
  }
}

/**
 * Search with a thread's own scratch block: the query is read from the block's start, results are written
 * to its output area (offset outOffset()), and `allowed` comes from the block's bitmap. exact != 0 scans.
 */
export function searchIn(scratch: usize, k: i32, ef: i32, traversal: i32, useAllowed: i32, exact: i32): i32 {
  S.loadState();
  S.useThreadScratch(scratch);
  S.setMt(true);
  S.setTraversal(traversal);
  S.setUseAllowed(useAllowed != 0);
  if (traversal != L.TR_ORIGINAL) prepareQuery(traversal);
  if (exact != 0) return scan(k);
  readEntry();
  return knn(k, ef);
}

/** Rescoring inside a thread's scratch block (see searchIn). */
export function rescoreIn(scratch: usize, n: i32, k: i32): i32 {
  S.loadState();
  S.useThreadScratch(scratch);
  S.setMt(true);
  return rescoreOut(n, k);
}

/** Offset of the output area inside a thread scratch block. */
export function threadOutOffset(): usize {
  S.loadState();
  return ((<usize>S.dimPad) << 4) + ((<usize>S.heapCap) << 4);
}

/** Offset of the allowed bitmap inside a thread scratch block. */
export function threadAllowedOffset(): usize {
  S.loadState();
  const fixed: usize = ((<usize>S.dimPad) << 4) + ((<usize>S.heapCap) << 5) + <usize>(S.m0 + 2) * 12;
  return (fixed + 63) & ~63;
}
