import type { CountPoints__Output } from '../../grpc/generated/vectorstore/CountPoints';
import type { DiscoverBatchPoints__Output } from '../../grpc/generated/vectorstore/DiscoverBatchPoints';
import type { DiscoverPoints__Output } from '../../grpc/generated/vectorstore/DiscoverPoints';
import type { FacetCounts__Output } from '../../grpc/generated/vectorstore/FacetCounts';
import type { GetPoints__Output } from '../../grpc/generated/vectorstore/GetPoints';
import type { QueryBatchPoints__Output } from '../../grpc/generated/vectorstore/QueryBatchPoints';
import type { QueryPoints__Output } from '../../grpc/generated/vectorstore/QueryPoints';
import type { RecommendPoints__Output } from '../../grpc/generated/vectorstore/RecommendPoints';
import type { ScrollPoints__Output } from '../../grpc/generated/vectorstore/ScrollPoints';
import type { SearchBatchPoints__Output } from '../../grpc/generated/vectorstore/SearchBatchPoints';
import type { SearchPoints__Output } from '../../grpc/generated/vectorstore/SearchPoints';
import {
  countPointsFromProto,
  facetCountsFromProto,
  getPointsFromProto,
  scrollPointsFromProto,
} from './points-read.mapper';
import { f32, issuesOf, wireRequest } from './points-wire.spec-helper';
import {
  discoverBatchFromProto,
  discoverPointsFromProto,
  queryBatchFromProto,
  queryPointsFromProto,
  recommendBatchFromProto,
  recommendPointsFromProto,
  searchBatchFromProto,
  searchPointsFromProto,
} from './query.mapper';

const query = (r: object) =>
  queryPointsFromProto(wireRequest<QueryPoints__Output>('Query', { collectionName: 'c', ...r }));
const none = { enable: false };

describe('read requests', () => {
  it('should map Get with payload and vectors off by default', () => {
    const r = getPointsFromProto(
      wireRequest<GetPoints__Output>('Get', {
        collectionName: 'c',
        ids: [{ num: 1 }],
        readConsistency: { type: 'Majority' },
      }),
    );
    expect(r).toEqual({
      collectionName: 'c',
      request: { ids: [1n], withPayload: none, withVectors: none, readConsistency: { type: 'Majority' } },
    });
    const selected = getPointsFromProto(
      wireRequest<GetPoints__Output>('Get', {
        collectionName: 'c',
        ids: [],
        withPayload: { include: { fields: ['a'] } },
        withVectors: { include: { names: ['v'] } },
        timeout: 2,
      }),
    );
    expect(selected.request).toEqual({
      ids: [],
      withPayload: { include: ['a'] },
      withVectors: { include: ['v'] },
      timeout: 2,
    });
    const exclude = getPointsFromProto(
      wireRequest<GetPoints__Output>('Get', {
        collectionName: 'c',
        withPayload: { exclude: { fields: ['b'] } },
        withVectors: { enable: true },
      }),
    );
    expect(exclude.request).toMatchObject({ withPayload: { exclude: ['b'] }, withVectors: { enable: true } });
  });

  it('should report empty selectors', () => {
    expect(
      issuesOf(() => getPointsFromProto(wireRequest('Get', { collectionName: 'c', withPayload: {}, withVectors: {} }))),
    ).toEqual(['with_payload: must set one of enable, include, exclude', 'with_vectors: must set enable or include']);
  });

  it('should map Scroll with limit 10 and payload on by default', () => {
    expect(scrollPointsFromProto(wireRequest<ScrollPoints__Output>('Scroll', { collectionName: 'c' })).request).toEqual(
      {
        limit: 10,
        withPayload: { enable: true },
        withVectors: none,
      },
    );
    const r = scrollPointsFromProto(
      wireRequest<ScrollPoints__Output>('Scroll', {
        collectionName: 'c',
        limit: 3,
        offset: { uuid: '550E8400-E29B-41D4-A716-446655440000' },
        withPayload: { enable: false },
        orderBy: { key: 'ts', direction: 'Desc', startFrom: { datetime: '2024-01-02T03:04:05.000006Z' } },
      }),
    );
    expect(r.request).toEqual({
      limit: 3,
      offset: '550e8400-e29b-41d4-a716-446655440000',
      withPayload: none,
      withVectors: none,
      orderBy: { key: 'ts', direction: 'Desc', startFrom: { datetime: Date.UTC(2024, 0, 2, 3, 4, 5) * 1000 + 6 } },
    });
  });

  it('should map every order_by start_from case', () => {
    const startFrom = (s: object) =>
      scrollPointsFromProto(wireRequest('Scroll', { collectionName: 'c', orderBy: { key: 'k', startFrom: s } })).request
        .orderBy?.startFrom;
    expect(startFrom({ float: 1.5 })).toEqual({ float: 1.5 });
    expect(startFrom({ integer: '-9007199254740993' })).toEqual({ integer: -9007199254740993n });
    expect(startFrom({ timestamp: { seconds: 10, nanos: 2000 } })).toEqual({ datetime: 10_000_002 });
    expect(issuesOf(() => startFrom({ datetime: 'yesterday' }))).toEqual([
      "order_by.start_from.datetime: 'yesterday' is not a valid RFC 3339 datetime",
    ]);
    expect(issuesOf(() => startFrom({}))).toEqual([
      'order_by.start_from: must set one of float, integer, timestamp, datetime',
    ]);
  });

  it('should report a scroll limit of 0', () => {
    expect(issuesOf(() => scrollPointsFromProto(wireRequest('Scroll', { collectionName: 'c', limit: 0 })))).toEqual([
      'limit: value 0 invalid, must be 1 or larger',
    ]);
  });

  it('should map Count with exact true by default', () => {
    expect(countPointsFromProto(wireRequest<CountPoints__Output>('Count', { collectionName: 'c' })).request).toEqual({
      exact: true,
    });
    expect(
      countPointsFromProto(wireRequest<CountPoints__Output>('Count', { collectionName: 'c', exact: false })).request,
    ).toEqual({ exact: false });
  });

  it('should map Facet with limit 10 and exact false by default', () => {
    expect(
      facetCountsFromProto(wireRequest<FacetCounts__Output>('Facet', { collectionName: 'c', key: 'k' })).request,
    ).toEqual({ key: 'k', limit: 10, exact: false });
    expect(
      issuesOf(() => facetCountsFromProto(wireRequest('Facet', { collectionName: 'c', key: 'k', limit: '0' }))),
    ).toEqual(['limit: value 0 invalid, must be 1 or larger']);
  });
});

