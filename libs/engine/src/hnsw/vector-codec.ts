// Stored-vector encoding per datatype (the TypeScript side of what the kernels read).
import { Datatype } from '../distance/metric';
import { f16ToF32, f32ToF16 } from '../distance/f16';

/**
 * Writes one (already normalized, for Cosine on float types) vector at byte offset `off` in the stored
 * datatype. Returns the inverse L2 norm of the stored u8 values (used for Cosine on uint8), else 1.
 */
export function encodeVector(
  row: Float32Array,
  datatype: Datatype,
  u8: Uint8Array,
  f32: Float32Array,
  off: number,
): number {
  const dim = row.length;
  if (datatype === 'float32') {
    f32.set(row, off >>> 2);
    return 1;
  }
  if (datatype === 'float16') {
    for (let j = 0; j < dim; j++) {
      const h = f32ToF16(row[j]);
      u8[off + 2 * j] = h & 0xff;
      u8[off + 2 * j + 1] = h >>> 8;
    }
    return 1;
  }
  let s = 0;
  for (let j = 0; j < dim; j++) {
    const v = Math.max(0, Math.min(255, Math.round(row[j])));
    u8[off + j] = v;
    s += v * v;
  }
  return s > 0 ? 1 / Math.sqrt(s) : 0;
}

/** Reads a stored vector back as f32; `scale` multiplies uint8 values (the inverse norm for Cosine). */
export function decodeVector(
  datatype: Datatype,
  dim: number,
  u8: Uint8Array,
  f32: Float32Array,
  off: number,
  scale: number,
): Float32Array {
  if (datatype === 'float32') return f32.slice(off >>> 2, (off >>> 2) + dim);
  const out = new Float32Array(dim);
  if (datatype === 'float16')
    for (let i = 0; i < dim; i++) out[i] = f16ToF32(u8[off + 2 * i] | (u8[off + 2 * i + 1] << 8));
  else for (let i = 0; i < dim; i++) out[i] = u8[off + i] * scale;
  return out;
}
