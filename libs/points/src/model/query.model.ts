import { Filter } from './filter.model';
import { PointId } from './point-id.model';
import { RetrievedPoint, ScoredPoint } from './point.model';
import { PayloadSelector, ShardKeySelector, VectorSelector } from './selectors.model';
import { Vector } from './vectors.model';
import type { FormulaQuery } from './formula.model';

export interface QuantizationSearchParams {
  ignore?: boolean;
  rescore?: boolean;
  oversampling?: number;
}

export interface SearchParams {
  hnswEf?: number;
  exact?: boolean;
  quantization?: QuantizationSearchParams;
  indexedOnly?: boolean;
  /**
   * Where a sparse `idf` vector takes its IDF statistics: every point of the shard (`global`, the
   * default), or the points a filter selects (`corpus`, Qdrant 1.19).
   */
  idf?: 'global' | { corpus: Filter };
}

/** Qdrant's MMR parameters: `diversity` 0..1 (default 0.5), candidates to re-rank (default the limit). */
export interface Mmr {
  diversity?: number;
  candidatesLimit?: number;
}

/** What a nearest-neighbour query compares with: a vector, or the stored vector of a point. */
export type VectorInput = { vector: Vector } | { pointId: PointId };

export type Direction = 'Asc' | 'Desc';

/**
 * How many replicas of each shard must answer a read (cluster mode; a single server satisfies every
 * level). As Qdrant: all readable replicas, a majority of them, a quorum of all replicas, or a number.
 */
export type ReadConsistency = { type: 'All' | 'Majority' | 'Quorum' } | { factor: number };

export type StartFrom = { float: number } | { integer: bigint } | { datetime: number };

export interface OrderBy {
  key: string;
  direction?: Direction;
  startFrom?: StartFrom;
}

export type RecommendStrategy = 'AverageVector' | 'BestScore' | 'SumScores';

export interface RecommendInput {
  positive: VectorInput[];
  negative: VectorInput[];
  strategy?: RecommendStrategy;
}

/** Two examples: results should lie closer to `positive` than to `negative` (discovery / context search). */
export interface ContextPair {
  positive: VectorInput;
  negative: VectorInput;
}

/**
 * Qdrant's relevance feedback (naive strategy): a point scores `a * sim(target)` plus, for every two
 * feedback examples whose scores differ, `(score difference)^b * c * (sim(higher) - sim(lower))`.
 */
export interface RelevanceFeedbackInput {
  target: VectorInput;
  feedback: Array<{ example: VectorInput; score: number }>;
  naive: { a: number; b: number; c: number };
}

/** Discovery: rank by the context pairs first, then by similarity to `target`. */
export interface DiscoverInput {
  target: VectorInput;
  context: ContextPair[];
}

export interface LookupLocation {
  collectionName: string;
  vectorName?: string;
}

/** What scores (or orders) the candidates of a query stage. */
export type QueryVariant =
  /** Nearest neighbours; with `mmr`, re-ranked by Maximal Marginal Relevance (see query-engine mmrSelect). */
  | { nearest: VectorInput; mmr?: Mmr }
  | { recommend: RecommendInput }
  | { discover: DiscoverInput }
  /** Context search: points inside the positive side of every pair score 0, others less. */
  | { context: ContextPair[] }
  | { relevanceFeedback: RelevanceFeedbackInput }
  /** Score boosting: a formula over the prefetches' scores and payload values (service/formula.ts). */
  | { formula: FormulaQuery }
  | { fusion: 'RRF' | 'DBSF' }
  | { rrf: { k?: number; weights?: number[] } }
  | { orderBy: OrderBy }
  | { sample: 'Random' };

/** A stage whose results feed the enclosing query. */
export interface PrefetchQuery {
  prefetch: PrefetchQuery[];
  query?: QueryVariant;
  using?: string;
  filter?: Filter;
  params?: SearchParams;
  scoreThreshold?: number;
  limit?: number;
  lookupFrom?: LookupLocation;
}

/** The universal query (Qdrant's QueryPoints). */
export interface QueryRequest {
  prefetch: PrefetchQuery[];
  query?: QueryVariant;
  using?: string;
  filter?: Filter;
  params?: SearchParams;
  scoreThreshold?: number;
  limit: number;
  offset: number;
  withPayload: PayloadSelector;
  withVectors: VectorSelector;
  shardKeySelector?: ShardKeySelector;
  lookupFrom?: LookupLocation;
  timeout?: number;
  /** Cluster mode: how many replicas of each shard must answer. */
  readConsistency?: ReadConsistency;
}

