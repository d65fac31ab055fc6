import { DomainError, ValidationIssues } from '@vectorstore/common';
import { QUERY_DEFAULT_LIMIT, sparseVectorOf } from '@vectorstore/points';
import { readConsistencyFromProto } from './read-consistency.mapper';
import type {
  ContextPair,
  DiscoverRequest,
  PrefetchQuery,
  QueryRequest,
  QueryVariant,
  ReadConsistency,
  RecommendInput,
  RecommendRequest,
  SearchRequest,
  Vector,
  VectorInput,
} from '@vectorstore/points';
import type { ContextExamplePair__Output } from '../../grpc/generated/vectorstore/ContextExamplePair';
import type { ContextInputPair__Output } from '../../grpc/generated/vectorstore/ContextInputPair';
import type { DiscoverBatchPoints__Output } from '../../grpc/generated/vectorstore/DiscoverBatchPoints';
import type { DiscoverPoints__Output } from '../../grpc/generated/vectorstore/DiscoverPoints';
import type { PrefetchQuery__Output } from '../../grpc/generated/vectorstore/PrefetchQuery';
import type { QueryBatchPoints__Output } from '../../grpc/generated/vectorstore/QueryBatchPoints';
import type { QueryPoints__Output } from '../../grpc/generated/vectorstore/QueryPoints';
import type { Query__Output } from '../../grpc/generated/vectorstore/Query';
import type { RecommendInput__Output } from '../../grpc/generated/vectorstore/RecommendInput';
import type { RecommendBatchPoints__Output } from '../../grpc/generated/vectorstore/RecommendBatchPoints';
import type { RecommendPoints__Output } from '../../grpc/generated/vectorstore/RecommendPoints';
import type { SearchBatchPoints__Output } from '../../grpc/generated/vectorstore/SearchBatchPoints';
import type { SearchPoints__Output } from '../../grpc/generated/vectorstore/SearchPoints';
import type { VectorExample__Output } from '../../grpc/generated/vectorstore/VectorExample';
import type { Vector__Output } from '../../grpc/generated/vectorstore/Vector';
import type { VectorInput__Output } from '../../grpc/generated/vectorstore/VectorInput';
import { defined, readU64 } from '../../core/scalars';
import { filterFromProto } from './filter.mapper';
import { formulaFromProto } from './formula.mapper';
import {
  lookupLocationFromProto,
  orderByFromProto,
  readEnumOf,
  readLimit,
  RECOMMEND_STRATEGIES,
  searchParamsFromProto,
} from './params.mapper';
import { pointIdFromProto, pointIdsFromProto } from './point-id.mapper';
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

const at = (prefix: string, name: string): string => (prefix ? `${prefix}.${name}` : name);

// ---------------------------------------------------------------------------
// Search (deprecated in Qdrant, still served)
// ---------------------------------------------------------------------------

/** The SearchPoints fields SearchPointGroups shares (everything but limit and offset). */
export type SearchFields = Omit<SearchPoints__Output, 'limit' | 'offset'>;

/** A search without its limit and offset, at `prefix` ('' or `search_points[i]`). */
export function searchSourceFromProto(
  issues: ValidationIssues,
  prefix: string,
  r: SearchFields,
): Omit<SearchRequest, 'limit' | 'offset'> {
  return defined({
    vector: searchVectorFromProto(issues, prefix, r),
    using: r.vectorName ?? '',
    filter: filterFromProto(issues, at(prefix, 'filter'), r.filter),
    scoreThreshold: r.scoreThreshold,
    params: searchParamsFromProto(issues, at(prefix, 'params'), r.params),
    withPayload: payloadSelectorFromProto(issues, at(prefix, 'with_payload'), r.withPayload, false),
    withVectors: vectorSelectorFromProto(issues, at(prefix, 'with_vectors'), r.withVectors),
    shardKeySelector: shardKeySelectorFromProto(issues, at(prefix, 'shard_key_selector'), r.shardKeySelector),
    timeout: readU64(issues, at(prefix, 'timeout'), r.timeout),
    readConsistency: readConsistencyFromProto(issues, at(prefix, 'read_consistency'), r.readConsistency),
  });
}

