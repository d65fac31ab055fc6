// Benchmark datasets: a seeded Gaussian mixture generated here, and the MNIST test set from ../shared.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Rng } from '../../test/support/seeded-random';

export interface Dataset {
  readonly name: string;
  readonly dim: number;
  readonly base: Float32Array; // n * dim
  readonly n: number;
  readonly queries: Float32Array; // nq * dim
  readonly nq: number;
  /** Exact top-k neighbour ids per query (k = gtK), filled by the caller when absent. */
  groundTruth?: Uint32Array;
  readonly gtK: number;
}

/** n base + nq query points from a mixture of `clusters` isotropic Gaussians (seeded). */
export function gaussianMixture(n: number, nq: number, dim: number, clusters = 100, seed = 20260101): Dataset {
  const rng = new Rng(seed);
  const centers = new Float32Array(clusters * dim);
  for (let i = 0; i < centers.length; i++) centers[i] = rng.gaussian();
  const fill = (count: number) => {
    const out = new Float32Array(count * dim);
    for (let i = 0; i < count; i++) {
      const c = rng.below(clusters) * dim;
      for (let j = 0; j < dim; j++) out[i * dim + j] = centers[c + j] + 0.5 * rng.gaussian();
    }
    return out;
  };
  const base = fill(n);
  const queries = fill(nq);
  return { name: `synthetic ${n}×${dim}`, dim, base, n, queries, nq, gtK: 10 };
}

/** MNIST t10k: base = images 0..8999, queries = 9000..9999, pixels as f32, L2; ground truth from the file. */
export function mnist(dir = join(__dirname, '..', '..', '..', 'shared', 'datasets', 'mnist-10k')): Dataset | undefined {
  const img = join(dir, 't10k-images-idx3-ubyte.gz');
  const gt = join(dir, 'groundtruth.ivecs');
  if (!existsSync(img) || !existsSync(gt)) return undefined;
  const raw = gunzipSync(readFileSync(img));
  const dv = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  if (dv.getUint32(0) !== 0x803) throw new Error('mnist: bad IDX3 magic');
  const count = dv.getUint32(4);
  const dim = dv.getUint32(8) * dv.getUint32(12);
  const all = new Float32Array(count * dim);
  for (let i = 0; i < all.length; i++) all[i] = raw[16 + i];
  const n = 9000;
  const nq = count - n;
  const g = readFileSync(gt);
  const gv = new DataView(g.buffer, g.byteOffset, g.byteLength);
  const per = gv.getInt32(0, true);
  const gtK = 10;
  const groundTruth = new Uint32Array(nq * gtK);
  for (let q = 0; q < nq; q++) {
    const off = q * (per + 1) * 4;
    for (let j = 0; j < gtK; j++) groundTruth[q * gtK + j] = gv.getInt32(off + 4 + j * 4, true);
  }
  return {
    name: `MNIST ${n}×${dim}`,
    dim,
    base: all.subarray(0, n * dim),
    n,
    queries: all.subarray(n * dim),
    nq,
    groundTruth,
    gtK,
  };
}
