/**
 * The messages between the map page and its UMAP worker (map-worker.js). Types only: the page imports this file
 * without pulling umap-js into its bundle.
 */
import type { UmapOptions } from './umap-options';

/** Page to worker: `n` vectors of `dims` numbers, row after row (the buffer is transferred, not copied). */
export interface UmapRequest extends UmapOptions {
  vectors: Float32Array;
  dims: number;
  n: number;
}

/** Worker to page: a phase's progress, the 2-D coordinates (x then y for each point), or why it failed. */
export type UmapReply =
  | { kind: 'neighbours' }
  | { kind: 'progress'; done: number; total: number }
  | { kind: 'done'; xy: Float32Array }
  | { kind: 'error'; message: string };