/**
 * The flat query vector of a search: `vector` alone is dense; with `sparse_indices` it is sparse,
 * and a mismatch is reported in Qdrant's words for this conversion (not as a body validation).
 */
function searchVectorFromProto(issues: ValidationIssues, prefix: string, r: SearchFields): Vector {
  if (!r.sparseIndices)
    return legacyVectorFromProto(issues, prefix, r.vector, undefined, undefined, { data: 'vector' });
  const sparse = new ValidationIssues();
  const vector = sparseVectorOf(sparse, '', r.sparseIndices.data ?? [], r.vector ?? []);
  if (!sparse.empty) {
    throw DomainError.invalidArgument(
      `Sparse indices does not match sparse vector conditions: ${sparse.list().join('; ')}`,
    );
  }
  return vector;
}

/**
 * One SearchPoints at `prefix` ('' or `search_points[i]`). The flat `vector` (+ `sparse_indices`
 * for a sparse query) is the query vector; `limit` is required (≥1), `offset` defaults to 0.
 */
export function searchRequestFromProto(
  issues: ValidationIssues,
  prefix: string,
  r: SearchPoints__Output,
): SearchRequest {
  return {
    ...searchSourceFromProto(issues, prefix, r),
    limit: readLimit(issues, at(prefix, 'limit'), r.limit ?? '0', 0),
    offset: readU64(issues, at(prefix, 'offset'), r.offset) ?? 0,
  };
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
  const batchConsistency = readConsistencyFromProto(issues, 'read_consistency', r.readConsistency);
  const requests = (r.searchPoints ?? []).map((s, i) =>
    withTimeout(searchRequestFromProto(issues, `search_points[${i}]`, s), timeout, batchConsistency),
  );
  issues.throwIfAny();
  return defined({ collectionName: r.collectionName ?? '', requests, timeout });
}

/**
 * A batch's inner request with the batch's `timeout` and `read_consistency` (as Qdrant, the batch's
 * own consistency applies to every request of it).
 */
function withTimeout<T extends { timeout?: number; readConsistency?: ReadConsistency }>(
  request: T,
  timeout: number | undefined,
  readConsistency?: ReadConsistency,
): T {
  const timed = timeout === undefined ? request : { ...request, timeout };
  return readConsistency === undefined ? timed : { ...timed, readConsistency };
}

// ---------------------------------------------------------------------------
// Recommend (deprecated in Qdrant, still served)
// ---------------------------------------------------------------------------

function vectorsFromList(
  issues: ValidationIssues,
  path: string,
  list: readonly Vector__Output[] | undefined,
): Vector[] {
  const result: Vector[] = [];
  (list ?? []).forEach((v, i) => {
    const vector = vectorFromProto(issues, `${path}[${i}]`, v, 'query');
    if (vector) result.push(vector);
  });
  return result;
}

/** The RecommendPoints fields RecommendPointGroups shares (everything but limit and offset). */
export type RecommendFields = Omit<RecommendPoints__Output, 'limit' | 'offset'>;

/** A recommendation without its limit and offset: strategy defaults to AverageVector, `using` to the default vector. */
export function recommendSourceFromProto(
  issues: ValidationIssues,
  r: RecommendFields,
): Omit<RecommendRequest, 'limit' | 'offset'> {
  return defined({
    positive: pointIdsFromProto(issues, 'positive', r.positive),
    negative: pointIdsFromProto(issues, 'negative', r.negative),
    positiveVectors: vectorsFromList(issues, 'positive_vectors', r.positiveVectors),
    negativeVectors: vectorsFromList(issues, 'negative_vectors', r.negativeVectors),
    strategy: readEnumOf(issues, 'strategy', r.strategy, RECOMMEND_STRATEGIES) ?? 'AverageVector',
    using: r.using ?? '',
    filter: filterFromProto(issues, 'filter', r.filter),
    scoreThreshold: r.scoreThreshold,
    params: searchParamsFromProto(issues, 'params', r.params),
    withPayload: payloadSelectorFromProto(issues, 'with_payload', r.withPayload, false),
    withVectors: vectorSelectorFromProto(issues, 'with_vectors', r.withVectors),
    lookupFrom: lookupLocationFromProto(r.lookupFrom),
    shardKeySelector: shardKeySelectorFromProto(issues, 'shard_key_selector', r.shardKeySelector),
    timeout: readU64(issues, 'timeout', r.timeout),
    readConsistency: readConsistencyFromProto(issues, 'read_consistency', r.readConsistency),
  });
}

