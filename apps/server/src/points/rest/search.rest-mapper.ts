import { ValidationIssues } from '@vectorstore/common';
import type {
  DiscoverRequest,
  GroupsRequest,
  PointId,
  RecommendRequest,
  SearchRequest,
  Vector,
} from '@vectorstore/points';
import { decodeBody, isPlainObject, objectValue, str } from '../../core/rest/rest-decoders';
import { bodyFormatError } from '../../core/rest/rest-format.error';
import { defined } from '../../core/scalars';
import { optionalFilter } from './filter.rest-mapper';
import { pointIdDecoder } from './point-id.rest-mapper';
import { contextPairs, groupingFromRest, RECOMMEND_STRATEGY } from './query.rest-mapper';
import {
  aliased,
  limitFromRest,
  lookupFromRest,
  optionalF64,
  optionalU64,
  payloadSelectorFromRest,
  searchParamsDecoder,
  shardKeySelectorFromRest,
  vectorSelectorFromRest,
} from './selectors.rest-mapper';
import { vectorFromRest, vectorInputFromRest } from './vectors.rest-mapper';

/**
 * The search, recommend and discover endpoints that openapi 1.19 dropped and Qdrant still serves
 * (`search_api.rs`, `recommend_api.rs`, `discover_api.rs`). `limit` (alias `top`) is required.
 */

type Body = Record<string, unknown>;

const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);

/** Fields every classic request shares. */
function common(b: Body, path: string, timeout?: number) {
  return defined({
    filter: optionalFilter(b.filter, join(path, 'filter')),
    params:
      b.params === undefined || b.params === null ? undefined : searchParamsDecoder(b.params, join(path, 'params')),
    withPayload: payloadSelectorFromRest(b.with_payload, join(path, 'with_payload'), false),
    withVectors: vectorSelectorFromRest(aliased(b, 'with_vector', 'with_vectors'), join(path, 'with_vector')),
    shardKeySelector: shardKeySelectorFromRest(b.shard_key, join(path, 'shard_key')),
    timeout,
  });
}

function requiredLimit(issues: ValidationIssues, b: Body, path: string): number {
  const limit = aliased(b, 'limit', 'top');
  if (limit === undefined) throw bodyFormatError(path, 'missing field `limit`');
  return limitFromRest(issues, limit, join(path, 'limit'), 0);
}

/** `NamedVectorStruct`: a bare vector (the default one) or `{name, vector}`. */
function namedVector(issues: ValidationIssues, value: unknown, path: string): { using: string; vector: Vector } {
  if (isPlainObject(value) && 'name' in value && 'vector' in value) {
    return {
      using: str(value.name, join(path, 'name')),
      vector: vectorFromRest(issues, value.vector, join(path, 'vector'), 'query'),
    };
  }
  return { using: '', vector: vectorFromRest(issues, value, path, 'query') };
}

function searchSource(
  issues: ValidationIssues,
  b: Body,
  path: string,
  timeout?: number,
): Omit<SearchRequest, 'limit' | 'offset'> {
  if (b.vector === undefined) throw bodyFormatError(path, 'missing field `vector`');
  return {
    ...namedVector(issues, b.vector, join(path, 'vector')),
    ...common(b, path, timeout),
    ...defined({ scoreThreshold: optionalF64(b.score_threshold, join(path, 'score_threshold')) }),
  } as Omit<SearchRequest, 'limit' | 'offset'>;
}

export function searchRequestAt(
  issues: ValidationIssues,
  value: unknown,
  path: string,
  timeout?: number,
): SearchRequest {
  const b = objectValue(value, path);
  return {
    ...searchSource(issues, b, path, timeout),
    limit: requiredLimit(issues, b, path),
    offset: optionalU64(b.offset, join(path, 'offset')) ?? 0,
  };
}

