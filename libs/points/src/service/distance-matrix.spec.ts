import { DomainError } from '@vectorstore/common';
import { ScoredPoint } from '../model/point.model';
import { QueryRequest } from '../model/query.model';
import { NamedVectors } from '../model/vectors.model';
import { Segment } from '../storage/segment';
import { VectorSpace } from '../storage/vector-space';
import { CollectionContexts } from './collection-context';
import {
  DistanceMatrixService,
  MatrixNeighbour,
  MatrixSample,
  mergeSamples,
  nearestPerRow,
  Reservoir,
} from './distance-matrix';
import { StrictModeGuard } from './strict-mode';
import { seeded } from '../../../../test/support/seeded-random';

const hnsw = { m: 16, efConstruct: 100, fullScanThreshold: 10000, maxIndexingThreads: 1 };
const dense = (name: string, distance: 'Dot' | 'Euclid'): VectorSpace => ({
  name,
  kind: 'dense',
  dim: 2,
  distance,
  datatype: 'float32',
  hnsw,
  onDisk: false,
});

/** Contexts over two in-memory segments (as two shards would hold them) with one collection. */
function contextsOver(spaces: Map<string, VectorSpace>, segments: Segment[]): CollectionContexts {
  const storage = { spaces, readShards: () => segments.map((segment) => ({ shard: { segments: [segment] } })) };
  return {
    strict: new StrictModeGuard(),
    resolve: () => ({
      record: { name: 'c', config: {} },
      storage,
      readShards: storage.readShards,
      indexSchemaOf: () => undefined,
      isTenantKey: () => false,
    }),
  } as unknown as CollectionContexts;
}