/**
 * RecommendPoints: example ids and/or vectors; offset defaults to 0. Unlike Search and Query,
 * Qdrant sets no rule on `limit` here: an absent limit (0) is valid and answers no points.
 */
export function recommendPointsFromProto(r: RecommendPoints__Output): SearchMapping<RecommendRequest> {
  const issues = new ValidationIssues();
  const request: RecommendRequest = {
    ...recommendSourceFromProto(issues, r),
    limit: readU64(issues, 'limit', r.limit) ?? 0,
    offset: readU64(issues, 'offset', r.offset) ?? 0,
  };
  issues.throwIfAny();
  return { collectionName: r.collectionName ?? '', request };
}

/**
 * RecommendBatchPoints: each RecommendPoints of the batch, with the batch's collection and timeout.
 * Each inner request must still name a collection (Qdrant validates every RecommendPoints).
 */
export function recommendBatchFromProto(r: RecommendBatchPoints__Output): BatchMapping<RecommendRequest> {
  const issues = new ValidationIssues();
  const timeout = readU64(issues, 'timeout', r.timeout);
  const batchConsistency = readConsistencyFromProto(issues, 'read_consistency', r.readConsistency);
  (r.recommendPoints ?? []).forEach((inner, i) => {
    if (!inner.collectionName) issues.add(`recommend_points[${i}].collection_name`, 'must be from 1 to 255 characters');
  });
  issues.throwIfAny();
  const requests = (r.recommendPoints ?? []).map((inner) =>
    withTimeout(
      recommendPointsFromProto({ ...inner, collectionName: r.collectionName }).request,
      timeout,
      batchConsistency,
    ),
  );
  return defined({ collectionName: r.collectionName ?? '', requests, timeout });
}

// ---------------------------------------------------------------------------
// Discover (deprecated in Qdrant, still served)
// ---------------------------------------------------------------------------

/** VectorExample (oneof id | vector); the vector may use the deprecated flat form. */
function vectorExampleFromProto(
  issues: ValidationIssues,
  path: string,
  e: VectorExample__Output | undefined,
): VectorInput | undefined {
  switch (e?.example) {
    case 'id': {
      const pointId = pointIdFromProto(issues, `${path}.id`, e.id);
      return pointId === undefined ? undefined : { pointId };
    }
    case 'vector': {
      const vector = e.vector && vectorFromProto(issues, `${path}.vector`, e.vector, 'query');
      return vector && { vector };
    }
    default:
      issues.add(path, e ? 'must set id or vector' : 'must be set');
      return undefined;
  }
}

/** Context pairs of any of the two wire forms; both examples of a pair must be set. */
function contextPairsFromProto<P extends ContextExamplePair__Output | ContextInputPair__Output>(
  issues: ValidationIssues,
  path: string,
  pairs: readonly P[] | undefined,
  example: (issues: ValidationIssues, path: string, e: P['positive']) => VectorInput | undefined,
): ContextPair[] {
  const result: ContextPair[] = [];
  (pairs ?? []).forEach((pair, i) => {
    const positive = example(issues, `${path}[${i}].positive`, pair.positive);
    const negative = example(issues, `${path}[${i}].negative`, pair.negative);
    if (positive && negative) result.push({ positive, negative });
  });
  return result;
}

