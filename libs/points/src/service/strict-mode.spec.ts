import { CollectionConfig } from '@vectorstore/collections';
import { DomainError, ErrorKind } from '@vectorstore/common';
import { QueryRequest } from '../model/query.model';
import { FieldIndexSchema } from '../storage/local-shard/field-index-schema';
import {
  checkFullScan,
  checkGroupBy,
  checkSearchBatchSize,
  queryRateCost,
  TokenBucket,
  unservedCondition,
} from './strict-mode';

function thrown(run: () => void): DomainError | undefined {
  try {
    run();
  } catch (error) {
    return error as DomainError;
  }
  return undefined;
}

describe('TokenBucket', () => {
  it('should start full, refill perMinute/60 a second, and name what is missing', () => {
    let now = 0;
    const bucket = new TokenBucket(6, () => now);
    bucket.take('Read', 6);
    const error = thrown(() => bucket.take('Read', 1));
    expect(error?.kind).toBe(ErrorKind.ResourceExhausted);
    expect(error?.message).toBe(
      'Rate limiting exceeded: Read rate limit exceeded: Operation requires 1 tokens but only 0.0 were available. Retry after 10s',
    );
    expect(error?.retryAfterSeconds).toBe(10);
    now = 10_000; // 10 s: one token back
    expect(() => bucket.take('Read', 1)).not.toThrow();
  });

  it('should refuse a request larger than its capacity without consuming tokens', () => {
    const bucket = new TokenBucket(4, () => 0);
    expect(thrown(() => bucket.take('Write', 5))?.message).toBe(
      'Rate limiting exceeded: Write rate limit exceeded, request larger than rate limiter capacity, please try to split your request',
    );
    expect(() => bucket.take('Write', 4)).not.toThrow();
  });
});

describe('queryRateCost', () => {
  const base = { prefetch: [], limit: 1, offset: 0, withPayload: { enable: false }, withVectors: { enable: false } };

  it("should cost a search its vectors and filter conditions, as Qdrant's planned searches", () => {
    const request = {
      ...base,
      query: { nearest: { vector: { kind: 'multi', vectors: [[1], [2], [3]] } } },
      filter: { must: [{ field: { key: 'a', match: { keyword: 'x' } } }] },
    } as unknown as QueryRequest;
    expect(queryRateCost(request)).toBe(4);
  });

  it('should cost sparse vectors per 64 indices, ids by the given rule, and fusion only its prefetches', () => {
    const sparse = { kind: 'sparse', indices: Array.from({ length: 65 }, (_, i) => i), values: [] };
    const request = {
      ...base,
      query: { fusion: 'RRF' },
      prefetch: [
        { prefetch: [], query: { nearest: { vector: sparse } } },
        { prefetch: [], query: { recommend: { positive: [{ pointId: 1 }], negative: [] } } },
      ],
    } as unknown as QueryRequest;
    expect(queryRateCost(request, () => 4)).toBe(2 + 4);
  });
});

describe('unservedCondition', () => {
  const indexes = new Map<string, FieldIndexSchema>([
    ['count', { type: 'Integer', params: { integer: { lookup: false, range: true } } }],
    ['t', { type: 'Text', params: { text: { tokenizer: 'Word' } } }],
    ['url', { type: 'Keyword', params: { keyword: { prefix: true } } }],
    ['tag', { type: 'Keyword' }],
  ]);
  const of = (key: string) => indexes.get(key);

  it('should find a condition the key has no index for, with the types that could serve it', () => {
    expect(unservedCondition({ must: [{ field: { key: 'city', match: { keyword: 'x' } } }] }, of)).toEqual({
      key: 'city',
      types: ['keyword', 'uuid'],
    });
  });

  it("should require the index's capability: lookups, phrases, prefixes", () => {
    expect(unservedCondition({ must: [{ field: { key: 'count', match: { integer: 1n } } }] }, of)?.key).toBe('count');
    expect(unservedCondition({ must: [{ field: { key: 'count', range: { gt: 1 } } }] }, of)).toBeUndefined();
    expect(unservedCondition({ must: [{ field: { key: 't', match: { text: 'a' } } }] }, of)).toBeUndefined();
    expect(unservedCondition({ must: [{ field: { key: 't', match: { phrase: 'a b' } } }] }, of)?.key).toBe('t');
    expect(unservedCondition({ must: [{ field: { key: 'url', match: { prefix: 'h' } } }] }, of)).toBeUndefined();
    expect(unservedCondition({ must: [{ field: { key: 'tag', match: { prefix: 'h' } } }] }, of)?.key).toBe('tag');
  });

  it('should let an empty match-any be served by any lookup index', () => {
    const empty = { must: [{ field: { key: 'tag', match: { keywords: [] } } }] };
    expect(unservedCondition(empty, of)).toBeUndefined();
  });
});

describe('checkFullScan', () => {
  const config = (strict: object, hnsw: object): CollectionConfig =>
    ({
      params: { vectors: { params: { size: 4, distance: 'Dot' } } },
      hnswConfig: { m: 16, efConstruct: 100, ...hnsw },
      strictModeConfig: { enabled: true, ...strict },
    }) as unknown as CollectionConfig;
  const tenant = (key: string) => key === 'city';
  const byCity = { must: [{ field: { key: 'city', match: { keyword: 'Berlin' } } }] };

  it('should refuse an unfiltered search on m = 0 when exact search is disallowed', () => {
    expect(
      thrown(() => checkFullScan(config({ searchAllowExact: false }, { m: 0 }), '', undefined, tenant))?.message,
    ).toBe(
      'Bad request: Request is forbidden because global vector indexing is disabled (hnsw_config.m = 0). Help: Use tenant-specific filter, enable global vector indexing or enable strict mode `search_allow_exact` option',
    );
    expect(() => checkFullScan(config({}, { m: 0 }), '', undefined, tenant)).not.toThrow();
    expect(() => checkFullScan(config({ searchAllowExact: false }, { m: 16 }), '', undefined, tenant)).not.toThrow();
  });

  it('should allow a tenant-filtered search only with payload_m above 0', () => {
    const noLinks = config({ searchAllowExact: false }, { m: 0, payloadM: 0 });
    expect(thrown(() => checkFullScan(noLinks, '', byCity, tenant))?.message).toContain('hnsw_config.payload_m = 0');
    expect(() =>
      checkFullScan(config({ searchAllowExact: false }, { m: 0, payloadM: 8 }), '', byCity, tenant),
    ).not.toThrow();
  });
});

describe('checkGroupBy and checkSearchBatchSize', () => {
  const strict = { enabled: true, unindexedFilteringRetrieve: false, searchMaxBatchsize: 2 };

  it('should need a match-capable index on the group_by key', () => {
    expect(thrown(() => checkGroupBy(strict, 'doc', () => undefined))?.message).toContain(
      'Index required but not found for "doc". Help: Create an index supporting `match` for this key.',
    );
    expect(thrown(() => checkGroupBy(strict, 'doc', () => 'Geo'))?.message).toContain(
      'Index of type "Geo" found for "doc"',
    );
    expect(() => checkGroupBy(strict, 'doc', () => 'Keyword')).not.toThrow();
  });

  it('should limit the searches of a batch', () => {
    expect(() => checkSearchBatchSize(strict, 2)).not.toThrow();
    expect(thrown(() => checkSearchBatchSize(strict, 3))?.message).toContain(
      'Limit exceeded 3 > 2 for "search batch size"',
    );
  });
});
