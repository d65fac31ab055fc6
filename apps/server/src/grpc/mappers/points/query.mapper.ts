import { ValidationIssues } from '@vectorstore/common';
import type {
  PrefetchQuery,
  QueryRequest,
  QueryVariant,
  RecommendInput,
  RecommendRequest,
  SearchRequest,
  Vector,
  VectorInput,
} from '@vectorstore/points/model';
import type { PrefetchQuery__Output } from '../../generated/vectorstore/PrefetchQuery';
import type { QueryBatchPoints__Output } from '../../generated/vectorstore/QueryBatchPoints';
import type { QueryPoints__Output } from '../../generated/vectorstore/QueryPoints';
import type { Query__Output } from '../../generated/vectorstore/Query';
import type { RecommendInput__Output } from '../../generated/vectorstore/RecommendInput';
import type { RecommendPoints__Output } from '../../generated/vectorstore/RecommendPoints';
import type { SearchBatchPoints__Output } from '../../generated/vectorstore/SearchBatchPoints';
import type { SearchPoints__Output } from '../../generated/vectorstore/SearchPoints';
import type { Vector__Output } from '../../generated/vectorstore/Vector';
import type { VectorInput__Output } from '../../generated/vectorstore/VectorInput';
import { defined, readU64 } from '../scalars.mapper';
import { filterFromProto } from './filter.mapper';
import { lookupLocationFromProto, orderByFromProto, readEnumOf, readLimit, RECOMMEND_STRATEGIES, searchParamsFromProto } from './params.mapper';
import { pointIdsFromProto } from './point-id.mapper';
import { payloadSelectorFromProto, shardKeySelectorFromProto, vectorSelectorFromProto } from './selectors.mapper';
import { legacyVectorFromProto, vectorFromProto, vectorInputFromProto } from './vectors.mapper';

/**
 * Search, Recommend and Query requests mapped to the domain. `read_consistency` is accepted and
 * ignored (single node). Absent with_payload / with_vectors mean false, as in Qdrant.
 */
export interface SearchMapping<T> {
  collectionName: string;
  request: T;
}

export interface BatchMapping<T> {
  collectionName: string;
  requests: T[];
  timeout?: number;
}

export const QUERY_DEFAULT_LIMIT = 10;

const at = (prefix: string, name: string): string => (prefix ? `${prefix}.${name}` : name);

// ---------------------------------------------------------------------------
// Search (deprecated in Qdrant, still served)
// ---------------------------------------------------------------------------

/**
 * One SearchPoints at `prefix` ('' or `search_points[i]`). The flat `vector` (+ `sparse_indices`
 * for a sparse query) is the query vector; `limit` is required (≥1), `offset` defaults to 0.
 */
export function searchRequestFromProto(issues: ValidationIssues, prefix: string, r: SearchPoints__Output): SearchRequest {
  return defined({
    vector: legacyVectorFromProto(issues, prefix, r.vector, r.sparseIndices, undefined, { data: 'vector', indices: 'sparse_indices' }),
    using: r.vectorName ?? '',
    filter: filterFromProto(issues, at(prefix, 'filter'), r.filter),
    limit: readLimit(issues, at(prefix, 'limit'), r.limit ?? '0', 0),
    offset: readU64(issues, at(prefix, 'offset'), r.offset) ?? 0,
    scoreThreshold: r.scoreThreshold,
    params: searchParamsFromProto(issues, at(prefix, 'params'), r.params),
    withPayload: payloadSelectorFromProto(issues, at(prefix, 'with_payload'), r.withPayload, false),
    withVectors: vectorSelectorFromProto(issues, at(prefix, 'with_vectors'), r.withVectors),
    shardKeySelector: shardKeySelectorFromProto(issues, at(prefix, 'shard_key_selector'), r.shardKeySelector),
    timeout: readU64(issues, at(prefix, 'timeout'), r.timeout),
  });
}

export function searchPointsFromProto(r: SearchPoints__Output): SearchMapping<SearchRequest> {
  const issues = new ValidationIssues();
  const request = searchRequestFromProto(issues, '', r);
  issues.throwIfAny();
  return { collectionName: r.collectionName ?? '', request };
}

