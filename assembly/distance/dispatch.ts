// The one place a (datatype, metric, traversal) triple picks its kernel. Distances are ranking distances:
// lower is better (-dot for Cosine/Dot, squared L2 for Euclid, L1 for Manhattan).
import * as L from '../layout';
import * as S from '../state';
import { dotF32Padded, l1F32, l2sqF32Padded } from './f32';
import { decodeF16, dotF16, l1F16, l2sqF16 } from './f16';
import { decodeU8, dotU8, l1U8, l2sqU8 } from './u8';
import { dotCodes, l1Codes, l2sqCodes } from '../quantization/int8';
import { hamming, planeScore } from '../quantization/binary';
import { pqDistance } from '../quantization/pq';

@inline export function vecPtr(slot: u32): usize {
  return S.vecBase + <usize>slot * S.vecStride;
}

/** Ranking distance between an f32 query (dimPad floats, zero padded) and a stored original vector. */
@inline export function originalDist(q: usize, slot: u32): f32 {
  return rowDist(q, vecPtr(slot), slot);
}

/**
 * Ranking distance between an f32 query and the original row at v (stored form, vecStride bytes); slot
 * names the row's per-slot data (the inverse norm of u8 Cosine rows). The row may live outside VEC.
 */
@inline export function rowDist(q: usize, v: usize, slot: u32): f32 {
  const n = S.dim;
  if (S.dtype == L.DT_F32) {
    // f32 queries and vectors are zero padded to dimPad (a multiple of 16): tail-free inlined kernels
    if (S.metric == L.MT_DOT) return -dotF32Padded(q, v, S.dimPad);
    if (S.metric == L.MT_L2) return l2sqF32Padded(q, v, S.dimPad);
    return l1F32(q, v, n);
  }
  if (S.dtype == L.DT_F16) {
    if (S.metric == L.MT_DOT) return -dotF16(q, v, n);
    if (S.metric == L.MT_L2) return l2sqF16(q, v, n);
    return l1F16(q, v, n);
  }
  if (S.metric == L.MT_DOT) {
    const d = -dotU8(q, v, n);
    return S.normed ? d * load<f32>(S.normBase + (<usize>slot << 2)) : d;
  }
  if (S.metric == L.MT_L2) return l2sqU8(q, v, n);
  return l1U8(q, v, n);
}

/** The stored vector as f32 (normalized for Cosine on u8): its own memory for f32, else decoded into dst. */
export function vectorAsF32(slot: u32, dst: usize): usize {
  const v = vecPtr(slot);
  if (S.dtype == L.DT_F32) return v;
  if (S.dtype == L.DT_F16) {
    decodeF16(v, dst, S.dimPad);
    return dst;
  }
  decodeU8(v, dst, S.dimPad, S.normed ? load<f32>(S.normBase + (<usize>slot << 2)) : 1);
  return dst;
}

@inline function codePtr(slot: u32): usize {
  return S.qCode + <usize>slot * S.qStride;
}

/** Address of the bytes the current traversal reads for a slot (vector or quantized code). */
@inline export function dataPtr(slot: u32): usize {
  return S.traversal == L.TR_ORIGINAL ? vecPtr(slot) : codePtr(slot);
}

/** Distance from the current query to a slot in the current traversal representation. */
@inline export function queryDist(slot: u32): f32 {
  const t = S.traversal;
  if (t == L.TR_ORIGINAL) return originalDist(S.curQuery, slot);
  if (t == L.TR_INT8) {
    const c = codePtr(slot);
    if (S.metric == L.MT_L2) return <f32>l2sqCodes(S.qQuery, c, S.dimPad);
    if (S.metric == L.MT_DOT) return -(<f32>dotCodes(S.qQuery, c, S.dimPad) + load<f32>(S.qAux + (<usize>slot << 2)));
    return <f32>l1Codes(S.qQuery, c, S.dimPad);
  }
  if (t == L.TR_BINARY) {
    const words = (S.qBits + 63) >> 6;
    if (S.qQueryMode == 0) return <f32>hamming(S.qQuery, codePtr(slot), words);
    return -planeScore(S.qQuery, S.qQueryMode, codePtr(slot), words, S.qPlaneLo, S.qPlaneScale);
  }
  return pqDistance(S.qQuery, codePtr(slot), S.qBits);
}
