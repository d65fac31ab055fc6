// Direct access to single distance kernels (SIMD and scalar twins) on the scratch instance: for parity
// tests and one-off scoring. Hot paths never go through here; they run whole searches inside WASM.
import { KernelFn } from '../wasm/exports';
import { scratchKernels } from '../wasm/kernels';
import { f32ToF16 } from './f16';
import { checkInt } from '../validate';

export type KernelName = 'dot' | 'l2sq' | 'l1';
export type StoredType = 'f32' | 'f16' | 'u8';

export const Kernels = {
  /**
   * Runs kernel `name` on query a (f32) and stored vector b of type `stored` (b given as numbers; it is
   * encoded to the stored type first). `scalar` selects the scalar twin.
   */
  run(name: KernelName, stored: StoredType, a: ArrayLike<number>, b: ArrayLike<number>, scalar = false): number {
    const n = checkInt('length', a.length, 0);
    if (b.length !== n) throw new Error(`kernel: lengths differ (${n} vs ${b.length})`);
    const bBytes = stored === 'f32' ? 4 * n : stored === 'f16' ? 2 * n : n;
    const { wasm, views, base } = scratchKernels(4 * n + bBytes + 64);
    const pa = base;
    const pb = base + Math.ceil((4 * n) / 16) * 16;
    views.f32.set(a instanceof Float32Array ? a : Float32Array.from(a), pa >>> 2);
    if (stored === 'f32') views.f32.set(b instanceof Float32Array ? b : Float32Array.from(b), pb >>> 2);
    else if (stored === 'f16') {
      const u16 = new Uint16Array(n);
      for (let i = 0; i < n; i++) u16[i] = f32ToF16(b[i]);
      views.u8.set(new Uint8Array(u16.buffer), pb);
    } else {
      const u8 = views.u8;
      for (let i = 0; i < n; i++) u8[pb + i] = Math.max(0, Math.min(255, Math.round(b[i])));
    }
    const suffix = stored === 'f32' ? 'F32' : stored === 'f16' ? 'F16' : 'U8';
    const fn = wasm[`${name}${suffix}${scalar ? 'Scalar' : ''}` as keyof typeof wasm] as KernelFn;
    return fn(pa, pb, n);
  },

  /** int8 code kernels on two code arrays (values 0..255), SIMD (n padded to 16) or scalar. */
  codes(name: KernelName, a: ArrayLike<number>, b: ArrayLike<number>, scalar = false): number {
    const n = a.length;
    const padded = Math.ceil(n / 16) * 16;
    const { wasm, views, base } = scratchKernels(2 * padded + 64);
    const u8 = views.u8;
    u8.fill(0, base, base + 2 * padded);
    u8.set(a, base);
    u8.set(b, base + padded);
    const fn = wasm[`${name}Codes${scalar ? 'Scalar' : ''}` as keyof typeof wasm] as KernelFn;
    return fn(base, base + padded, scalar ? n : padded) >>> 0;
  },

  /** Bit-plane score: lo * popcount(code) + scale * sum_p 2^p popcount(plane_p & code); planes are nPlanes x words u64. */
  planeScore(planes: Uint8Array, nPlanes: number, code: Uint8Array, lo: number, scale: number): number {
    const words = code.length / 8;
    const { wasm, views, base } = scratchKernels(planes.length + code.length + 64);
    views.u8.set(planes, base);
    views.u8.set(code, base + planes.length);
    return wasm.planeScore(base, nPlanes, base + planes.length, words, lo, scale);
  },

  /** PQ asymmetric distance: sum of table[s * 256 + code[s]]. */
  pqDistance(table: Float32Array, code: Uint8Array): number {
    const { wasm, views, base } = scratchKernels(table.length * 4 + code.length + 64);
    views.f32.set(table, base >>> 2);
    views.u8.set(code, base + table.length * 4);
    return wasm.pqDistance(base, base + table.length * 4, code.length);
  },

  /** Hamming distance of two bit strings given as u64 words packed in Uint8Arrays of equal length. */
  hamming(a: Uint8Array, b: Uint8Array): number {
    const words = Math.ceil(a.length / 8);
    const { wasm, views, base } = scratchKernels(16 * words + 64);
    views.u8.fill(0, base, base + 16 * words);
    views.u8.set(a, base);
    views.u8.set(b, base + 8 * words);
    return wasm.hamming(base, base + 8 * words, words);
  },
};
