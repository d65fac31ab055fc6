// The only dashboard file that imports umap-js: it runs in the map's worker (map-worker.js), so the library stays out
// of the page's initial bundle (scripts/build-dashboard.mjs builds the two apart).
// eslint-disable-next-line no-restricted-imports -- a browser library bundled into the worker, like preact
import { UMAP } from 'umap-js';
import { MIN_NEIGHBOURS, type UmapOptions, umapOptionProblems } from './umap-options';

/** A seeded uniform generator in [0, 1) (mulberry32): umap-js draws every random choice from it. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * UMAP of `n` vectors of `dims` numbers (row after row in `vectors`) to 2-D: x then y for each point. Deterministic
 * for a seed. `onProgress` hears each optimisation epoch (done, total); the nearest-neighbour search before them
 * reports nothing. Fewer than three points get a fixed layout (UMAP needs a neighbourhood), and `nNeighbors` is
 * clamped below the sample size.
 */
export function projectUmap(
  vectors: Float32Array,
  dims: number,
  n: number,
  options: UmapOptions,
  onProgress: (done: number, total: number) => void = () => undefined,
): Float32Array {
  if (!Number.isInteger(n) || n < 0 || !Number.isInteger(dims) || dims < 1 || vectors.length !== n * dims)
    throw new Error(`Expected ${n} vectors of ${dims} numbers, got ${vectors.length} numbers`);
  const problems = Object.entries(umapOptionProblems(options));
  if (problems.length > 0) throw new Error(`UMAP options: ${problems.map(([k, v]) => `${k}: ${v}`).join('; ')}`);
  for (let i = 0; i < vectors.length; i++)
    if (!Number.isFinite(vectors[i])) throw new Error(`Vector ${Math.floor(i / dims)} holds a non-finite number`);
  if (n <= 2) return n === 2 ? Float32Array.of(0, 0, 1, 0) : new Float32Array(2 * n);

  const rows = Array.from({ length: n }, (_, i) => Array.from(vectors.subarray(i * dims, (i + 1) * dims)));
  const umap = new UMAP({
    nComponents: 2,
    nNeighbors: Math.max(MIN_NEIGHBOURS, Math.min(options.nNeighbors, n - 1)),
    minDist: options.minDist,
    nEpochs: options.nEpochs ?? 0,
    random: seededRandom(options.seed),
  });
  const total = umap.initializeFit(rows);
  for (let epoch = 0; epoch < total;) {
    epoch = umap.step();
    onProgress(epoch, total);
  }
  const xy = new Float32Array(2 * n);
  umap.getEmbedding().forEach(([x, y], i) => {
    xy[2 * i] = x;
    xy[2 * i + 1] = y;
  });
  for (let i = 0; i < xy.length; i++)
    if (!Number.isFinite(xy[i])) throw new Error('UMAP gave no layout for this sample');
  return xy;
}
