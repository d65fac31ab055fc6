import type { QueryPointGroups__Output } from '../../grpc/generated/vectorstore/QueryPointGroups';
import type { RecommendPointGroups__Output } from '../../grpc/generated/vectorstore/RecommendPointGroups';
import type { SearchGroupsResponse__Output } from '../../grpc/generated/vectorstore/SearchGroupsResponse';
import type { SearchPointGroups__Output } from '../../grpc/generated/vectorstore/SearchPointGroups';
import {
  groupsResponseToProto,
  queryGroupsFromProto,
  recommendGroupsFromProto,
  searchGroupsFromProto,
} from './groups.mapper';
import { f32, issuesOf, wireRequest, wireResponse } from './points-wire.spec-helper';

const none = { enable: false };

describe('groups requests', () => {
  it('should map SearchGroups with the group limit as the search limit', () => {
    const r = searchGroupsFromProto(
      wireRequest<SearchPointGroups__Output>('SearchGroups', {
        collectionName: 'c',
        vector: [1, 2],
        groupBy: 'doc',
        groupSize: 2,
        limit: 4,
        scoreThreshold: 0.5,
        withLookup: { collection: 'docs' },
      }),
    );
    expect(r).toEqual({
      collectionName: 'c',
      request: {
        source: {
          vector: { kind: 'dense', values: f32(1, 2) },
          using: '',
          scoreThreshold: 0.5,
          withPayload: none,
          withVectors: none,
          limit: 4,
          offset: 0,
        },
        groupBy: 'doc',
        groupSize: 2,
        limit: 4,
        withLookup: { collectionName: 'docs', withPayload: { enable: true }, withVectors: none },
      },
    });
  });

  it('should report a missing group_by and zero group_size and limit by field', () => {
    expect(
      issuesOf(() => searchGroupsFromProto(wireRequest('SearchGroups', { collectionName: 'c', vector: [1] }))),
    ).toEqual([
      'group_by: must not be empty',
      'group_size: value 0 invalid, must be 1 or larger',
      'limit: value 0 invalid, must be 1 or larger',
    ]);
    expect(
      issuesOf(() =>
        recommendGroupsFromProto(
          wireRequest('RecommendGroups', { collectionName: 'c', groupBy: 'g', groupSize: 0, limit: 1 }),
        ),
      ),
    ).toEqual(['group_size: value 0 invalid, must be 1 or larger']);
    expect(
      issuesOf(() =>
        queryGroupsFromProto(wireRequest('QueryGroups', { collectionName: 'c', groupBy: 'g', groupSize: 0 })),
      ),
    ).toEqual(['group_size: value 0 invalid, must be 1 or larger']);
  });

  it('should map RecommendGroups like Recommend', () => {
    const r = recommendGroupsFromProto(
      wireRequest<RecommendPointGroups__Output>('RecommendGroups', {
        collectionName: 'c',
        positive: [{ num: 1 }],
        strategy: 'BestScore',
        groupBy: 'g',
        groupSize: 1,
        limit: 2,
        withLookup: { collection: 'o', withPayload: { enable: false }, withVectors: { enable: true } },
      }),
    );
    expect(r.request.source).toEqual({
      positive: [1n],
      negative: [],
      positiveVectors: [],
      negativeVectors: [],
      strategy: 'BestScore',
      using: '',
      withPayload: none,
      withVectors: none,
      limit: 2,
      offset: 0,
    });
    expect(r.request.withLookup).toEqual({ collectionName: 'o', withPayload: none, withVectors: { enable: true } });
  });

  it('should default QueryGroups to 10 groups of 3', () => {
    const r = queryGroupsFromProto(
      wireRequest<QueryPointGroups__Output>('QueryGroups', {
        collectionName: 'c',
        groupBy: 'g',
        query: { nearest: { dense: { data: [1] } } },
      }),
    );
    expect(r.request).toMatchObject({
      groupBy: 'g',
      groupSize: 3,
      limit: 10,
      source: { limit: 10, offset: 0, query: { nearest: { vector: { kind: 'dense', values: f32(1) } } } },
    });
    expect(r.request.withLookup).toBeUndefined();
  });
});

describe('groupsResponseToProto', () => {
  it('should write unsigned, negative and keyword group ids, hits and lookups', () => {
    const hit = { id: 1n, score: 0.5, version: 3, payload: { a: 'x' } };
    const response = wireResponse<SearchGroupsResponse__Output>(
      'SearchGroups',
      groupsResponseToProto([
        { id: 7n, hits: [hit], lookup: { id: 7n, payload: { title: 't' } } },
        { id: -2n, hits: [] },
        { id: 'k', hits: [hit] },
      ]),
    );
    const groups = response.result!.groups;
    expect(groups.map((g) => g.id)).toEqual([
      { unsignedValue: '7', kind: 'unsignedValue' },
      { integerValue: '-2', kind: 'integerValue' },
      { stringValue: 'k', kind: 'stringValue' },
    ]);
    expect(groups[0].hits[0]).toMatchObject({
      id: { num: '1' },
      score: 0.5,
      version: '3',
      payload: { a: { stringValue: 'x' } },
    });
    expect(groups[0].lookup).toMatchObject({ id: { num: '7' }, payload: { title: { stringValue: 't' } } });
    expect(groups[1].lookup).toBeUndefined();
  });
});