/** Recommend examples: point ids and vectors, kept apart as the domain request wants them. */
function examples(issues: ValidationIssues, value: unknown, path: string): { ids: PointId[]; vectors: Vector[] } {
  const ids: PointId[] = [];
  const vectors: Vector[] = [];
  if (value === undefined || value === null) return { ids, vectors };
  if (!Array.isArray(value)) throw bodyFormatError(path, 'expected a sequence');
  value.forEach((item, i) => {
    const input = vectorInputFromRest(issues, item, `${path}[${i}]`);
    if ('pointId' in input) ids.push(input.pointId);
    else vectors.push(input.vector);
  });
  return { ids, vectors };
}

function recommendSource(
  issues: ValidationIssues,
  b: Body,
  path: string,
  timeout?: number,
): Omit<RecommendRequest, 'limit' | 'offset'> {
  const positive = examples(issues, b.positive, join(path, 'positive'));
  const negative = examples(issues, b.negative, join(path, 'negative'));
  return {
    positive: positive.ids,
    negative: negative.ids,
    positiveVectors: positive.vectors,
    negativeVectors: negative.vectors,
    strategy:
      b.strategy === undefined || b.strategy === null
        ? 'AverageVector'
        : RECOMMEND_STRATEGY(b.strategy, join(path, 'strategy')),
    using: b.using === undefined || b.using === null ? '' : str(b.using, join(path, 'using')),
    ...common(b, path, timeout),
    ...defined({
      scoreThreshold: optionalF64(b.score_threshold, join(path, 'score_threshold')),
      lookupFrom: lookupFromRest(b.lookup_from, join(path, 'lookup_from')),
    }),
  };
}

export function recommendRequestAt(
  issues: ValidationIssues,
  value: unknown,
  path: string,
  timeout?: number,
): RecommendRequest {
  const b = objectValue(value, path);
  return {
    ...recommendSource(issues, b, path, timeout),
    limit: requiredLimit(issues, b, path),
    offset: optionalU64(b.offset, join(path, 'offset')) ?? 0,
  };
}

export function discoverRequestAt(
  issues: ValidationIssues,
  value: unknown,
  path: string,
  timeout?: number,
): DiscoverRequest {
  const b = objectValue(value, path);
  return defined({
    target:
      b.target === undefined || b.target === null ? undefined : pointOrVector(issues, b.target, join(path, 'target')),
    context: contextPairs(issues, b.context, join(path, 'context')),
    using: b.using === undefined || b.using === null ? '' : str(b.using, join(path, 'using')),
    limit: requiredLimit(issues, b, path),
    offset: optionalU64(b.offset, join(path, 'offset')) ?? 0,
    lookupFrom: lookupFromRest(b.lookup_from, join(path, 'lookup_from')),
    ...common(b, path, timeout),
  }) as DiscoverRequest;
}

function pointOrVector(issues: ValidationIssues, value: unknown, path: string) {
  if (typeof value === 'bigint' || typeof value === 'string') return { pointId: pointIdDecoder(value, path) };
  return vectorInputFromRest(issues, value, path);
}

/** One request of a deprecated kind at the top of the body. */
export function singleOf<T>(
  body: unknown,
  decode: (issues: ValidationIssues, value: unknown, path: string, timeout?: number) => T,
  timeout?: number,
): T {
  const issues = new ValidationIssues();
  const request = decodeBody(body, (value, path) => decode(issues, value, path, timeout));
  issues.throwIfAny();
  return request;
}

export function searchGroupsFromRest(body: unknown, timeout?: number): GroupsRequest<SearchRequest> {
  return singleOf(body, (issues, value, path) => {
    const b = objectValue(value, path);
    const grouping = groupingFromRest(issues, b);
    return { source: { ...searchSource(issues, b, path, timeout), limit: grouping.limit, offset: 0 }, ...grouping };
  });
}

export function recommendGroupsFromRest(body: unknown, timeout?: number): GroupsRequest<RecommendRequest> {
  return singleOf(body, (issues, value, path) => {
    const b = objectValue(value, path);
    const grouping = groupingFromRest(issues, b);
    return { source: { ...recommendSource(issues, b, path, timeout), limit: grouping.limit, offset: 0 }, ...grouping };
  });
}