describe('searchPointsFromProto', () => {
  it('should map the flat vector, vector_name and defaults', () => {
    const r = searchPointsFromProto(
      wireRequest<SearchPoints__Output>('Search', {
        collectionName: 'c',
        vector: [1, 2],
        limit: 5,
        vectorName: 'img',
        scoreThreshold: 0.5,
        params: { hnswEf: 64, exact: false, quantization: { rescore: true, oversampling: 2 }, acorn: { enable: true } },
      }),
    );
    expect(r).toEqual({
      collectionName: 'c',
      request: {
        vector: { kind: 'dense', values: f32(1, 2) },
        using: 'img',
        limit: 5,
        offset: 0,
        scoreThreshold: 0.5,
        params: { hnswEf: 64, exact: false, quantization: { rescore: true, oversampling: 2 } },
        withPayload: none,
        withVectors: none,
      },
    });
  });

  it('should map vector + sparse_indices to a sparse query', () => {
    const r = searchPointsFromProto(
      wireRequest<SearchPoints__Output>('Search', {
        collectionName: 'c',
        vector: [0.5],
        sparseIndices: { data: [9] },
        vectorName: 's',
        limit: 1,
      }),
    );
    expect(r.request.vector).toEqual({ kind: 'sparse', indices: Uint32Array.from([9]), values: f32(0.5) });
  });

  it('should require limit ≥ 1 and report vector problems at the request level', () => {
    expect(
      issuesOf(() => searchPointsFromProto(wireRequest('Search', { collectionName: 'c', vector: [NaN] }))),
    ).toEqual(['vector[0]: must be finite', 'limit: value 0 invalid, must be 1 or larger']);
    expect(() =>
      searchPointsFromProto(
        wireRequest('Search', { collectionName: 'c', vector: [1, 2], sparseIndices: { data: [1] }, limit: 1 }),
      ),
    ).toThrow(
      'Sparse indices does not match sparse vector conditions: values: Validation error: must be the same length as indices [{}]',
    );
  });

  it('should map SearchBatch with indexed paths and the outer timeout', () => {
    const request = wireRequest<SearchBatchPoints__Output>('SearchBatch', {
      collectionName: 'c',
      timeout: 7,
      searchPoints: [
        { collectionName: 'ignored', vector: [1], limit: 1 },
        { vector: [2], limit: 2, timeout: 1 },
      ],
    });
    const mapped = searchBatchFromProto(request);
    expect(mapped.collectionName).toBe('c');
    expect(mapped.requests.map((r) => [r.limit, r.timeout])).toEqual([
      [1, 7],
      [2, 7],
    ]);
    expect(
      issuesOf(() =>
        searchBatchFromProto(
          wireRequest('SearchBatch', {
            collectionName: 'c',
            searchPoints: [{ vector: [1], limit: 1 }, { vector: [1] }],
          }),
        ),
      ),
    ).toEqual(['search_points[1].limit: value 0 invalid, must be 1 or larger']);
  });
});

