import { CollectionConfig, StrictModeConfig } from '@vectorstore/collections';
import { DomainError } from '@vectorstore/common';
import { countConditions, maxConditionSize } from '../filter/filter-validation';
import { Condition, FieldCondition, Filter } from '../model/filter.model';
import { PointId } from '../model/point-id.model';
import {
  ContextPair,
  LookupLocation,
  PrefetchQuery,
  QueryRequest,
  SearchParams,
  VectorInput,
} from '../model/query.model';
import { Vector } from '../model/vectors.model';
import { Expression } from '../model/formula.model';
import { expressionInputs } from './formula';
import { FieldIndexSchema } from '../storage/local-shard/field-index-schema';

export interface ReadLimits {
  limit?: number;
  timeout?: number;
  filter?: Filter;
  params?: SearchParams;
}

export interface WriteLimits {
  timeout?: number;
  filter?: Filter;
  /** Points in an upsert (or vector update) batch. */
  batchSize?: number;
  /** What Qdrant calls the batch in its message: `upsert limit` or `update limit`. */
  batchName?: string;
}

/** Qdrant's `check_limit_opt`: `Limit exceeded {value} > {limit} for "{name}"`. */
function limitExceeded(value: number, limit: number, name: string): DomainError {
  return strictModeError(
    `Limit exceeded ${value} > ${limit} for "${name}"`,
    `Reduce the "${name}" parameter to or below ${limit}.`,
  );
}

/**
 * Enforces a collection's strict mode. Every check is a no-op unless strict mode is enabled.
 * `indexSchemaOf` gives a payload key's index, for the unindexed-filtering rules.
 */
export class StrictModeGuard {
  private readonly buckets = new Map<string, TokenBucket>();

  checkRead(
    collection: string,
    strict: StrictModeConfig | undefined,
    limits: ReadLimits,
    indexSchemaOf: (key: string) => FieldIndexSchema | undefined,
  ): void {
    if (!strict?.enabled) return;
    if (strict.maxQueryLimit !== undefined && limits.limit !== undefined && limits.limit > strict.maxQueryLimit) {
      throw limitExceeded(limits.limit, strict.maxQueryLimit, 'limit');
    }
    this.checkTimeout(strict, limits.timeout);
    const params = limits.params;
    if (
      strict.searchMaxHnswEf !== undefined &&
      params?.hnswEf !== undefined &&
      params.hnswEf > strict.searchMaxHnswEf
    ) {
      throw limitExceeded(params.hnswEf, strict.searchMaxHnswEf, 'hnsw_ef');
    }
    if (strict.searchAllowExact === false && params?.exact === true) {
      throw strictModeError('Exact search disabled!', 'Set exact=false.');
    }
    const oversampling = params?.quantization?.oversampling;
    if (
      strict.searchMaxOversampling !== undefined &&
      oversampling !== undefined &&
      oversampling > strict.searchMaxOversampling
    ) {
      throw limitExceeded(oversampling, strict.searchMaxOversampling, 'oversampling');
    }
    this.checkFilter(strict, limits.filter, strict.unindexedFilteringRetrieve, indexSchemaOf);
    // The IDF corpus filter is read like a search filter (Qdrant's `indexed_filter_read`).
    const idf = params?.idf;
    if (idf !== undefined && idf !== 'global') {
      this.checkFilter(strict, idf.corpus, strict.unindexedFilteringRetrieve, indexSchemaOf);
    }
  }

  checkWrite(
    collection: string,
    strict: StrictModeConfig | undefined,
    limits: WriteLimits,
    indexSchemaOf: (key: string) => FieldIndexSchema | undefined,
  ): void {
    if (!strict?.enabled) return;
    this.checkTimeout(strict, limits.timeout);
    if (
      strict.upsertMaxBatchsize !== undefined &&
      limits.batchSize !== undefined &&
      limits.batchSize > strict.upsertMaxBatchsize
    ) {
      throw limitExceeded(limits.batchSize, strict.upsertMaxBatchsize, limits.batchName ?? 'upsert limit');
    }
    this.checkFilter(strict, limits.filter, strict.unindexedFilteringUpdate, indexSchemaOf);
  }

