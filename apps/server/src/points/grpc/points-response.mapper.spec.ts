import type { RetrievedPoint, ScoredPoint } from '@vectorstore/points';
import type { CountResponse__Output } from '../../grpc/generated/vectorstore/CountResponse';
import type { FacetResponse__Output } from '../../grpc/generated/vectorstore/FacetResponse';
import type { GetResponse__Output } from '../../grpc/generated/vectorstore/GetResponse';
import type { PointsOperationResponse__Output } from '../../grpc/generated/vectorstore/PointsOperationResponse';
import type { QueryBatchResponse__Output } from '../../grpc/generated/vectorstore/QueryBatchResponse';
import type { QueryResponse__Output } from '../../grpc/generated/vectorstore/QueryResponse';
import type { ScrollResponse__Output } from '../../grpc/generated/vectorstore/ScrollResponse';
import type { UpdateBatchResponse__Output } from '../../grpc/generated/vectorstore/UpdateBatchResponse';
import {
  batchResponseToProto,
  countResponseToProto,
  facetResponseToProto,
  getResponseToProto,
  pointsOperationResponseToProto,
  scoredPointsResponseToProto,
  scrollResponseToProto,
  updateBatchResponseToProto,
} from './points-response.mapper';
import { f32, wireResponse } from './points-wire.spec-helper';

const uuid = '550e8400-e29b-41d4-a716-446655440000';

describe('points responses', () => {
  it('should encode retrieved points: id kinds, payload with integers, vectors, shard key, order value', () => {
    const points: RetrievedPoint[] = [
      {
        id: 18446744073709551615n,
        payload: { i: 9007199254740993n, f: 1.5, s: 'x', b: true, n: null, l: [1n], o: { k: 'v' } },
        vectors: { '': { kind: 'dense', values: f32(0.25, 0.5) } },
        shardKey: { number: '12' },
        orderValue: { int: -5n },
      },
      { id: uuid, shardKey: { keyword: 'tenant' }, orderValue: { float: 2.5 } },
    ];
    const decoded = wireResponse<GetResponse__Output>('Get', getResponseToProto(points));
    expect(decoded.result[0]).toEqual({
      id: { num: '18446744073709551615', pointIdOptions: 'num' },
      payload: {
        i: { integerValue: '9007199254740993', kind: 'integerValue' },
        f: { doubleValue: 1.5, kind: 'doubleValue' },
        s: { stringValue: 'x', kind: 'stringValue' },
        b: { boolValue: true, kind: 'boolValue' },
        n: { nullValue: 'NULL_VALUE', kind: 'nullValue' },
        l: { listValue: { values: [{ integerValue: '1', kind: 'integerValue' }] }, kind: 'listValue' },
        o: { structValue: { fields: { k: { stringValue: 'v', kind: 'stringValue' } } }, kind: 'structValue' },
      },
      vectors: { vector: { data: [], dense: { data: [0.25, 0.5] }, vector: 'dense' }, vectorsOptions: 'vector' },
      _vectors: 'vectors',
      shardKey: { number: '12', key: 'number' },
      _shardKey: 'shardKey',
      orderValue: { int: '-5', variant: 'int' },
      _orderValue: 'orderValue',
    });
    expect(decoded.result[1]).toEqual({
      id: { uuid, pointIdOptions: 'uuid' },
      payload: {},
      shardKey: { keyword: 'tenant', key: 'keyword' },
      _shardKey: 'shardKey',
      orderValue: { float: 2.5, variant: 'float' },
      _orderValue: 'orderValue',
    });
  });

  it('should encode scored points with score and version for single and batch answers', () => {
    const hit: ScoredPoint = {
      id: 1n,
      score: 0.75,
      version: 42,
      payload: {},
      vectors: { a: { kind: 'sparse', indices: Uint32Array.from([2]), values: f32(1) } },
    };
    const single = wireResponse<QueryResponse__Output>('Query', scoredPointsResponseToProto([hit]));
    expect(single.result[0]).toMatchObject({ id: { num: '1' }, score: 0.75, version: '42' });
    expect(single.result[0].vectors?.vectors?.vectors.a).toEqual({
      data: [],
      sparse: { indices: [2], values: [1] },
      vector: 'sparse',
    });
    const batch = wireResponse<QueryBatchResponse__Output>('QueryBatch', batchResponseToProto([[hit], []]));
    expect(batch.result.map((b) => b.result.length)).toEqual([1, 0]);
    const search = wireResponse<QueryResponse__Output>(
      'Search',
      scoredPointsResponseToProto([hit], { legacyFields: true }),
    );
    expect(search.result[0].vectors?.vectors?.vectors.a).toMatchObject({ data: [1], indices: { data: [2] } });
  });

  it('should encode scroll with and without next_page_offset', () => {
    const more = wireResponse<ScrollResponse__Output>('Scroll', scrollResponseToProto([{ id: 1n }], 2n));
    expect(more.nextPageOffset).toEqual({ num: '2', pointIdOptions: 'num' });
    const last = wireResponse<ScrollResponse__Output>('Scroll', scrollResponseToProto([], undefined));
    expect(last.nextPageOffset).toBeUndefined();
    expect(last.result).toEqual([]);
  });

  it('should encode update results with status names', () => {
    const single = wireResponse<PointsOperationResponse__Output>(
      'Upsert',
      pointsOperationResponseToProto({ operationId: 7, status: 'Acknowledged' }),
    );
    expect(single.result).toEqual({ operationId: '7', _operationId: 'operationId', status: 'Acknowledged' });
    const batch = wireResponse<UpdateBatchResponse__Output>(
      'UpdateBatch',
      updateBatchResponseToProto([
        { operationId: 0, status: 'Completed' },
        { operationId: 1, status: 'WaitTimeout' },
      ]),
    );
    expect(batch.result.map((r) => [r.operationId, r.status])).toEqual([
      ['0', 'Completed'],
      ['1', 'WaitTimeout'],
    ]);
  });

  it('should encode count and facet hits of every value kind', () => {
    expect(wireResponse<CountResponse__Output>('Count', countResponseToProto(12345)).result).toEqual({
      count: '12345',
    });
    const facet = wireResponse<FacetResponse__Output>(
      'Facet',
      facetResponseToProto([
        { value: { keyword: 'red' }, count: 3 },
        { value: { integer: -9007199254740993n }, count: 2 },
        { value: { bool: false }, count: 1 },
      ]),
    );
    expect(facet.hits).toEqual([
      { value: { stringValue: 'red', variant: 'stringValue' }, count: '3' },
      { value: { integerValue: '-9007199254740993', variant: 'integerValue' }, count: '2' },
      { value: { boolValue: false, variant: 'boolValue' }, count: '1' },
    ]);
  });
});
