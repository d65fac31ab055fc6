import { DomainError } from '@vectorstore/common';
import { Candidate } from './candidate';
import { dbsf, rrf } from './fusion';

const list = (...entries: Array<[string, number]>): Candidate[] =>
  entries.map(([key, score]) => ({ key, score }) as unknown as Candidate);
const scores = (fused: Candidate[]) => Object.fromEntries(fused.map((c) => [c.key, c.score]));

describe('rrf', () => {
  it('should score 1 / (rank + k) per list without weights', () => {
    const fused = scores(rrf([list(['a', 9], ['b', 8]), list(['b', 1])], 2));
    expect(fused.a).toBeCloseTo(1 / 2, 6);
    expect(fused.b).toBeCloseTo(1 / 3 + 1 / 2, 6);
  });

  it("should apply Qdrant's weights: 1 / ((rank + 1) / w + k - 1), nothing for w <= 0", () => {
    const fused = scores(rrf([list(['a', 9], ['b', 8]), list(['c', 1])], 2, [3, 0]));
    expect(fused.a).toBeCloseTo(1 / (1 / 3 + 1), 6);
    expect(fused.b).toBeCloseTo(1 / (2 / 3 + 1), 6);
    expect(fused.c).toBe(0);
  });

  it('should refuse a weight count other than the prefetch count', () => {
    expect(() => rrf([list(['a', 1])], 2, [1, 2])).toThrow(DomainError);
    expect(() => rrf([list(['a', 1])], 2, [1, 2])).toThrow('Number of weights in RRF should match');
  });
});

describe('dbsf', () => {
  it('should normalise by mean ± 3 sample standard deviations, unclamped, and sum', () => {
    // mean 2, sample std 1: low -1, high 5.
    const fused = scores(dbsf([list(['a', 3], ['b', 2], ['c', 1])]));
    expect(fused.a).toBeCloseTo(4 / 6, 6);
    expect(fused.b).toBeCloseTo(3 / 6, 6);
    expect(fused.c).toBeCloseTo(2 / 6, 6);
  });

  it('should give a single point 0.5', () => {
    expect(scores(dbsf([list(['a', 7])]))).toEqual({ a: 0.5 });
  });
});