  /**
   * Storage-size limits, checked before a write that adds data: as in Qdrant, against what the
   * collection holds now (a limit reached refuses the next write).
   */
  checkCapacity(
    strict: StrictModeConfig | undefined,
    usage: { points: number; vectorBytes: number; payloadBytes: number },
  ): void {
    if (!strict?.enabled) return;
    const mb = (bytes: number): string => String(Math.fround(bytes / (1024 * 1024)));
    if (strict.maxCollectionVectorSizeBytes !== undefined && usage.vectorBytes >= strict.maxCollectionVectorSizeBytes) {
      throw DomainError.invalidArgument(
        `Bad request: Max vector storage size limit of ${mb(strict.maxCollectionVectorSizeBytes)}MB reached!`,
      );
    }
    if (
      strict.maxCollectionPayloadSizeBytes !== undefined &&
      usage.payloadBytes >= strict.maxCollectionPayloadSizeBytes
    ) {
      throw DomainError.invalidArgument(
        `Bad request: Max payload storage size limit of ${mb(strict.maxCollectionPayloadSizeBytes)}MB reached!`,
      );
    }
    if (strict.maxPointsCount !== undefined && usage.points >= strict.maxPointsCount) {
      throw DomainError.invalidArgument(`Bad request: Max points count limit of ${strict.maxPointsCount} reached!`);
    }
  }

  /** `max_payload_index_count`, checked before an index is created on a field that has none. */
  checkPayloadIndexCount(strict: StrictModeConfig | undefined, existing: number): void {
    if (!strict?.enabled || strict.maxPayloadIndexCount === undefined) return;
    if (existing >= strict.maxPayloadIndexCount) {
      throw strictModeError(
        `Collection already has the maximum number of payload indices (${strict.maxPayloadIndexCount})`,
        'Please delete an existing index before creating a new one.',
      );
    }
  }

  /** Per-vector limits of strict mode (multivector size, sparse length), in Qdrant's words. */
  checkVectorLimits(strict: StrictModeConfig | undefined, name: string, kind: 'multi' | 'sparse', size: number): void {
    if (!strict?.enabled) return;
    if (kind === 'multi') {
      const max = strict.multivectorConfig?.[name]?.maxVectors;
      if (max !== undefined && size > max)
        throw DomainError.invalidArgument(
          `Bad request: Multivector '${name}' has a limit of ${max} vectors, but ${size} were provided!`,
        );
    } else {
      const max = strict.sparseConfig?.[name]?.maxLength;
      if (max !== undefined && size > max)
        throw DomainError.invalidArgument(
          `Bad request: Sparse vector '${name}' has a limit of ${max} indices, but ${size} were provided!`,
        );
    }
  }

  private checkTimeout(strict: StrictModeConfig, timeout: number | undefined): void {
    if (strict.maxTimeout !== undefined && timeout !== undefined && timeout > strict.maxTimeout) {
      throw limitExceeded(timeout, strict.maxTimeout, 'timeout');
    }
  }

  private checkFilter(
    strict: StrictModeConfig,
    filter: Filter | undefined,
    allowUnindexed: boolean | undefined,
    indexSchemaOf: (key: string) => FieldIndexSchema | undefined,
  ): void {
    if (!filter) return;
    if (strict.filterMaxConditions !== undefined) {
      const count = countConditions(filter);
      if (count > strict.filterMaxConditions) {
        throw strictModeError(
          `Filter condition limit reached (${count} > ${strict.filterMaxConditions})`,
          'Reduce the amount of conditions of your filter.',
        );
      }
    }
    if (strict.conditionMaxSize !== undefined) {
      const size = maxConditionSize(filter);
      if (size > strict.conditionMaxSize)
        throw strictModeError(
          `Condition size limit reached (${size} > ${strict.conditionMaxSize})`,
          'Reduce the size of your condition.',
        );
    }
    if (allowUnindexed === false) {
      const unserved = unservedCondition(filter, indexSchemaOf);
      if (unserved) {
        throw strictModeError(
          `Index required but not found for "${unserved.key}" of one of the following types: [${unserved.types.join(', ')}]`,
          'Create an index for this key or use a different filter.',
        );
      }
    }
  }

  /**
   * Charges a read costing `cost` tokens to the collection's `read_rate_limit` bucket (see {@link TokenBucket}).
   * Buckets are per collection id: a collection deleted and created again under its name starts full.
   */
  chargeRead(collection: string, strict: StrictModeConfig | undefined, cost: number): void {
    if (strict?.enabled && strict.readRateLimit !== undefined)
      this.charge('Read', collection, strict.readRateLimit, cost);
  }

  /** Charges a write (one operation of a batch) costing `cost` tokens to `write_rate_limit`. */
  chargeWrite(collection: string, strict: StrictModeConfig | undefined, cost: number): void {
    if (strict?.enabled && strict.writeRateLimit !== undefined)
      this.charge('Write', collection, strict.writeRateLimit, cost);
  }

