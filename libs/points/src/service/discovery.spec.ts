import { Vector } from '../model/vectors.model';
import { VectorSpace } from '../storage/vector-space';
import {
  contextExamples,
  contextScore,
  discoveryScore,
  exampleIds,
  fastSigmoid,
  rawSimilarity,
  scaledFastSigmoid,
  scoreContextQuery,
} from './discovery';

const dense = (distance: 'Cosine' | 'Euclid' | 'Dot' | 'Manhattan'): VectorSpace => ({
  name: '',
  kind: 'dense',
  dim: 2,
  distance,
  datatype: 'float32',
  hnsw: { m: 16, efConstruct: 100, fullScanThreshold: 10000, maxIndexingThreads: 0 },
  onDisk: false,
});

describe('discovery scores', () => {
  describe('fastSigmoid', () => {
    it('should stay within (-1, 1) and scale into (0, 1)', () => {
      expect(fastSigmoid(0)).toBe(0);
      expect(fastSigmoid(1)).toBe(0.5);
      expect(fastSigmoid(-3)).toBe(-0.75);
      expect(scaledFastSigmoid(0)).toBe(0.5);
      expect(scaledFastSigmoid(1)).toBe(0.75);
    });
  });

  describe('discoveryScore', () => {
    it('should rank by context pairs first (+1 / -1 / 0 on a tie), then by target', () => {
      const pair = (positive: number, negative: number) => ({ positive, negative });
      expect(discoveryScore(0, [])).toBe(0.5);
      expect(discoveryScore(0, [pair(10, 4)])).toBe(1.5);
      expect(discoveryScore(0, [pair(4, 10)])).toBe(-0.5);
      expect(discoveryScore(0, [pair(11, 11)])).toBe(0.5);
      expect(discoveryScore(0, [pair(10, 4), pair(4, 10)])).toBe(0.5);
      // A bad target in a good zone beats a good target in a worse zone.
      expect(discoveryScore(-1000, [pair(1, 0), pair(1, 0), pair(1, 0)])).toBeGreaterThan(
        discoveryScore(1000, [pair(1, 0), pair(0, 1)]),
      );
    });
  });

  describe('contextScore', () => {
    it('should be 0 inside every positive zone and in (-1, 0) per missed pair', () => {
      expect(contextScore([{ positive: 2, negative: 1 }])).toBe(0);
      expect(contextScore([{ positive: 1, negative: 2 }])).toBeCloseTo(-0.5, 6);
      const two = contextScore([
        { positive: 1, negative: 4 },
        { positive: 0, negative: 1 },
      ]);
      expect(two).toBeCloseTo(-0.75 - 0.5, 6);
      // Equal similarities sit just outside the positive zone (the margin).
      expect(contextScore([{ positive: 1, negative: 1 }])).toBeLessThan(0);
    });
  });

  describe('rawSimilarity', () => {
    it('should compare minus the squared Euclid distance and minus the Manhattan distance', () => {
      expect(rawSimilarity(dense('Euclid'), 3)).toBe(-9);
      expect(rawSimilarity(dense('Manhattan'), 3)).toBe(-3);
      expect(rawSimilarity(dense('Dot'), 3)).toBe(3);
      expect(rawSimilarity(dense('Cosine'), 0.5)).toBe(0.5);
      expect(rawSimilarity({ name: 's', kind: 'sparse', idf: false }, 2)).toBe(2);
    });
  });
});

describe('scoreContextQuery', () => {
  const v = (x: number): Vector => ({ kind: 'dense', values: Float32Array.of(x) });
  // Similarity of candidate c to example e: -(c - e)^2, on a line.
  const positions = new Map([
    ['a', 0],
    ['b', 4],
    ['c', 10],
  ]);
  const similarities = (example: Vector) => {
    const e = (example as { values: Float32Array }).values[0];
    return new Map([...positions].filter(([key]) => key !== 'c' || e !== 99).map(([key, x]) => [key, -((x - e) ** 2)]));
  };
  const candidates = [...positions.keys()].map((key) => ({ key, score: 0 }));

  it('should order discovery results by zone, then by closeness to the target', () => {
    // Pair: closer to 5 than to 0 means x > 2.5; target 0.
    const result = scoreContextQuery(
      candidates,
      { target: v(0), pairs: [{ positive: v(5), negative: v(0) }] },
      similarities,
    );
    expect(result.map((c) => c.key)).toEqual(['b', 'c', 'a']);
    expect(Math.floor(result[0].score)).toBe(1);
    expect(Math.floor(result[2].score)).toBe(-1);
  });

  it('should score a context search without a target, and drop candidates without a vector', () => {
    const result = scoreContextQuery(candidates, { pairs: [{ positive: v(99), negative: v(0) }] }, similarities);
    expect(result.map((c) => c.key)).toEqual(['b', 'a']);
    expect(result.every((c) => c.score <= 0 && c.score > -1)).toBe(true);
  });
});

describe('contextExamples', () => {
  it('should list the target and both sides of every pair, and the ids among them', () => {
    const examples = contextExamples({
      discover: {
        target: { pointId: 1n },
        context: [{ positive: { pointId: 'u' }, negative: { vector: { kind: 'dense', values: Float32Array.of(1) } } }],
      },
    });
    expect(examples).toHaveLength(3);
    expect(exampleIds(examples)).toEqual([1n, 'u']);
    expect(exampleIds(contextExamples({ context: [] }))).toEqual([]);
  });
});