/** SearchBatch: the outer collection_name wins over the inner ones; the outer timeout over inner ones. */
export function searchBatchFromProto(r: SearchBatchPoints__Output): BatchMapping<SearchRequest> {
  const issues = new ValidationIssues();
  const timeout = readU64(issues, 'timeout', r.timeout);
  const requests = (r.searchPoints ?? []).map((s, i) => withTimeout(searchRequestFromProto(issues, `search_points[${i}]`, s), timeout));
  issues.throwIfAny();
  return defined({ collectionName: r.collectionName ?? '', requests, timeout });
}

function withTimeout<T extends { timeout?: number }>(request: T, timeout: number | undefined): T {
  return timeout === undefined ? request : { ...request, timeout };
}

// ---------------------------------------------------------------------------
// Recommend (deprecated in Qdrant, still served)
// ---------------------------------------------------------------------------

function vectorsFromList(issues: ValidationIssues, path: string, list: readonly Vector__Output[] | undefined): Vector[] {
  const result: Vector[] = [];
  (list ?? []).forEach((v, i) => {
    const vector = vectorFromProto(issues, `${path}[${i}]`, v);
    if (vector) result.push(vector);
  });
  return result;
}

/** RecommendPoints: example ids and/or vectors; strategy defaults to AverageVector, `using` to the default vector. */
export function recommendPointsFromProto(r: RecommendPoints__Output): SearchMapping<RecommendRequest> {
  const issues = new ValidationIssues();
  const request: RecommendRequest = defined({
    positive: pointIdsFromProto(issues, 'positive', r.positive),
    negative: pointIdsFromProto(issues, 'negative', r.negative),
    positiveVectors: vectorsFromList(issues, 'positive_vectors', r.positiveVectors),
    negativeVectors: vectorsFromList(issues, 'negative_vectors', r.negativeVectors),
    strategy: readEnumOf(issues, 'strategy', r.strategy, RECOMMEND_STRATEGIES) ?? 'AverageVector',
    using: r.using ?? '',
    filter: filterFromProto(issues, 'filter', r.filter),
    limit: readLimit(issues, 'limit', r.limit ?? '0', 0),
    offset: readU64(issues, 'offset', r.offset) ?? 0,
    scoreThreshold: r.scoreThreshold,
    params: searchParamsFromProto(issues, 'params', r.params),
    withPayload: payloadSelectorFromProto(issues, 'with_payload', r.withPayload, false),
    withVectors: vectorSelectorFromProto(issues, 'with_vectors', r.withVectors),
    lookupFrom: lookupLocationFromProto(r.lookupFrom),
    shardKeySelector: shardKeySelectorFromProto(issues, 'shard_key_selector', r.shardKeySelector),
    timeout: readU64(issues, 'timeout', r.timeout),
  });
  issues.throwIfAny();
  return { collectionName: r.collectionName ?? '', request };
}

// ---------------------------------------------------------------------------
// Universal query
// ---------------------------------------------------------------------------

function vectorInputs(issues: ValidationIssues, path: string, list: readonly VectorInput__Output[] | undefined): VectorInput[] {
  const result: VectorInput[] = [];
  (list ?? []).forEach((v, i) => {
    const input = vectorInputFromProto(issues, `${path}[${i}]`, v);
    if (input) result.push(input);
  });
  return result;
}

function recommendInputFromProto(issues: ValidationIssues, path: string, r: RecommendInput__Output | undefined): RecommendInput {
  return defined({
    positive: vectorInputs(issues, `${path}.positive`, r?.positive),
    negative: vectorInputs(issues, `${path}.negative`, r?.negative),
    strategy: readEnumOf(issues, `${path}.strategy`, r?.strategy, RECOMMEND_STRATEGIES),
  });
}

const UNSUPPORTED_VARIANTS: Record<string, string> = {
  discover: 'discover',
  context: 'context',
  formula: 'formula',
  nearestWithMmr: 'nearest_with_mmr',
  relevanceFeedback: 'relevance_feedback',
};