/** One DiscoverPoints at `prefix` ('' or `discover_points[i]`): limit required (≥1), offset defaults to 0. */
export function discoverRequestFromProto(
  issues: ValidationIssues,
  prefix: string,
  r: DiscoverPoints__Output,
): DiscoverRequest {
  let target: VectorInput | undefined;
  if (r.target) {
    if (r.target.target === 'single')
      target = vectorExampleFromProto(issues, at(prefix, 'target.single'), r.target.single);
    else issues.add(at(prefix, 'target'), 'must set single');
  }
  return defined({
    target,
    context: contextPairsFromProto(issues, at(prefix, 'context'), r.context, vectorExampleFromProto),
    using: r.using ?? '',
    filter: filterFromProto(issues, at(prefix, 'filter'), r.filter),
    limit: readLimit(issues, at(prefix, 'limit'), r.limit ?? '0', 0),
    offset: readU64(issues, at(prefix, 'offset'), r.offset) ?? 0,
    params: searchParamsFromProto(issues, at(prefix, 'params'), r.params),
    withPayload: payloadSelectorFromProto(issues, at(prefix, 'with_payload'), r.withPayload, false),
    withVectors: vectorSelectorFromProto(issues, at(prefix, 'with_vectors'), r.withVectors),
    lookupFrom: lookupLocationFromProto(r.lookupFrom),
    shardKeySelector: shardKeySelectorFromProto(issues, at(prefix, 'shard_key_selector'), r.shardKeySelector),
    timeout: readU64(issues, at(prefix, 'timeout'), r.timeout),
    readConsistency: readConsistencyFromProto(issues, at(prefix, 'read_consistency'), r.readConsistency),
  });
}

export function discoverPointsFromProto(r: DiscoverPoints__Output): SearchMapping<DiscoverRequest> {
  const issues = new ValidationIssues();
  const request = discoverRequestFromProto(issues, '', r);
  issues.throwIfAny();
  return { collectionName: r.collectionName ?? '', request };
}

/** DiscoverBatch: the outer collection_name wins over the inner ones; the outer timeout over inner ones. */
export function discoverBatchFromProto(r: DiscoverBatchPoints__Output): BatchMapping<DiscoverRequest> {
  const issues = new ValidationIssues();
  const timeout = readU64(issues, 'timeout', r.timeout);
  const batchConsistency = readConsistencyFromProto(issues, 'read_consistency', r.readConsistency);
  const requests = (r.discoverPoints ?? []).map((d, i) =>
    withTimeout(discoverRequestFromProto(issues, `discover_points[${i}]`, d), timeout, batchConsistency),
  );
  issues.throwIfAny();
  return defined({ collectionName: r.collectionName ?? '', requests, timeout });
}

// ---------------------------------------------------------------------------
// Universal query
// ---------------------------------------------------------------------------

function vectorInputs(
  issues: ValidationIssues,
  path: string,
  list: readonly VectorInput__Output[] | undefined,
): VectorInput[] {
  const result: VectorInput[] = [];
  (list ?? []).forEach((v, i) => {
    const input = vectorInputFromProto(issues, `${path}[${i}]`, v);
    if (input) result.push(input);
  });
  return result;
}

function recommendInputFromProto(
  issues: ValidationIssues,
  path: string,
  r: RecommendInput__Output | undefined,
): RecommendInput {
  return defined({
    positive: vectorInputs(issues, `${path}.positive`, r?.positive),
    negative: vectorInputs(issues, `${path}.negative`, r?.negative),
    strategy: readEnumOf(issues, `${path}.strategy`, r?.strategy, RECOMMEND_STRATEGIES),
  });
}