/** Classic nearest-neighbour search (Qdrant's SearchPoints). */
export interface SearchRequest {
  vector: Vector;
  using: string;
  filter?: Filter;
  limit: number;
  offset: number;
  scoreThreshold?: number;
  params?: SearchParams;
  withPayload: PayloadSelector;
  withVectors: VectorSelector;
  shardKeySelector?: ShardKeySelector;
  timeout?: number;
  /** Cluster mode: how many replicas of each shard must answer. */
  readConsistency?: ReadConsistency;
}

export interface RecommendRequest {
  positive: PointId[];
  negative: PointId[];
  positiveVectors: Vector[];
  negativeVectors: Vector[];
  strategy: RecommendStrategy;
  using: string;
  filter?: Filter;
  limit: number;
  offset: number;
  scoreThreshold?: number;
  params?: SearchParams;
  withPayload: PayloadSelector;
  withVectors: VectorSelector;
  lookupFrom?: LookupLocation;
  shardKeySelector?: ShardKeySelector;
  timeout?: number;
  /** Cluster mode: how many replicas of each shard must answer. */
  readConsistency?: ReadConsistency;
}

/** Discover (Qdrant's DiscoverPoints): a target and/or context pairs; without a target it is a context search. */
export interface DiscoverRequest {
  target?: VectorInput;
  context: ContextPair[];
  using: string;
  filter?: Filter;
  limit: number;
  offset: number;
  params?: SearchParams;
  withPayload: PayloadSelector;
  withVectors: VectorSelector;
  lookupFrom?: LookupLocation;
  shardKeySelector?: ShardKeySelector;
  timeout?: number;
  /** Cluster mode: how many replicas of each shard must answer. */
  readConsistency?: ReadConsistency;
}

/** The value of a `group_by` payload key that names a group: a keyword or an integer. */
export type GroupId = string | bigint;

/** Attach to each group the point of another collection whose id is the group id. */
export interface WithLookup {
  collectionName: string;
  withPayload: PayloadSelector;
  withVectors: VectorSelector;
}

/**
 * SearchGroups, RecommendGroups and QueryGroups: `source` is the single-result request (its limit
 * and offset are ignored); hits are grouped by the values at `groupBy`.
 */
export interface GroupsRequest<T> {
  source: T;
  groupBy: string;
  /** Hits per group, at least 1. */
  groupSize: number;
  /** Number of groups, at least 1. */
  limit: number;
  withLookup?: WithLookup;
}

export interface PointGroup {
  id: GroupId;
  /** Best first. */
  hits: ScoredPoint[];
  lookup?: RetrievedPoint;
}

export interface ScrollRequest {
  filter?: Filter;
  offset?: PointId;
  limit: number;
  withPayload: PayloadSelector;
  withVectors: VectorSelector;
  orderBy?: OrderBy;
  shardKeySelector?: ShardKeySelector;
  timeout?: number;
  /** Cluster mode: how many replicas of each shard must answer. */
  readConsistency?: ReadConsistency;
}

export interface CountRequest {
  filter?: Filter;
  exact: boolean;
  shardKeySelector?: ShardKeySelector;
  timeout?: number;
  /** Cluster mode: how many replicas of each shard must answer. */
  readConsistency?: ReadConsistency;
}

export interface GetRequest {
  ids: PointId[];
  withPayload: PayloadSelector;
  withVectors: VectorSelector;
  shardKeySelector?: ShardKeySelector;
  timeout?: number;
  /** Cluster mode: how many replicas of each shard must answer. */
  readConsistency?: ReadConsistency;
}

export interface FacetRequest {
  key: string;
  filter?: Filter;
  limit: number;
  exact: boolean;
  shardKeySelector?: ShardKeySelector;
  timeout?: number;
  /** Cluster mode: how many replicas of each shard must answer. */
  readConsistency?: ReadConsistency;
}

export type FacetValue = { keyword: string } | { integer: bigint } | { bool: boolean };

export interface FacetHit {
  value: FacetValue;
  count: number;
}
