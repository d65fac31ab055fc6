import { DomainError } from '@vectorstore/common';
import { Filter } from '../model/filter.model';
import {
  DiscoverRequest,
  PrefetchQuery,
  QueryRequest,
  QueryVariant,
  RecommendInput,
  RecommendRequest,
  SearchRequest,
} from '../model/query.model';

/** The limit of a prefetch that sets none (Qdrant's). */
export const DEFAULT_PREFETCH_LIMIT = 10;

/**
 * The classic request kinds as universal queries, so one evaluator serves them all. Points they use
 * by id are left out of the results by the evaluator's root stage (see referencedIdsOf).
 */

/** The fields every classic request shares, as a universal query asking `query`. */
type ClassicRequest = Pick<
  QueryRequest,
  | 'using'
  | 'filter'
  | 'params'
  | 'scoreThreshold'
  | 'limit'
  | 'offset'
  | 'withPayload'
  | 'withVectors'
  | 'lookupFrom'
  | 'shardKeySelector'
  | 'timeout'
  | 'readConsistency'
>;

function universalQuery(request: ClassicRequest, query: QueryVariant): QueryRequest {
  return {
    prefetch: [],
    query,
    using: request.using,
    filter: request.filter,
    params: request.params,
    scoreThreshold: request.scoreThreshold,
    limit: request.limit,
    offset: request.offset,
    withPayload: request.withPayload,
    withVectors: request.withVectors,
    lookupFrom: request.lookupFrom,
    shardKeySelector: request.shardKeySelector,
    timeout: request.timeout,
    ...(request.readConsistency ? { readConsistency: request.readConsistency } : {}),
  };
}

/** Search: nearest to the given vector. */
export function searchQuery(request: SearchRequest): QueryRequest {
  return universalQuery(request, { nearest: { vector: request.vector } });
}

/** Recommend: example ids and vectors as one recommend input; at least one positive example. */
export function recommendQuery(request: RecommendRequest): QueryRequest {
  const input: RecommendInput = {
    positive: [
      ...request.positive.map((pointId) => ({ pointId })),
      ...request.positiveVectors.map((vector) => ({ vector })),
    ],
    negative: [
      ...request.negative.map((pointId) => ({ pointId })),
      ...request.negativeVectors.map((vector) => ({ vector })),
    ],
    strategy: request.strategy,
  };
  if (input.positive.length === 0 && (request.strategy === 'AverageVector' || input.negative.length === 0)) {
    throw DomainError.validation(['positive: At least one positive example is required']);
  }
  return universalQuery(request, { recommend: input });
}

/** Discover: a discover query with a target, a context query without; one of the two must be given. */
export function discoverQuery(request: DiscoverRequest): QueryRequest {
  if (!request.target && request.context.length === 0) {
    throw DomainError.invalidArgument('Bad request: target and/or context_pairs must be specified');
  }
  return universalQuery(
    request,
    request.target ? { discover: { target: request.target, context: request.context } } : { context: request.context },
  );
}

/** Multiplies every prefetch limit (default 10) by `factor`, as Qdrant does for grouped queries. */
export function growPrefetchLimits(stage: PrefetchQuery, factor: number): PrefetchQuery {
  const grow = (p: PrefetchQuery): PrefetchQuery => ({
    ...p,
    limit: boundedProduct(p.limit ?? DEFAULT_PREFETCH_LIMIT, factor),
    prefetch: p.prefetch.map(grow),
  });
  return { ...stage, prefetch: stage.prefetch.map(grow) };
}

/** a × b, held to the largest exact integer (huge limits times group sizes must stay integers). */
export function boundedProduct(a: number, b: number): number {
  return Math.min(a * b, Number.MAX_SAFE_INTEGER);
}

/** Both filters must hold. */
export function mergeFilters(a: Filter | undefined, b: Filter | undefined): Filter | undefined {
  if (!a) return b;
  if (!b) return a;
  return { must: [{ filter: a }, { filter: b }] };
}
