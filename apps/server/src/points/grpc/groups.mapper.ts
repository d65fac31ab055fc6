import { QUERY_DEFAULT_LIMIT, QUERY_GROUPS_DEFAULT_GROUP_SIZE } from '@vectorstore/points';
import { ValidationIssues } from '@vectorstore/common';
import type {
  GroupId,
  GroupsRequest,
  PointGroup,
  QueryRequest,
  RecommendRequest,
  SearchRequest,
  WithLookup,
} from '@vectorstore/points';
import type { GroupId as ProtoGroupId } from '../../grpc/generated/vectorstore/GroupId';
import type { PointGroup as ProtoPointGroup } from '../../grpc/generated/vectorstore/PointGroup';
import type { QueryGroupsResponse } from '../../grpc/generated/vectorstore/QueryGroupsResponse';
import type { QueryPointGroups__Output } from '../../grpc/generated/vectorstore/QueryPointGroups';
import type { RecommendPointGroups__Output } from '../../grpc/generated/vectorstore/RecommendPointGroups';
import type { SearchPointGroups__Output } from '../../grpc/generated/vectorstore/SearchPointGroups';
import type { WithLookup__Output } from '../../grpc/generated/vectorstore/WithLookup';
import { defined } from '../../core/scalars';
import { readLimit } from './params.mapper';
import { retrievedPointToProto, scoredPointToProto } from './points-response.mapper';
import { querySourceFromProto, recommendSourceFromProto, searchSourceFromProto } from './query.mapper';
import { payloadSelectorFromProto, vectorSelectorFromProto } from './selectors.mapper';

/**
 * SearchGroups, RecommendGroups and QueryGroups. The grouping fields are checked as Qdrant does:
 * `group_by` not empty, `group_size` and `limit` at least 1 (QueryGroups defaults them to 3 and
 * 10); everything else maps as the single-result request, whose limit is the number of groups.
 */
export interface GroupsMapping<T> {
  collectionName: string;
  request: GroupsRequest<T>;
}

interface GroupingFields {
  groupBy?: string;
  groupSize?: number | string;
  limit?: number | string;
  withLookup?: WithLookup__Output;
}

type Grouping = Omit<GroupsRequest<unknown>, 'source'>;

/** WithLookup: the looked-up point comes with its payload and without vectors unless told otherwise. */
function withLookupFromProto(issues: ValidationIssues, l: WithLookup__Output | undefined): WithLookup | undefined {
  if (!l) return undefined;
  return {
    collectionName: l.collection ?? '',
    withPayload: payloadSelectorFromProto(issues, 'with_lookup.with_payload', l.withPayload, true),
    withVectors: vectorSelectorFromProto(issues, 'with_lookup.with_vectors', l.withVectors),
  };
}

/** The grouping fields; `defaults` applies to absent limit / group_size (QueryGroups), else 0 is reported. */
function groupingFromProto(
  issues: ValidationIssues,
  r: GroupingFields,
  defaults?: { limit: number; groupSize: number },
): Grouping {
  const groupBy = r.groupBy ?? '';
  if (groupBy.length === 0) issues.add('group_by', 'must not be empty');
  return defined({
    groupBy,
    groupSize: readLimit(issues, 'group_size', r.groupSize ?? (defaults ? undefined : 0), defaults?.groupSize ?? 0),
    limit: readLimit(issues, 'limit', r.limit ?? (defaults ? undefined : 0), defaults?.limit ?? 0),
    withLookup: withLookupFromProto(issues, r.withLookup),
  });
}

export function searchGroupsFromProto(r: SearchPointGroups__Output): GroupsMapping<SearchRequest> {
  const issues = new ValidationIssues();
  const grouping = groupingFromProto(issues, r);
  const source: SearchRequest = { ...searchSourceFromProto(issues, '', r), limit: grouping.limit, offset: 0 };
  issues.throwIfAny();
  return { collectionName: r.collectionName ?? '', request: { source, ...grouping } };
}

export function recommendGroupsFromProto(r: RecommendPointGroups__Output): GroupsMapping<RecommendRequest> {
  const issues = new ValidationIssues();
  const grouping = groupingFromProto(issues, r);
  const source: RecommendRequest = { ...recommendSourceFromProto(issues, r), limit: grouping.limit, offset: 0 };
  issues.throwIfAny();
  return { collectionName: r.collectionName ?? '', request: { source, ...grouping } };
}

export function queryGroupsFromProto(r: QueryPointGroups__Output): GroupsMapping<QueryRequest> {
  const issues = new ValidationIssues();
  const grouping = groupingFromProto(issues, r, {
    limit: QUERY_DEFAULT_LIMIT,
    groupSize: QUERY_GROUPS_DEFAULT_GROUP_SIZE,
  });
  const source: QueryRequest = { ...querySourceFromProto(issues, '', r), limit: grouping.limit, offset: 0 };
  issues.throwIfAny();
  return { collectionName: r.collectionName ?? '', request: { source, ...grouping } };
}

/** A group id as Qdrant sends it: non-negative integers as unsigned_value, negative ones as integer_value. */
export function groupIdToProto(id: GroupId): ProtoGroupId {
  if (typeof id === 'string') return { stringValue: id };
  return id >= 0n ? { unsignedValue: id.toString() } : { integerValue: id.toString() };
}

export function pointGroupToProto(group: PointGroup): ProtoPointGroup {
  return defined({
    id: groupIdToProto(group.id),
    hits: group.hits.map((hit) => scoredPointToProto(hit)),
    lookup: group.lookup ? retrievedPointToProto(group.lookup) : undefined,
  });
}

/** SearchGroups, RecommendGroups and QueryGroups responses share this shape (`result.groups`). */
export function groupsResponseToProto(groups: readonly PointGroup[]): QueryGroupsResponse {
  return { result: { groups: groups.map(pointGroupToProto) } };
}
