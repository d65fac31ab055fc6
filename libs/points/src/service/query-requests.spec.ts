import { DomainError } from '@vectorstore/common';
import { DiscoverRequest, PrefetchQuery, RecommendRequest } from '../model/query.model';
import { referencedIdsOf } from './discovery';
import { boundedProduct, discoverQuery, growPrefetchLimits, mergeFilters, recommendQuery } from './query-requests';

const base = { withPayload: { enable: false }, withVectors: { enable: false }, limit: 3, offset: 0, using: '' };

describe('query requests', () => {
  describe('recommendQuery', () => {
    const request: RecommendRequest = {
      ...base,
      positive: [1n],
      negative: ['u'],
      positiveVectors: [],
      negativeVectors: [],
      strategy: 'AverageVector',
    };

    it('should leave out local example points only', () => {
      // the evaluator's root stage excludes the ids referencedIdsOf finds, where they are local
      expect(referencedIdsOf(recommendQuery(request), () => true)).toEqual([1n, 'u']);
      expect(referencedIdsOf(recommendQuery(request), () => false)).toEqual([]);
      expect(recommendQuery(request).filter).toBeUndefined();
    });

    it('should require a positive example', () => {
      expect(() => recommendQuery({ ...request, positive: [] })).toThrow(DomainError);
    });
  });

  describe('discoverQuery', () => {
    const request: DiscoverRequest = { ...base, context: [] };

    it('should discover with a target and search by context without one', () => {
      const pair = { positive: { pointId: 1n }, negative: { pointId: 2n } };
      expect(discoverQuery({ ...request, target: { pointId: 3n } }).query).toEqual({
        discover: { target: { pointId: 3n }, context: [] },
      });
      expect(discoverQuery({ ...request, context: [pair] }).query).toEqual({ context: [pair] });
    });

    it('should refuse a request with neither', () => {
      expect(() => discoverQuery(request)).toThrow('Bad request: target and/or context_pairs must be specified');
    });
  });

  describe('growPrefetchLimits', () => {
    it('should multiply nested prefetch limits, 10 when unset', () => {
      const stage: PrefetchQuery = { prefetch: [{ prefetch: [{ prefetch: [], limit: 2 }] }], limit: 6 };
      expect(growPrefetchLimits(stage, 3)).toEqual({
        prefetch: [{ prefetch: [{ prefetch: [], limit: 6 }], limit: 30 }],
        limit: 6,
      });
    });

    it('should keep limits exact integers however large the factor', () => {
      const stage: PrefetchQuery = { prefetch: [{ prefetch: [], limit: 1e9 }], limit: 1 };
      expect(growPrefetchLimits(stage, 1e9).prefetch[0].limit).toBe(Number.MAX_SAFE_INTEGER);
      expect(boundedProduct(1e8, 1e9)).toBe(Number.MAX_SAFE_INTEGER);
    });
  });

  describe('mergeFilters', () => {
    it('should require both filters', () => {
      const a = { must: [{ hasVector: 'a' }] };
      const b = { must: [{ hasVector: 'b' }] };
      expect(mergeFilters(undefined, b)).toBe(b);
      expect(mergeFilters(a, undefined)).toBe(a);
      expect(mergeFilters(a, b)).toEqual({ must: [{ filter: a }, { filter: b }] });
    });
  });
});
