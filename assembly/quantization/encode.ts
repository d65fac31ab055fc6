// Encoding stored vectors and queries for the configured quantization (QK_*).
import * as L from '../layout';
import * as S from '../state';
import { vectorAsF32 } from '../distance/dispatch';
import { encodeInt8Vector } from './int8';
import { encodeBits } from './binary';
import { nearestCentroid, pqTable } from './pq';

function encodeInt8Padded(src: usize, dst: usize): u32 {
  const sum = encodeInt8Vector(src, dst, S.dim, S.qLo, S.qScale);
  for (let i = S.dim; i < S.dimPad; i++) store<u8>(dst + <usize>i, 0);
  return sum;
}

/** Encodes stored slots start..start+n-1 into their quantized codes. */
export function encodeSlots(start: u32, n: u32): void {
  for (let slot = start; slot < start + n; slot++) {
    const x = vectorAsF32(slot, S.tmpA);
    const code = S.qCode + <usize>slot * S.qStride;
    if (S.qKind == L.QK_INT8) {
      const sum = encodeInt8Padded(x, code);
      store<f32>(S.qAux + ((<usize>slot) << 2), S.qScale > 0 ? (S.qLo / S.qScale) * <f32>sum : 0);
    } else if (S.qKind == L.QK_BINARY) {
      const bits = S.qBits;
      encodeBits(x, code, bits, (bits + 63) >> 6, S.qParam, S.qParam + ((<usize>bits) << 2));
    } else if (S.qKind == L.QK_PQ) {
      const sub = S.qSubDim;
      for (let s = 0; s < S.qBits; s++) {
        const cb = S.qParam + ((<usize>(s * 256 * sub)) << 2);
        store<u8>(code + <usize>s, <u8>nearestCentroid(x + ((<usize>(s * sub)) << 2), cb, 256, sub));
      }
    }
  }
}

/** Encodes the f32 query (at queryPtr) for a traversal over quantized codes. */
export function prepareQuery(traversal: i32): void {
  if (traversal == L.TR_INT8) {
    encodeInt8Padded(S.queryPtr, S.qQuery);
  } else if (traversal == L.TR_BINARY) {
    const bits = S.qBits;
    const words = (bits + 63) >> 6;
    const bitDim = S.qParam;
    const bitThr = bitDim + ((<usize>bits) << 2);
    const wScale = bitThr + ((<usize>bits) << 2);
    const wShift = wScale + ((<usize>S.dim) << 2);
    const planes = S.qQueryMode;
    if (planes == 0) {
      encodeBits(S.queryPtr, S.qQuery, bits, words, bitDim, bitThr);
      return;
    }
    // weight per stored bit, quantized to `planes` bits, laid out as bit planes
    const w = S.tmpA; // bits <= 2 * dim floats fit in tmpA + tmpB (contiguous, dimPad each)
    let lo: f32 = Infinity;
    let hi: f32 = -Infinity;
    for (let j = 0; j < bits; j++) {
      const d = <usize>load<u32>(bitDim + ((<usize>j) << 2));
      const v = (load<f32>(S.queryPtr + (d << 2)) - load<f32>(wShift + (d << 2))) * load<f32>(wScale + (d << 2));
      store<f32>(w + ((<usize>j) << 2), v);
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
    const levels = <f32>((1 << planes) - 1);
    const step: f32 = hi > lo ? (hi - lo) / levels : 1;
    memory.fill(S.qQuery, 0, (<usize>(planes * words)) << 3);
    for (let j = 0; j < bits; j++) {
      const u = <u32>nearest<f32>((load<f32>(w + ((<usize>j) << 2)) - lo) / step);
      const word = j >> 6;
      const bit = (<u64>1) << (<u64>(j & 63));
      for (let p = 0; p < planes; p++) {
        if ((u >> p) & 1) {
          const a = S.qQuery + ((<usize>(p * words + word)) << 3);
          store<u64>(a, load<u64>(a) | bit);
        }
      }
    }
    S.setPlane(lo, step);
  } else if (traversal == L.TR_PQ) {
    pqTable(S.queryPtr, S.qParam, S.qBits, S.qSubDim, S.metric, S.qQuery);
  }
}