describe('distance matrix', () => {
  describe(Reservoir.name, () => {
    const sampleOf = (items: number[], size: number, random: () => number) => {
      const reservoir = new Reservoir<number>(size, random);
      for (const item of items) reservoir.offer(() => item);
      return reservoir.items;
    };

    it('should pick distinct items, at most the requested number', () => {
      const items = Array.from({ length: 50 }, (_, i) => i);
      const sample = sampleOf(items, 10, seeded(1));
      expect(sample).toHaveLength(10);
      expect(new Set(sample).size).toBe(10);
      expect(sampleOf(items.slice(0, 3), 10, seeded(2)).sort()).toEqual([0, 1, 2]);
    });

    it('should pick every item about equally often', () => {
      const random = seeded(3);
      const counts = new Array<number>(6).fill(0);
      for (let i = 0; i < 6000; i++) for (const x of sampleOf([0, 1, 2, 3, 4, 5], 2, random)) counts[x]++;
      // 2000 expected each; a sampler favouring early or late items would be far off
      for (const count of counts) expect(Math.abs(count - 2000)).toBeLessThan(200);
    });
  });

  describe(nearestPerRow.name, () => {
    const rows: MatrixNeighbour[][] = [
      [
        { offset: 1, score: 0.5 },
        { offset: 2, score: 0.9 },
        { offset: 3, score: 0.5 },
      ],
    ];

    it('should keep the best `limit`, highest first for similarities, ties by offset', () => {
      expect(nearestPerRow(rows, 2, true)).toEqual([
        [
          { offset: 2, score: 0.9 },
          { offset: 1, score: 0.5 },
        ],
      ]);
    });

    it('should order distances ascending', () => {
      expect(nearestPerRow(rows, 3, false)).toEqual([
        [
          { offset: 1, score: 0.5 },
          { offset: 3, score: 0.5 },
          { offset: 2, score: 0.9 },
        ],
      ]);
    });
  });

  describe(DistanceMatrixService.name, () => {
    const spaces = new Map([
      ['v', dense('v', 'Euclid')],
      ['w', dense('w', 'Dot')],
    ]);
    const points: Array<[number, number[] | undefined, string]> = [
      [1, [0, 0], 'a'],
      [2, [1, 0], 'a'],
      [3, [3, 0], 'b'],
      [4, [7, 0], 'a'],
      [5, undefined, 'a'], // no `v`: never sampled for it
    ];

    function service(): DistanceMatrixService {
      const left = Segment.create(spaces, { appendable: true, indexed: false });
      const right = Segment.create(spaces, { appendable: true, indexed: false });
      points.forEach(([id, v, tag], i) => {
        const vectors: NamedVectors = v
          ? { v: { kind: 'dense' as const, values: Float32Array.from(v) } }
          : { w: { kind: 'dense' as const, values: Float32Array.from([1, 1]) } };
        (i % 2 === 0 ? left : right).upsert(i + 1, BigInt(id), vectors, { tag });
      });
      return new DistanceMatrixService(contextsOver(spaces, [left, right]));
    }

    it('should rank each sampled point against the others, across segments, itself excluded', () => {
      const matrix = service().compute('c', { sample: 10, limit: 2, using: 'v' });
      expect(matrix.ids).toEqual([1n, 2n, 3n, 4n]);
      expect(matrix.neighbours).toEqual([
        [
          { offset: 1, score: 1 },
          { offset: 2, score: 3 },
        ],
        [
          { offset: 0, score: 1 },
          { offset: 2, score: 2 },
        ],
        [
          { offset: 1, score: 2 },
          { offset: 0, score: 3 },
        ],
        [
          { offset: 2, score: 4 },
          { offset: 1, score: 6 },
        ],
      ]);
    });

    it('should sample only points passing the filter', () => {
      const matrix = service().compute('c', {
        sample: 10,
        limit: 5,
        using: 'v',
        filter: { must: [{ field: { key: 'tag', match: { keyword: 'a' } } }] },
      });
      expect(matrix.ids).toEqual([1n, 2n, 4n]);
      expect(matrix.neighbours[2]).toEqual([
        { offset: 1, score: 6 },
        { offset: 0, score: 7 },
      ]);
    });

    it('should answer an empty matrix when fewer than two points can be sampled', () => {
      expect(service().compute('c', { sample: 10, limit: 3, using: 'w' })).toEqual({ ids: [], neighbours: [] });
    });

    it('should take at most `sample` points', () => {
      const matrix = service().compute('c', { sample: 2, limit: 3, using: 'v' });
      expect(matrix.ids).toHaveLength(2);
      expect(matrix.neighbours.map((row) => row.length)).toEqual([1, 1]);
    });

    it('should refuse an unknown vector name', () => {
      expect(() => service().compute('c', { sample: 2, limit: 3, using: 'nope' })).toThrow(DomainError);
    });

    it('should build a sample taken elsewhere into the matrix compute gives, one nearest query per point', async () => {
      const matrices = service();
      const sample = matrices.sample('c', { sample: 10, limit: 2, using: 'v' });
      expect(sample.seen).toBe(4);
      expect(sample.points.map((p) => Number(p.id)).sort()).toEqual([1, 2, 3, 4]);
      const request = { sample: 10, limit: 2, using: 'v' };
      // The queries as the peers would answer them: exact Euclid over the sample, best first.
      const values = new Map(sample.points.map((p) => [p.id, (p.vector as { values: Float32Array }).values]));
      const search = async (queries: QueryRequest[]): Promise<ScoredPoint[][]> =>
        queries.map((query) => {
          expect(query.limit).toBe(3);
          expect(query.filter).toEqual({ must: [{ hasId: [1n, 2n, 3n, 4n] }] });
          const q = (query.query as { nearest: { vector: { values: Float32Array } } }).nearest.vector.values;
          return [...values]
            .map(([id, v]) => ({ id, score: Math.hypot(q[0] - v[0], q[1] - v[1]), version: 0 }))
            .sort((a, b) => a.score - b.score)
            .slice(0, query.limit);
        });
      expect(await matrices.fromSample('c', request, sample.points, search)).toEqual(matrices.compute('c', request));
      expect(await matrices.fromSample('c', request, sample.points.slice(0, 1), search)).toEqual({
        ids: [],
        neighbours: [],
      });
    });
  });

  describe(mergeSamples.name, () => {
    const part = (from: number, seen: number, size: number): MatrixSample => ({
      seen,
      points: Array.from({ length: Math.min(seen, size) }, (_, i) => ({
        id: BigInt(from + i),
        vector: { kind: 'dense' as const, values: Float32Array.of(0) },
      })),
    });

    it('should take everything when the parts hold fewer points than the sample', () => {
      const merged = mergeSamples([part(0, 3, 10), part(100, 2, 10)], 10, seeded(4));
      expect(merged.map((p) => Number(p.id)).sort((a, b) => a - b)).toEqual([0, 1, 2, 100, 101]);
    });

    it('should draw from each part in proportion to the points it sampled from', () => {
      const random = seeded(5);
      let fromSmall = 0;
      for (let i = 0; i < 2000; i++) {
        const merged = mergeSamples([part(0, 900, 10), part(1000, 100, 10)], 10, random);
        expect(merged).toHaveLength(10);
        expect(new Set(merged.map((p) => p.id)).size).toBe(10);
        fromSmall += merged.filter((p) => Number(p.id) >= 1000).length;
      }
      // 10% of 20 000 draws expected: 2000; a merge taking half from each part would give 10 000
      expect(Math.abs(fromSmall - 2000)).toBeLessThan(250);
    });
  });
});
