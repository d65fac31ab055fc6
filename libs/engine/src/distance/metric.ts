// The Metric contract (Qdrant's): Cosine and Dot report similarity (higher is better); Euclid reports the L2
// distance and Manhattan the L1 distance (lower is better). Results are always ordered best first.
// Internally every kernel returns a ranking distance where lower is better.
import { MT } from '../wasm/layout';

/** Qdrant's distance names. */
export type Distance = 'Cosine' | 'Euclid' | 'Dot' | 'Manhattan';
export const DISTANCES: readonly Distance[] = ['Cosine', 'Euclid', 'Dot', 'Manhattan'];

/** Stored element type (Qdrant's Datatype). */
export type Datatype = 'float32' | 'float16' | 'uint8';
export const DATATYPES: readonly Datatype[] = ['float32', 'float16', 'uint8'];

/** Internal kernel family of a distance. */
export function internalMetric(d: Distance): number {
  switch (d) {
    case 'Cosine':
    case 'Dot':
      return MT.DOT;
    case 'Euclid':
      return MT.L2;
    case 'Manhattan':
      return MT.L1;
  }
}

/** Converts an internal ranking distance into the score Qdrant reports. */
export function toScore(d: Distance, rankingDistance: number): number {
  switch (d) {
    case 'Cosine':
    case 'Dot':
      return -rankingDistance;
    case 'Euclid':
      return Math.sqrt(Math.max(0, rankingDistance));
    case 'Manhattan':
      return rankingDistance;
  }
}

/** True when a higher score is better. */
export function higherIsBetter(d: Distance): boolean {
  return d === 'Cosine' || d === 'Dot';
}

/** Scales v to unit length in place (zero vectors stay zero); returns v. */
export function normalizeInPlace(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  if (s > 0) {
    const inv = 1 / Math.sqrt(s);
    for (let i = 0; i < v.length; i++) v[i] *= inv;
  }
  return v;
}