  private charge(kind: 'Read' | 'Write', collection: string, perMinute: number, cost: number): void {
    // A changed limit starts a new (full) bucket, as Qdrant makes a new limiter on a config change.
    const key = `${kind}\u0000${collection}\u0000${perMinute}`;
    let bucket = this.buckets.get(key);
    if (!bucket) {
      for (const other of this.buckets.keys())
        if (other.startsWith(`${kind}\u0000${collection}\u0000`)) this.buckets.delete(other);
      bucket = new TokenBucket(perMinute);
      this.buckets.set(key, bucket);
    }
    bucket.take(kind, cost);
  }
}

/**
 * Qdrant's rate limiter: a token bucket holding at most `perMinute` tokens, refilled at
 * `perMinute / 60` tokens a second, full at first. A request takes `cost` tokens; one costing more
 * than the bucket holds can never pass.
 */
export class TokenBucket {
  private tokens: number;
  private last = performance.now();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = perMinute;
    this.last = now();
  }

  take(kind: 'Read' | 'Write', cost: number): void {
    if (cost > this.perMinute) {
      throw DomainError.resourceExhausted(
        `Rate limiting exceeded: ${kind} rate limit exceeded, request larger than rate limiter capacity, please try to split your request`,
      );
    }
    const now = this.now();
    const perSecond = this.perMinute / 60;
    this.tokens = Math.min(this.perMinute, this.tokens + ((now - this.last) / 1000) * perSecond);
    this.last = now;
    if (this.tokens >= cost) {
      this.tokens -= cost;
      return;
    }
    const retryAfter = (cost - this.tokens) / perSecond;
    throw DomainError.resourceExhausted(
      `Rate limiting exceeded: ${kind} rate limit exceeded: Operation requires ${cost} tokens but only ${this.tokens.toFixed(1)} were available. Retry after ${Math.ceil(retryAfter)}s`,
      retryAfter,
    );
  }
}

/** Payload keys a filter tests (nested conditions give `parent[].child`). */
export function filterKeys(filter: Filter, prefix = ''): string[] {
  const keys: string[] = [];
  const visit = (condition: Condition) => {
    if ('field' in condition) keys.push(prefix + condition.field.key);
    else if ('isEmpty' in condition) keys.push(prefix + condition.isEmpty.key);
    else if ('isNull' in condition) keys.push(prefix + condition.isNull.key);
    else if ('nested' in condition)
      keys.push(...filterKeys(condition.nested.filter, `${prefix}${condition.nested.key}[].`));
    else if ('filter' in condition) keys.push(...filterKeys(condition.filter, prefix));
  };
  for (const c of [
    ...(filter.must ?? []),
    ...(filter.should ?? []),
    ...(filter.mustNot ?? []),
    ...(filter.minShould?.conditions ?? []),
  ])
    visit(c);
  return keys;
}

/**
 * Qdrant's full-scan rule: with `search_allow_exact: false`, a vector search on a dense vector whose
 * global graph is disabled (`hnsw_config.m = 0`) is refused unless it filters on a tenant index
 * (`is_tenant`) and the vector keeps payload-based links (`payload_m > 0`). Sparse vectors are
 * always indexed. Fusion, order_by, formula and sample queries do not search vectors.
 */
export function checkFullScan(
  config: CollectionConfig,
  using: string,
  filter: Filter | undefined,
  isTenantKey: (key: string) => boolean,
): void {
  const strict = config.strictModeConfig;
  if (!strict?.enabled || strict.searchAllowExact !== false) return;
  if (config.params.sparseVectors && using in config.params.sparseVectors) return;
  const vectors = config.params.vectors;
  const params = 'params' in vectors ? (using === '' ? vectors.params : undefined) : vectors.paramsMap[using];
  const m = params?.hnswConfig?.m ?? config.hnswConfig.m ?? 16;
  if (m > 0) return;
  const payloadM = params?.hnswConfig?.payloadM ?? config.hnswConfig.payloadM ?? m;
  const label = using === '' ? '' : ` on '${using}'`;
  const tenantFiltered = filter !== undefined && filterKeys(filter).some(isTenantKey);
  if (!tenantFiltered) {
    throw strictModeError(
      `Request is forbidden${label} because global vector indexing is disabled (hnsw_config.m = 0)`,
      'Use tenant-specific filter, enable global vector indexing or enable strict mode `search_allow_exact` option',
    );
  }
  if (payloadM === 0) {
    throw strictModeError(
      `Request is forbidden${label} because vector indexing is disabled (hnsw_config.m = 0 and hnsw_config.payload_m = 0)`,
      'Enable vector indexing, use a prefetch query with indexed vectors or enable strict mode `search_allow_exact` option',
    );
  }
}