describe('recommendPointsFromProto', () => {
  it('should map ids, vectors, strategy, using and lookup_from', () => {
    const r = recommendPointsFromProto(
      wireRequest<RecommendPoints__Output>('Recommend', {
        collectionName: 'c',
        positive: [{ num: 1 }],
        negative: [{ num: 2 }],
        positiveVectors: [{ dense: { data: [1] } }],
        negativeVectors: [{ data: [2] }],
        strategy: 'BestScore',
        using: 'v',
        limit: 4,
        offset: 1,
        lookupFrom: { collectionName: 'other', vectorName: 'w' },
        withPayload: { enable: true },
      }),
    );
    expect(r.request).toEqual({
      positive: [1n],
      negative: [2n],
      positiveVectors: [{ kind: 'dense', values: f32(1) }],
      negativeVectors: [{ kind: 'dense', values: f32(2) }],
      strategy: 'BestScore',
      using: 'v',
      limit: 4,
      offset: 1,
      lookupFrom: { collectionName: 'other', vectorName: 'w' },
      withPayload: { enable: true },
      withVectors: none,
    });
  });

  it('should default the strategy and report bad inputs', () => {
    expect(
      recommendPointsFromProto(wireRequest('Recommend', { collectionName: 'c', positive: [{ num: 1 }], limit: 1 }))
        .request,
    ).toMatchObject({ strategy: 'AverageVector', using: '' });
    expect(
      issuesOf(() =>
        recommendPointsFromProto(
          wireRequest('Recommend', {
            collectionName: 'c',
            positive: [{}],
            positiveVectors: [{ dense: { data: [NaN] } }],
            strategy: 7,
          }),
        ),
      ),
    ).toEqual([
      'positive[0]: must set num or uuid',
      'positive_vectors[0].dense.data[0]: must be finite',
      'strategy: value 7 invalid, must be one of AverageVector, BestScore, SumScores',
    ]);
  });

  it('should accept a request without limit, as Qdrant sets no rule on it', () => {
    const r = recommendPointsFromProto(wireRequest('Recommend', { collectionName: 'c', positive: [{ num: 1 }] }));
    expect(r.request.limit).toBe(0);
  });

  it('should require every request of a batch to name a collection', () => {
    expect(
      issuesOf(() =>
        recommendBatchFromProto(
          wireRequest('RecommendBatch', {
            collectionName: 'c',
            recommendPoints: [{ collectionName: 'c', positive: [{ num: 1 }] }, { positive: [{ num: 1 }] }],
          }),
        ),
      ),
    ).toEqual(['recommend_points[1].collection_name: must be from 1 to 255 characters']);
  });
});

