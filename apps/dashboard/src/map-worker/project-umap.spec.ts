import { projectUmap, seededRandom } from './project-umap';
import type { UmapOptions } from './umap-options';

const OPTIONS: UmapOptions = { nNeighbors: 15, minDist: 0.1, seed: 7, nEpochs: 150 };

/** `perCluster` points around each of `clusters` centres far apart (100 on its own axis), noise of ±0.5. */
function clustered(clusters: number, perCluster: number, dims: number, seed = 3): Float32Array {
  const random = seededRandom(seed);
  const vectors = new Float32Array(clusters * perCluster * dims);
  for (let i = 0; i < clusters * perCluster; i++)
    for (let j = 0; j < dims; j++) vectors[i * dims + j] = (j === i % clusters ? 100 : 0) + random() - 0.5;
  return vectors;
}

describe('projectUmap', () => {
  it('should give the same layout for the same seed and another for another seed', () => {
    const vectors = clustered(3, 30, 8);
    const first = projectUmap(vectors, 8, 90, OPTIONS);
    expect(first).toHaveLength(180);
    expect(first.every(Number.isFinite)).toBe(true);
    expect(projectUmap(vectors, 8, 90, OPTIONS)).toEqual(first);
    expect(projectUmap(vectors, 8, 90, { ...OPTIONS, seed: 8 })).not.toEqual(first);
  });

  it("should keep three far-apart clusters apart: every point's nearest point on the map is of its own cluster", () => {
    const [clusters, n, dims] = [3, 300, 32];
    const xy = projectUmap(clustered(clusters, n / clusters, dims), dims, n, { ...OPTIONS, nEpochs: 200 });
    for (let i = 0; i < n; i++) {
      let nearest = -1;
      let best = Infinity;
      for (let j = 0; j < n; j++) {
        const d = Math.hypot(xy[2 * i] - xy[2 * j], xy[2 * i + 1] - xy[2 * j + 1]);
        if (j !== i && d < best) [nearest, best] = [j, d];
      }
      expect([i, nearest % clusters]).toEqual([i, i % clusters]);
    }
  });

  it('should report every epoch, in order, up to the total asked for', () => {
    const seen: [number, number][] = [];
    projectUmap(clustered(2, 20, 4), 4, 40, { ...OPTIONS, nEpochs: 50 }, (done, total) => seen.push([done, total]));
    expect(seen).toEqual(Array.from({ length: 50 }, (_, i) => [i + 1, 50]));
  });

  it("should choose umap-js's epochs by sample size when none are asked for", () => {
    let total = 0;
    projectUmap(clustered(2, 20, 4), 4, 40, { ...OPTIONS, nEpochs: undefined }, (_, t) => (total = t));
    expect(total).toBe(500);
  });

  it('should lay out fewer than three points without UMAP, and clamp the neighbours below the sample size', () => {
    expect(projectUmap(new Float32Array(0), 4, 0, OPTIONS)).toEqual(new Float32Array(0));
    expect(projectUmap(Float32Array.of(1, 2), 2, 1, OPTIONS)).toEqual(Float32Array.of(0, 0));
    expect(projectUmap(Float32Array.of(1, 2, 3, 4), 2, 2, OPTIONS)).toEqual(Float32Array.of(0, 0, 1, 0));
    for (const n of [3, 4, 16]) {
      const xy = projectUmap(clustered(1, n, 3), 3, n, { ...OPTIONS, nNeighbors: 15 });
      expect([n, xy.length, xy.every(Number.isFinite)]).toEqual([n, 2 * n, true]);
    }
  });

  it('should lay out identical vectors without a non-finite coordinate', () => {
    const xy = projectUmap(new Float32Array(20 * 4).fill(1), 4, 20, OPTIONS);
    expect(xy.every(Number.isFinite)).toBe(true);
  });

  it('should refuse input it cannot project with a message saying why', () => {
    expect(() => projectUmap(new Float32Array(5), 2, 3, OPTIONS)).toThrow('Expected 3 vectors of 2 numbers, got 5');
    expect(() => projectUmap(Float32Array.of(1, 2, NaN, 4, 5, 6), 2, 3, OPTIONS)).toThrow(
      'Vector 1 holds a non-finite number',
    );
    expect(() => projectUmap(new Float32Array(6), 2, 3, { ...OPTIONS, minDist: 2 })).toThrow(
      'UMAP options: minDist: A number from 0 to 1',
    );
  });
});
