import { SCROLL_DEFAULT_LIMIT, FACET_DEFAULT_LIMIT } from '@vectorstore/points';
import { ValidationIssues } from '@vectorstore/common';
import { readConsistencyFromProto } from './read-consistency.mapper';
import type { CountRequest, FacetRequest, GetRequest, ScrollRequest } from '@vectorstore/points';
import type { CountPoints__Output } from '../../grpc/generated/vectorstore/CountPoints';
import type { FacetCounts__Output } from '../../grpc/generated/vectorstore/FacetCounts';
import type { GetPoints__Output } from '../../grpc/generated/vectorstore/GetPoints';
import type { ScrollPoints__Output } from '../../grpc/generated/vectorstore/ScrollPoints';
import { defined, readU64 } from '../../core/scalars';
import { filterFromProto } from './filter.mapper';
import { orderByFromProto, readLimit } from './params.mapper';
import { pointIdFromProto, pointIdsFromProto } from './point-id.mapper';
import { payloadSelectorFromProto, shardKeySelectorFromProto, vectorSelectorFromProto } from './selectors.mapper';

/**
 * Read RPCs mapped to the domain. `read_consistency` is mapped for cluster mode; a single node has one
 * replica, so every level is satisfied there.
 */
export interface PointsReadMapping<T> {
  collectionName: string;
  request: T;
}

/** Get: with_payload and with_vectors default to false (Qdrant's retrieve). */
export function getPointsFromProto(r: GetPoints__Output): PointsReadMapping<GetRequest> {
  const issues = new ValidationIssues();
  const request: GetRequest = defined({
    ids: pointIdsFromProto(issues, 'ids', r.ids),
    withPayload: payloadSelectorFromProto(issues, 'with_payload', r.withPayload, false),
    withVectors: vectorSelectorFromProto(issues, 'with_vectors', r.withVectors),
    shardKeySelector: shardKeySelectorFromProto(issues, 'shard_key_selector', r.shardKeySelector),
    timeout: readU64(issues, 'timeout', r.timeout),
    readConsistency: readConsistencyFromProto(issues, 'read_consistency', r.readConsistency),
  });
  issues.throwIfAny();
  return { collectionName: r.collectionName ?? '', request };
}

/** Scroll: limit defaults to 10 (≥1 when set), with_payload to true, with_vectors to false. */
export function scrollPointsFromProto(r: ScrollPoints__Output): PointsReadMapping<ScrollRequest> {
  const issues = new ValidationIssues();
  const request: ScrollRequest = defined({
    filter: filterFromProto(issues, 'filter', r.filter),
    offset: r.offset ? pointIdFromProto(issues, 'offset', r.offset) : undefined,
    limit: readLimit(issues, 'limit', r.limit, SCROLL_DEFAULT_LIMIT),
    withPayload: payloadSelectorFromProto(issues, 'with_payload', r.withPayload, true),
    withVectors: vectorSelectorFromProto(issues, 'with_vectors', r.withVectors),
    orderBy: orderByFromProto(issues, 'order_by', r.orderBy),
    shardKeySelector: shardKeySelectorFromProto(issues, 'shard_key_selector', r.shardKeySelector),
    timeout: readU64(issues, 'timeout', r.timeout),
    readConsistency: readConsistencyFromProto(issues, 'read_consistency', r.readConsistency),
  });
  issues.throwIfAny();
  return { collectionName: r.collectionName ?? '', request };
}

/** Count: exact defaults to true. */
export function countPointsFromProto(r: CountPoints__Output): PointsReadMapping<CountRequest> {
  const issues = new ValidationIssues();
  const request: CountRequest = defined({
    filter: filterFromProto(issues, 'filter', r.filter),
    exact: r.exact ?? true,
    shardKeySelector: shardKeySelectorFromProto(issues, 'shard_key_selector', r.shardKeySelector),
    timeout: readU64(issues, 'timeout', r.timeout),
    readConsistency: readConsistencyFromProto(issues, 'read_consistency', r.readConsistency),
  });
  issues.throwIfAny();
  return { collectionName: r.collectionName ?? '', request };
}

/** Facet: limit defaults to 10 (≥1 when set), exact to false. */
export function facetCountsFromProto(r: FacetCounts__Output): PointsReadMapping<FacetRequest> {
  const issues = new ValidationIssues();
  const request: FacetRequest = defined({
    key: r.key ?? '',
    filter: filterFromProto(issues, 'filter', r.filter),
    limit: readLimit(issues, 'limit', r.limit, FACET_DEFAULT_LIMIT),
    exact: r.exact ?? false,
    shardKeySelector: shardKeySelectorFromProto(issues, 'shard_key_selector', r.shardKeySelector),
    timeout: readU64(issues, 'timeout', r.timeout),
    readConsistency: readConsistencyFromProto(issues, 'read_consistency', r.readConsistency),
  });
  issues.throwIfAny();
  return { collectionName: r.collectionName ?? '', request };
}