describe('queryPointsFromProto', () => {
  it('should apply the defaults: limit 10, offset 0, no payload, no vectors', () => {
    expect(query({}).request).toEqual({ prefetch: [], limit: 10, offset: 0, withPayload: none, withVectors: none });
  });

  it('should map nearest, recommend, fusion, rrf, order_by and sample', () => {
    expect(query({ query: { nearest: { dense: { data: [1] } } }, using: 'v' }).request).toMatchObject({
      query: { nearest: { vector: { kind: 'dense', values: f32(1) } } },
      using: 'v',
    });
    expect(query({ query: { nearest: { id: { num: 4 } } } }).request.query).toEqual({ nearest: { pointId: 4n } });
    expect(
      query({
        query: {
          recommend: { positive: [{ id: { num: 1 } }], negative: [{ dense: { data: [2] } }], strategy: 'SumScores' },
        },
      }).request.query,
    ).toEqual({
      recommend: {
        positive: [{ pointId: 1n }],
        negative: [{ vector: { kind: 'dense', values: f32(2) } }],
        strategy: 'SumScores',
      },
    });
    expect(query({ query: { recommend: {} } }).request.query).toEqual({ recommend: { positive: [], negative: [] } });
    expect(query({ query: { fusion: 'RRF' } }).request.query).toEqual({ fusion: 'RRF' });
    expect(query({ query: { fusion: 'DBSF' } }).request.query).toEqual({ fusion: 'DBSF' });
    expect(query({ query: { rrf: { k: 60 } } }).request.query).toEqual({ rrf: { k: 60 } });
    expect(query({ query: { rrf: {} } }).request.query).toEqual({ rrf: {} });
    expect(query({ query: { orderBy: { key: 'price', direction: 'Asc' } } }).request.query).toEqual({
      orderBy: { key: 'price', direction: 'Asc' },
    });
    expect(query({ query: { sample: 'Random' } }).request.query).toEqual({ sample: 'Random' });
  });

  it('should map nested prefetches recursively', () => {
    const r = query({
      prefetch: [
        {
          prefetch: [{ query: { nearest: { sparse: { indices: [1], values: [1] } } }, using: 's', limit: 50 }],
          query: { nearest: { multiDense: { vectors: [{ data: [1, 2] }] } } },
          using: 'm',
          filter: { must: [{ isNull: { key: 'a' } }] },
          params: { exact: true },
          scoreThreshold: 0.25,
          lookupFrom: { collectionName: 'o' },
        },
      ],
      query: { fusion: 'RRF' },
      limit: 3,
      offset: 2,
      withPayload: { enable: true },
      withVectors: { enable: true },
      lookupFrom: { collectionName: 'x' },
      shardKeySelector: { shardKeys: [{ keyword: 'a' }] },
      timeout: 9,
      readConsistency: { factor: 2 },
    });
    expect(r.request).toEqual({
      prefetch: [
        {
          prefetch: [
            {
              prefetch: [],
              query: { nearest: { vector: { kind: 'sparse', indices: Uint32Array.from([1]), values: f32(1) } } },
              using: 's',
              limit: 50,
            },
          ],
          query: { nearest: { vector: { kind: 'multi', vectors: [f32(1, 2)] } } },
          using: 'm',
          filter: { must: [{ isNull: { key: 'a' } }] },
          params: { exact: true },
          scoreThreshold: 0.25,
          lookupFrom: { collectionName: 'o' },
        },
      ],
      query: { fusion: 'RRF' },
      limit: 3,
      offset: 2,
      withPayload: { enable: true },
      withVectors: { enable: true },
      lookupFrom: { collectionName: 'x' },
      shardKeySelector: { shardKeys: [{ keyword: 'a' }] },
      timeout: 9,
      readConsistency: { factor: 2 },
    });
  });

  it('should report unsupported variants, empty queries and limits of 0 with paths', () => {
    expect(
      issuesOf(() =>
        query({
          prefetch: [{ query: { discover: {} } }, { prefetch: [{ query: { context: {} }, limit: 0 }] }],
          query: { formula: {} },
          limit: 0,
        }),
      ),
    ).toEqual([
      'prefetch[0].query.discover.target: must be set',
      'prefetch[0].query.discover.context: must be set',
      'prefetch[1].prefetch[0].limit: value 0 invalid, must be 1 or larger',
      'query.formula.expression: must set an expression variant',
      'limit: value 0 invalid, must be 1 or larger',
    ]);
    expect(
      query({ query: { nearestWithMmr: { nearest: { dense: { data: [1, 0] } }, mmr: { diversity: 0.3 } } } }).request
        .query,
    ).toMatchObject({ nearest: { vector: { kind: 'dense' } }, mmr: { diversity: expect.closeTo(0.3, 5) as unknown } });
    expect(issuesOf(() => query({ query: { relevanceFeedback: {} } }))).toEqual([
      'query.relevance_feedback.target: must set one of id, dense, sparse, multi_dense',
      'query.relevance_feedback.strategy: must set naive',
      'query.relevance_feedback.feedback: feedback elements must be non-empty',
    ]);
    expect(issuesOf(() => query({ query: {} }))).toEqual(['query: must set a query variant']);
    expect(() => query({ query: { nearest: { document: { text: 'a', model: 'm' } } } })).toThrow(
      'InferenceService is not initialized',
    );
    expect(query({ query: { rrf: { k: 3, weights: [1, 2] } } }).request.query).toEqual({
      rrf: { k: 3, weights: [1, 2] },
    });
  });

  it('should map discover and context queries', () => {
    const pair = { positive: { id: { num: 1 } }, negative: { dense: { data: [0, 1] } } };
    expect(
      query({ query: { discover: { target: { dense: { data: [1, 0] } }, context: { pairs: [pair] } } } }).request.query,
    ).toEqual({
      discover: {
        target: { vector: { kind: 'dense', values: f32(1, 0) } },
        context: [{ positive: { pointId: 1n }, negative: { vector: { kind: 'dense', values: f32(0, 1) } } }],
      },
    });
    expect(query({ query: { discover: { target: { id: { num: 2 } }, context: {} } } }).request.query).toEqual({
      discover: { target: { pointId: 2n }, context: [] },
    });
    expect(query({ query: { context: { pairs: [pair, pair] } } }).request.query).toEqual({
      context: [
        { positive: { pointId: 1n }, negative: { vector: { kind: 'dense', values: f32(0, 1) } } },
        { positive: { pointId: 1n }, negative: { vector: { kind: 'dense', values: f32(0, 1) } } },
      ],
    });
    expect(issuesOf(() => query({ query: { context: { pairs: [{ positive: { id: { num: 1 } } }] } } }))).toEqual([
      'query.context.pairs[0].negative: must set one of id, dense, sparse, multi_dense',
    ]);
  });

  it('should map Discover and DiscoverBatch', () => {
    const discover = (r: object) =>
      discoverPointsFromProto(wireRequest<DiscoverPoints__Output>('Discover', { collectionName: 'c', ...r }));
    expect(
      discover({
        target: { single: { vector: { data: [1, 2] } } },
        context: [{ positive: { id: { num: 3 } }, negative: { vector: { dense: { data: [4, 5] } } } }],
        limit: 4,
        using: 'v',
        lookupFrom: { collectionName: 'o', vectorName: 'w' },
        readConsistency: { type: 'All' },
      }),
    ).toEqual({
      collectionName: 'c',
      request: {
        target: { vector: { kind: 'dense', values: f32(1, 2) } },
        context: [{ positive: { pointId: 3n }, negative: { vector: { kind: 'dense', values: f32(4, 5) } } }],
        using: 'v',
        limit: 4,
        offset: 0,
        withPayload: none,
        withVectors: none,
        lookupFrom: { collectionName: 'o', vectorName: 'w' },
        readConsistency: { type: 'All' },
      },
    });
    expect(discover({ context: [], limit: 1 }).request).toMatchObject({ context: [], using: '' });
    expect(issuesOf(() => discover({ target: {}, context: [{ positive: {}, negative: { id: { num: 1 } } }] }))).toEqual(
      [
        'target: must set single',
        'context[0].positive: must set id or vector',
        'limit: value 0 invalid, must be 1 or larger',
      ],
    );
    const batch = discoverBatchFromProto(
      wireRequest<DiscoverBatchPoints__Output>('DiscoverBatch', {
        collectionName: 'c',
        discoverPoints: [{ collectionName: 'other', limit: 1, target: { single: { id: { num: 1 } } } }],
        timeout: 5,
      }),
    );
    expect(batch).toMatchObject({
      collectionName: 'c',
      timeout: 5,
      requests: [{ target: { pointId: 1n }, limit: 1, timeout: 5 }],
    });
    expect(
      issuesOf(() =>
        discoverBatchFromProto(
          wireRequest('DiscoverBatch', { collectionName: 'c', discoverPoints: [{ limit: 1 }, {}] }),
        ),
      ),
    ).toEqual(['discover_points[1].limit: value 0 invalid, must be 1 or larger']);
  });

  it('should map QueryBatch with indexed paths', () => {
    const request = wireRequest<QueryBatchPoints__Output>('QueryBatch', {
      collectionName: 'c',
      queryPoints: [{ limit: 1 }, { query: { sample: 'Random' } }],
    });
    expect(queryBatchFromProto(request).requests.map((r) => r.limit)).toEqual([1, 10]);
    expect(
      issuesOf(() =>
        queryBatchFromProto(wireRequest('QueryBatch', { collectionName: 'c', queryPoints: [{}, { limit: 0 }] })),
      ),
    ).toEqual(['query_points[1].limit: value 0 invalid, must be 1 or larger']);
  });
});

describe('formula over gRPC', () => {
  it('should map an expression tree and its defaults', () => {
    const request = wireRequest<QueryPoints__Output>('Query', {
      collectionName: 'c',
      prefetch: [{ query: { nearest: { dense: { data: [1, 0] } } } }],
      query: {
        formula: {
          expression: {
            sum: {
              sum: [
                { variable: '$score' },
                { mult: { mult: [{ constant: 0.5 }, { variable: 'price' }] } },
                { expDecay: { x: { variable: 'age' }, scale: 2 } },
              ],
            },
          },
          defaults: { price: { doubleValue: 1 } },
        },
      },
    });
    expect(queryPointsFromProto(request).request.query).toEqual({
      formula: {
        expression: {
          sum: [
            { variable: '$score' },
            { mult: [{ constant: 0.5 }, { variable: 'price' }] },
            { decay: { kind: 'exp', x: { variable: 'age' }, scale: 2 } },
          ],
        },
        defaults: { price: 1 },
      },
    });
  });
});