/** Query (oneof variant). discover, context, formula, nearest_with_mmr and relevance_feedback are reported. */
export function queryVariantFromProto(issues: ValidationIssues, path: string, q: Query__Output): QueryVariant | undefined {
  switch (q.variant) {
    case 'nearest': {
      const nearest = vectorInputFromProto(issues, `${path}.nearest`, q.nearest);
      return nearest && { nearest };
    }
    case 'recommend':
      return { recommend: recommendInputFromProto(issues, `${path}.recommend`, q.recommend) };
    case 'fusion': {
      const fusion = readEnumOf(issues, `${path}.fusion`, q.fusion ?? 'RRF', ['RRF', 'DBSF'] as const);
      return fusion && { fusion };
    }
    case 'rrf': {
      if ((q.rrf?.weights ?? []).length > 0) {
        issues.add(`${path}.rrf.weights`, 'weighted rrf is not supported yet');
      }
      return { rrf: defined({ k: q.rrf?.k }) };
    }
    case 'orderBy': {
      const orderBy = orderByFromProto(issues, `${path}.order_by`, q.orderBy ?? {});
      return orderBy && { orderBy };
    }
    case 'sample': {
      const sample = readEnumOf(issues, `${path}.sample`, q.sample ?? 'Random', ['Random'] as const);
      return sample && { sample };
    }
    case 'discover':
    case 'context':
    case 'formula':
    case 'nearestWithMmr':
    case 'relevanceFeedback': {
      const name = UNSUPPORTED_VARIANTS[q.variant];
      issues.add(`${path}.${name}`, `${name} query is not supported yet`);
      return undefined;
    }
    default:
      issues.add(path, 'must set a query variant');
      return undefined;
  }
}

/** PrefetchQuery, recursively; its limit is optional (the domain applies the default) and ≥1 when set. */
export function prefetchFromProto(issues: ValidationIssues, path: string, p: PrefetchQuery__Output): PrefetchQuery {
  return defined({
    prefetch: (p.prefetch ?? []).map((inner, i) => prefetchFromProto(issues, `${path}.prefetch[${i}]`, inner)),
    query: p.query ? queryVariantFromProto(issues, `${path}.query`, p.query) : undefined,
    using: p.using,
    filter: filterFromProto(issues, `${path}.filter`, p.filter),
    params: searchParamsFromProto(issues, `${path}.params`, p.params),
    scoreThreshold: p.scoreThreshold,
    limit: readLimit(issues, `${path}.limit`, p.limit),
    lookupFrom: lookupLocationFromProto(p.lookupFrom),
  });
}

/** One QueryPoints at `prefix` ('' or `query_points[i]`): limit defaults to 10, offset to 0. */
export function queryRequestFromProto(issues: ValidationIssues, prefix: string, r: QueryPoints__Output): QueryRequest {
  return defined({
    prefetch: (r.prefetch ?? []).map((p, i) => prefetchFromProto(issues, `${at(prefix, 'prefetch')}[${i}]`, p)),
    query: r.query ? queryVariantFromProto(issues, at(prefix, 'query'), r.query) : undefined,
    using: r.using,
    filter: filterFromProto(issues, at(prefix, 'filter'), r.filter),
    params: searchParamsFromProto(issues, at(prefix, 'params'), r.params),
    scoreThreshold: r.scoreThreshold,
    limit: readLimit(issues, at(prefix, 'limit'), r.limit, QUERY_DEFAULT_LIMIT),
    offset: readU64(issues, at(prefix, 'offset'), r.offset) ?? 0,
    withPayload: payloadSelectorFromProto(issues, at(prefix, 'with_payload'), r.withPayload, false),
    withVectors: vectorSelectorFromProto(issues, at(prefix, 'with_vectors'), r.withVectors),
    shardKeySelector: shardKeySelectorFromProto(issues, at(prefix, 'shard_key_selector'), r.shardKeySelector),
    lookupFrom: lookupLocationFromProto(r.lookupFrom),
    timeout: readU64(issues, at(prefix, 'timeout'), r.timeout),
  });
}

export function queryPointsFromProto(r: QueryPoints__Output): SearchMapping<QueryRequest> {
  const issues = new ValidationIssues();
  const request = queryRequestFromProto(issues, '', r);
  issues.throwIfAny();
  return { collectionName: r.collectionName ?? '', request };
}

/** QueryBatch: the outer collection_name wins over the inner ones; the outer timeout over inner ones. */
export function queryBatchFromProto(r: QueryBatchPoints__Output): BatchMapping<QueryRequest> {
  const issues = new ValidationIssues();
  const timeout = readU64(issues, 'timeout', r.timeout);
  const requests = (r.queryPoints ?? []).map((q, i) => withTimeout(queryRequestFromProto(issues, `query_points[${i}]`, q), timeout));
  issues.throwIfAny();
  return defined({ collectionName: r.collectionName ?? '', requests, timeout });
}