/** Qdrant's strict-mode refusal: `<error>. Help: <solution>`, a 400. */
export function strictModeError(error: string, help: string): DomainError {
  return DomainError.invalidArgument(`Bad request: ${error}. Help: ${help}`);
}

/** Qdrant's rate cost of a filter: its conditions, nested ones included. */
export function filterRateCost(filter: Filter | undefined): number {
  return countConditions(filter);
}

/** Qdrant's rate cost of a query vector: similarity comparisons per point (sparse: per 64 indices). */
export function vectorRateCost(vector: Vector): number {
  if (vector.kind === 'dense') return 1;
  if (vector.kind === 'sparse') return Math.ceil(vector.indices.length / 64);
  return vector.vectors.length;
}

/** `search_max_batchsize`: searches in one batch request (Qdrant's "search batch size"). */
export function checkSearchBatchSize(strict: StrictModeConfig | undefined, size: number): void {
  if (!strict?.enabled || strict.searchMaxBatchsize === undefined || size <= strict.searchMaxBatchsize) return;
  throw limitExceeded(size, strict.searchMaxBatchsize, 'search batch size');
}

/** Index types whose values `match` can look up (what grouping needs, as Qdrant's `supports_match`). */
const MATCH_INDEX_TYPES = new Set(['Keyword', 'Integer', 'Uuid', 'Bool']);

/**
 * With `unindexed_filtering_retrieve: false`, grouping needs an index on the group_by key that
 * supports `match`, as Qdrant. `indexTypeOf` gives the key's index type, if any.
 */
export function checkGroupBy(
  strict: StrictModeConfig | undefined,
  groupBy: string,
  indexTypeOf: (key: string) => string | undefined,
): void {
  if (!strict?.enabled || strict.unindexedFilteringRetrieve !== false) return;
  const type = indexTypeOf(groupBy);
  if (type === undefined) {
    throw strictModeError(
      `Index required but not found for "${groupBy}"`,
      'Create an index supporting `match` for this key.',
    );
  }
  if (!MATCH_INDEX_TYPES.has(type)) {
    throw strictModeError(
      `Index of type "${type}" found for "${groupBy}"`,
      'Create an index supporting `match` for this key.',
    );
  }
}

/** The rate cost of a point given by id: reading it, and its stored vector's comparisons. */
export type IdRateCost = (id: PointId, using: string, lookup: LookupLocation | undefined) => number;

/**
 * Qdrant's rate cost of a universal query, summed over its stages: a vector search costs its query
 * vectors plus its filter's conditions; an order_by or sample scroll, or a leaf without a query,
 * 1 plus its filter's conditions; a fusion only its prefetches.
 */
export function queryRateCost(
  request: QueryRequest | PrefetchQuery,
  idCost: IdRateCost = () => 2,
  lookupFrom?: LookupLocation,
): number {
  const using = request.using ?? '';
  const lookup = request.lookupFrom ?? lookupFrom;
  const input = (given: VectorInput): number =>
    'vector' in given ? vectorRateCost(given.vector) : idCost(given.pointId, using, lookup);
  const pairs = (list: ContextPair[]): number =>
    list.reduce((sum, pair) => sum + input(pair.positive) + input(pair.negative), 0);
  const query = request.query;
  const filter = filterRateCost(request.filter);
  let own = 0;
  if (query === undefined) own = request.prefetch.length === 0 ? 1 + filter : 0;
  else if ('nearest' in query) own = input(query.nearest) + filter;
  else if ('recommend' in query) {
    own = [...query.recommend.positive, ...query.recommend.negative].reduce((sum, i) => sum + input(i), 0) + filter;
  } else if ('discover' in query) own = input(query.discover.target) + pairs(query.discover.context) + filter;
  else if ('context' in query) own = pairs(query.context) + filter;
  else if ('relevanceFeedback' in query) {
    const r = query.relevanceFeedback;
    own = input(r.target) + r.feedback.reduce((sum, item) => sum + input(item.example), 0) + filter;
  } else if ('orderBy' in query || 'sample' in query) own = 1 + filter;
  return own + request.prefetch.reduce((sum, prefetch) => sum + queryRateCost(prefetch, idCost, lookup), 0);
}