/** Query (oneof variant). */
export function queryVariantFromProto(
  issues: ValidationIssues,
  path: string,
  q: Query__Output,
): QueryVariant | undefined {
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
      const weights = q.rrf?.weights ?? [];
      return { rrf: defined({ k: q.rrf?.k, weights: weights.length > 0 ? weights : undefined }) };
    }
    case 'orderBy': {
      const orderBy = orderByFromProto(issues, `${path}.order_by`, q.orderBy ?? {});
      return orderBy && { orderBy };
    }
    case 'sample': {
      const sample = readEnumOf(issues, `${path}.sample`, q.sample ?? 'Random', ['Random'] as const);
      return sample && { sample };
    }
    case 'discover': {
      const d = q.discover ?? {};
      if (!d.target) issues.add(`${path}.discover.target`, 'must be set');
      if (!d.context) issues.add(`${path}.discover.context`, 'must be set');
      const target = d.target && vectorInputFromProto(issues, `${path}.discover.target`, d.target);
      const context = contextPairsFromProto(
        issues,
        `${path}.discover.context.pairs`,
        d.context?.pairs,
        vectorInputFromProto,
      );
      return target && { discover: { target, context } };
    }
    case 'context':
      return {
        context: contextPairsFromProto(issues, `${path}.context.pairs`, q.context?.pairs, vectorInputFromProto),
      };
    case 'nearestWithMmr': {
      const given = q.nearestWithMmr;
      const nearest = vectorInputFromProto(issues, `${path}.nearest_with_mmr.nearest`, given?.nearest);
      const mmr = given?.mmr
        ? defined({ diversity: given.mmr.diversity, candidatesLimit: given.mmr.candidatesLimit })
        : {};
      return nearest && { nearest, mmr };
    }
    case 'relevanceFeedback': {
      const r = q.relevanceFeedback;
      const at = `${path}.relevance_feedback`;
      const target = vectorInputFromProto(issues, `${at}.target`, r?.target);
      const feedback = (r?.feedback ?? []).map((item, i) => ({
        example: vectorInputFromProto(issues, `${at}.feedback[${i}].example`, item.example),
        score: item.score ?? 0,
      }));
      const naive = r?.strategy?.naive;
      if (!naive) issues.add(`${at}.strategy`, 'must set naive');
      if (feedback.length === 0) issues.add(`${at}.feedback`, 'feedback elements must be non-empty');
      if ((naive?.b ?? 0) < 0) issues.add(`${at}.strategy.naive.b`, `value ${naive?.b} invalid, must be 0.0 or larger`);
      if (!target || !naive || feedback.some((f) => !f.example)) return undefined;
      return {
        relevanceFeedback: {
          target,
          feedback: feedback.map((f) => ({ example: f.example!, score: f.score })),
          naive: { a: naive.a ?? 0, b: naive.b ?? 0, c: naive.c ?? 0 },
        },
      };
    }
    case 'formula': {
      const formula = formulaFromProto(issues, `${path}.formula`, q.formula);
      return formula && { formula };
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

/** The QueryPoints fields QueryPointGroups shares (everything but limit and offset). */
export type QueryFields = Omit<QueryPoints__Output, 'limit' | 'offset'>;

/** A universal query without its limit and offset, at `prefix` ('' or `query_points[i]`). */
export function querySourceFromProto(
  issues: ValidationIssues,
  prefix: string,
  r: QueryFields,
): Omit<QueryRequest, 'limit' | 'offset'> {
  return defined({
    prefetch: (r.prefetch ?? []).map((p, i) => prefetchFromProto(issues, `${at(prefix, 'prefetch')}[${i}]`, p)),
    query: r.query ? queryVariantFromProto(issues, at(prefix, 'query'), r.query) : undefined,
    using: r.using,
    filter: filterFromProto(issues, at(prefix, 'filter'), r.filter),
    params: searchParamsFromProto(issues, at(prefix, 'params'), r.params),
    scoreThreshold: r.scoreThreshold,
    withPayload: payloadSelectorFromProto(issues, at(prefix, 'with_payload'), r.withPayload, false),
    withVectors: vectorSelectorFromProto(issues, at(prefix, 'with_vectors'), r.withVectors),
    shardKeySelector: shardKeySelectorFromProto(issues, at(prefix, 'shard_key_selector'), r.shardKeySelector),
    lookupFrom: lookupLocationFromProto(r.lookupFrom),
    timeout: readU64(issues, at(prefix, 'timeout'), r.timeout),
    readConsistency: readConsistencyFromProto(issues, at(prefix, 'read_consistency'), r.readConsistency),
  });
}

/** One QueryPoints at `prefix` ('' or `query_points[i]`): limit defaults to 10, offset to 0. */
export function queryRequestFromProto(issues: ValidationIssues, prefix: string, r: QueryPoints__Output): QueryRequest {
  return {
    ...querySourceFromProto(issues, prefix, r),
    limit: readLimit(issues, at(prefix, 'limit'), r.limit, QUERY_DEFAULT_LIMIT),
    offset: readU64(issues, at(prefix, 'offset'), r.offset) ?? 0,
  };
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
  const batchConsistency = readConsistencyFromProto(issues, 'read_consistency', r.readConsistency);
  const requests = (r.queryPoints ?? []).map((q, i) =>
    withTimeout(queryRequestFromProto(issues, `query_points[${i}]`, q), timeout, batchConsistency),
  );
  issues.throwIfAny();
  return defined({ collectionName: r.collectionName ?? '', requests, timeout });
}
