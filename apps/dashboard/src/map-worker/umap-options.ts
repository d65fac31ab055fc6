/**
 * UMAP's knobs as the vector map offers them, and their limits: checked by the page (beside each field) and again by
 * the worker, from this one rule. No umap-js import: the page's bundle includes this file.
 */
export interface UmapOptions {
  /** Neighbours each point's local shape is learnt from (clamped to the sample size less one). */
  nNeighbors: number;
  /** How tightly points may pack on the map, from 0 to 1 (umap-js's spread is 1). */
  minDist: number;
  /** Seed of the random generator: the same sample and options give the same map. */
  seed: number;
  /** Optimisation epochs; 0 or absent lets umap-js choose by sample size (500 up to 2 500 points, 400 to 5 000). */
  nEpochs?: number;
}

/** Smallest neighbourhood umap-js handles: with one neighbour every point's local distance scale is zero. */
export const MIN_NEIGHBOURS = 2;
const MAX_NEIGHBOURS = 200;
const MAX_SEED = 0xffffffff;

/** What is wrong with each option, by name (empty when all can run). */
export function umapOptionProblems(options: UmapOptions): Partial<Record<keyof UmapOptions, string>> {
  const problems: Partial<Record<keyof UmapOptions, string>> = {};
  const { nNeighbors, minDist, seed, nEpochs } = options;
  if (!Number.isInteger(nNeighbors) || nNeighbors < MIN_NEIGHBOURS || nNeighbors > MAX_NEIGHBOURS)
    problems.nNeighbors = `A whole number from ${MIN_NEIGHBOURS} to ${MAX_NEIGHBOURS}`;
  if (!(minDist >= 0 && minDist <= 1)) problems.minDist = 'A number from 0 to 1';
  if (!Number.isInteger(seed) || seed < 0 || seed > MAX_SEED) problems.seed = `A whole number from 0 to ${MAX_SEED}`;
  if (nEpochs !== undefined && (!Number.isInteger(nEpochs) || nEpochs < 0))
    problems.nEpochs = 'A whole number, 0 for the default';
  return problems;
}