/** The index types that can answer a condition (Qdrant's lists, for the message), and whether `schema` can. */
function servingTypes(condition: FieldCondition): { types: string[]; serves: (schema: FieldIndexSchema) => boolean } {
  const params = (schema: FieldIndexSchema): Record<string, unknown> =>
    (schema.params ? Object.values(schema.params)[0] : {}) as Record<string, unknown>;
  const match = condition.match;
  if (match) {
    if ('integer' in match || 'integers' in match || 'exceptIntegers' in match) {
      return { types: ['integer'], serves: (s) => s.type === 'Integer' && params(s).lookup !== false };
    }
    if ('boolean' in match) return { types: ['bool'], serves: (s) => s.type === 'Bool' };
    if ('text' in match || 'textAny' in match) return { types: ['text'], serves: (s) => s.type === 'Text' };
    if ('phrase' in match) {
      return { types: ['text'], serves: (s) => s.type === 'Text' && params(s).phraseMatching === true };
    }
    if ('prefix' in match)
      return { types: ['keyword'], serves: (s) => s.type === 'Keyword' && params(s).prefix === true };
    const values = 'keywords' in match ? match.keywords : 'exceptKeywords' in match ? match.exceptKeywords : undefined;
    if (values?.length === 0) {
      // An empty any/except list has no type of its own: any index that looks values up serves it.
      return {
        types: ['integer', 'keyword', 'uuid'],
        serves: (s) =>
          s.type === 'Keyword' || s.type === 'Uuid' || (s.type === 'Integer' && params(s).lookup !== false),
      };
    }
    return { types: ['keyword', 'uuid'], serves: (s) => s.type === 'Keyword' || s.type === 'Uuid' };
  }
  if (condition.range) {
    return {
      types: ['float', 'integer'],
      serves: (s) => s.type === 'Float' || (s.type === 'Integer' && params(s).range !== false),
    };
  }
  if (condition.datetimeRange) return { types: ['datetime'], serves: (s) => s.type === 'Datetime' };
  if (condition.geoBoundingBox || condition.geoRadius || condition.geoPolygon) {
    return { types: ['geo'], serves: (s) => s.type === 'Geo' };
  }
  // values_count, is_empty, is_null: any index on the key.
  return { types: ['bool', 'datetime', 'float', 'geo', 'integer', 'keyword', 'text', 'uuid'], serves: () => true };
}

/** The first condition of `filter` no index of its key can answer, with the index types that could. */
export function unservedCondition(
  filter: Filter,
  indexSchemaOf: (key: string) => FieldIndexSchema | undefined,
  prefix = '',
): { key: string; types: string[] } | undefined {
  const visit = (condition: Condition): { key: string; types: string[] } | undefined => {
    if ('field' in condition) {
      const key = prefix + condition.field.key;
      const { types, serves } = servingTypes(condition.field);
      const schema = indexSchemaOf(key);
      return schema && serves(schema) ? undefined : { key, types };
    }
    if ('isEmpty' in condition || 'isNull' in condition) {
      const key = prefix + ('isEmpty' in condition ? condition.isEmpty.key : condition.isNull.key);
      return indexSchemaOf(key) ? undefined : { key, types: servingTypes({ key }).types };
    }
    if ('nested' in condition)
      return unservedCondition(condition.nested.filter, indexSchemaOf, `${prefix}${condition.nested.key}[].`);
    if ('filter' in condition) return unservedCondition(condition.filter, indexSchemaOf, prefix);
    return undefined;
  };
  for (const condition of [
    ...(filter.must ?? []),
    ...(filter.should ?? []),
    ...(filter.mustNot ?? []),
    ...(filter.minShould?.conditions ?? []),
  ]) {
    const found = visit(condition);
    if (found) return found;
  }
  return undefined;
}

/**
 * With `unindexed_filtering_retrieve: false`, every payload key a formula reads and every condition
 * it tests needs an index that serves it, as Qdrant (defaults do not lift the rule).
 */
export function checkFormulaIndexes(
  strict: StrictModeConfig | undefined,
  expression: Expression,
  indexSchemaOf: (key: string) => FieldIndexSchema | undefined,
): void {
  if (!strict?.enabled || strict.unindexedFilteringRetrieve !== false) return;
  const { keys, conditions } = expressionInputs(expression);
  const numeric = keys.find((key) => {
    const type = indexSchemaOf(key)?.type;
    return type !== 'Integer' && type !== 'Float' && type !== 'Datetime' && type !== 'Geo';
  });
  const unserved =
    numeric !== undefined
      ? { key: numeric, types: ['float', 'integer'] }
      : unservedCondition({ must: conditions }, indexSchemaOf);
  if (unserved) {
    throw strictModeError(
      `Index required but not found for "${unserved.key}" of one of the following types: [${unserved.types.join(', ')}]`,
      'Create an index for this key or use a different formula expression.',
    );
  }
}
