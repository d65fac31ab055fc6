// Input checks, done once in TypeScript before any data reaches WebAssembly.
import { EngineInputError } from './errors';

/** Anything the engine accepts as a batch of dense vectors. */
export type VectorBatch = Float32Array | readonly ArrayLike<number>[];

/**
 * Flattens a batch into one Float32Array of n * dim values, rejecting wrong dimensions and non-finite
 * elements with messages naming the vector ("vector 3: expected dimension 128, got 127").
 */
export function flattenBatch(batch: VectorBatch, dim: number, what = 'vector'): { data: Float32Array; count: number } {
  let data: Float32Array;
  let count: number;
  if (batch instanceof Float32Array) {
    if (batch.length % dim !== 0) {
      throw new EngineInputError(`${what} batch: flat length ${batch.length} is not a multiple of dimension ${dim}`);
    }
    data = batch;
    count = batch.length / dim;
  } else {
    count = batch.length;
    data = new Float32Array(count * dim);
    for (let i = 0; i < count; i++) {
      const v = batch[i];
      if (v == null || typeof v.length !== 'number')
        throw new EngineInputError(`${what} ${i}: not an array of numbers`);
      if (v.length !== dim) throw new EngineInputError(`${what} ${i}: expected dimension ${dim}, got ${v.length}`);
      for (let j = 0; j < dim; j++) {
        const x = v[j];
        if (typeof x !== 'number') throw new EngineInputError(`${what} ${i}: element ${j} is not a number`);
        data[i * dim + j] = x;
      }
    }
  }
  for (let i = 0; i < data.length; i++) {
    const x = data[i];
    if (!Number.isFinite(x)) {
      const idx = Math.floor(i / dim);
      const el = i % dim;
      throw new EngineInputError(
        `${what} ${idx}: element ${el} is ${Number.isNaN(x) ? 'NaN' : x > 0 ? 'Infinity' : '-Infinity'}`,
      );
    }
  }
  return { data, count };
}

/** One query vector as a Float32Array of the right dimension with finite elements. */
export function checkQuery(q: ArrayLike<number>, dim: number): Float32Array {
  if (q == null || typeof q.length !== 'number') throw new EngineInputError('query: not an array of numbers');
  if (q.length !== dim) throw new EngineInputError(`query: expected dimension ${dim}, got ${q.length}`);
  const out = q instanceof Float32Array ? q : Float32Array.from(q);
  for (let j = 0; j < dim; j++) {
    if (!Number.isFinite(out[j]))
      throw new EngineInputError(`query: element ${j} is ${Number.isNaN(out[j]) ? 'NaN' : 'infinite'}`);
  }
  return out;
}

export function checkInt(name: string, v: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new EngineInputError(`${name}: expected an integer in ${min}..${max}, got ${v}`);
  }
  return v;
}
