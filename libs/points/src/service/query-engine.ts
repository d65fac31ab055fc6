import { Injectable } from '@nestjs/common';
import { DomainError, ErrorKind, ValidationIssues } from '@vectorstore/common';
import { validateFilter } from '../filter/filter-validation';
import { Filter } from '../model/filter.model';
import { comparePointIds, PointId, pointIdKey } from '../model/point-id.model';
import { RetrievedPoint, ScoredPoint } from '../model/point.model';
import {
  ContextPair,
  DiscoverInput,
  DiscoverRequest,
  GroupId,
  GroupsRequest,
  LookupLocation,
  PointGroup,
  PrefetchQuery,
  QueryRequest,
  QueryVariant,
  RecommendInput,
  RelevanceFeedbackInput,
  RecommendRequest,
  SearchParams,
  SearchRequest,
  VectorInput,
  WithLookup,
} from '../model/query.model';
import { ShardKeySelector } from '../model/selectors.model';
import { DEFAULT_VECTOR_NAME, Vector } from '../model/vectors.model';
import { requireSpace, spaceHigherIsBetter, VectorSpace } from '../storage/vector-space';
import { Candidate } from './candidate';
import { CollectionContext, CollectionContexts } from './collection-context';
import { referencedIdsOf, rawSimilarity, scoreContextQuery } from './discovery';
import { dbsf, rrf } from './fusion';
import { collectGroups, groupPointId } from './grouping';
import { mmrPickItems } from './mmr';
import { retrievedPoint, scoredPoint } from './point-materializer';
import { orderedPoints, PointsReader } from './points-reader';
import {
  checkFormulaIndexes,
  checkFullScan,
  checkGroupBy,
  checkSearchBatchSize,
  queryRateCost,
  vectorRateCost,
} from './strict-mode';
import { scoreByFormula } from './formula';
import {
  boundedProduct,
  DEFAULT_PREFETCH_LIMIT,
  discoverQuery,
  growPrefetchLimits,
  mergeFilters,
  recommendQuery,
  searchQuery,
} from './query-requests';
import { asSpaceKind, checkVector, throwVectorIssues } from './vector-validation';

/** Qdrant's default RRF constant: score = sum of 1 / (k + rank), rank from 0. */
export const DEFAULT_RRF_K = 2;

/** How a query's results are ordered, so that result lists over different shards can be merged. */
export type ResultOrder =
  | { by: 'score'; higherIsBetter: boolean }
  | { by: 'orderValue'; direction: 'Asc' | 'Desc' }
  | { by: 'id' }
  | { by: 'random' };

/**
 * Similarity queries: Search, Recommend, Discover, the universal Query (prefetch stages, fusion,
 * rescoring, order_by, sampling) and their grouped forms. Evaluation is synchronous, so point
 * locations stay valid; `queryAsync` searches on worker threads and checks its hits when they settle.
 */
@Injectable()
export class QueryEngine {
  constructor(
    private readonly contexts: CollectionContexts,
    private readonly reader: PointsReader,
  ) {}

  /**
   * Several requests of one kind against one collection (SearchBatch, QueryBatch, ...): the
   * collection must exist even when the batch is empty.
   */
  batch<R>(
    collectionName: string,
    requests: readonly R[],
    run: (collectionName: string, request: R) => ScoredPoint[],
  ): ScoredPoint[][] {
    this.checkBatch(collectionName, requests.length);
    return requests.map((request) => run.call(this, collectionName, request));
  }

  /** A batch's own checks: the collection exists, and strict mode's batch size. */
  checkBatch(collectionName: string, size: number): void {
    const context = this.contexts.resolve(collectionName);
    checkSearchBatchSize(context.record.config.strictModeConfig, size);
  }

  search(collectionName: string, request: SearchRequest): ScoredPoint[] {
    return this.query(collectionName, searchQuery(request));
  }

  recommend(collectionName: string, request: RecommendRequest): ScoredPoint[] {
    return this.query(collectionName, recommendQuery(request));
  }

  /** Discovery (with a target) or context search (without); example points are not returned. */
  discover(collectionName: string, request: DiscoverRequest): ScoredPoint[] {
    this.contexts.resolve(collectionName);
    return this.query(collectionName, discoverQuery(request));
  }

  query(collectionName: string, request: QueryRequest): ScoredPoint[] {
    const context = this.contexts.resolve(collectionName);
    this.checkRequest(context, request);
    const stage = this.rootStage(context, request, request.limit + request.offset);
    this.chargeRead(context, stage, request.lookupFrom);
    const candidates = this.evaluate(context, stage, request.shardKeySelector, request.lookupFrom);
    return candidates
      .slice(request.offset, request.offset + request.limit)
      .map((c) => scoredPoint(c.location, c.score, request.withPayload, request.withVectors, c.orderValue));
  }

  /**
   * `query`, with the searches that gain from it off the event loop: a plain nearest search of a dense vector
   * (no prefetch, no MMR) searches graph-indexed segments on engine worker threads, so both cores serve reads.
   * Everything else, and every check and error, is as in `query`. Hits are checked against the shards once
   * the searches settle (see SettledHits): a point deleted meanwhile is left out, one moved is read where it
   * is now; never one deleted before the query started.
   */
  async queryAsync(collectionName: string, request: QueryRequest): Promise<ScoredPoint[]> {
    const context = this.contexts.resolve(collectionName);
    const query = request.query;
    const using = request.using ?? DEFAULT_VECTOR_NAME;
    const plainNearest = query !== undefined && 'nearest' in query && !query.mmr && request.prefetch.length === 0;
    if (!plainNearest || context.storage.spaces.get(using)?.kind !== 'dense')
      return this.query(collectionName, request);
    this.checkRequest(context, request);
    const stage = this.rootStage(context, request, request.limit + request.offset);
    this.chargeRead(context, stage, request.lookupFrom);
    // as evaluate() does for this stage
    const space = requireSpace(context.storage.spaces, using);
    const higher = spaceHigherIsBetter(space);
    const lookup = stage.lookupFrom ?? request.lookupFrom;
    const vector = this.resolveVector(context, query.nearest, space, lookup, 'query.nearest');
    const limit = stage.limit ?? DEFAULT_PREFETCH_LIMIT;
    const handles = context.readShards(request.shardKeySelector);
    const settled = await Promise.all(
      handles.map((handle) => handle.shard.searchAsync(using, vector, limit, stage.filter, stage.params, higher)),
    );
    // From here on synchronous: the hits are checked and read with no write in between. A collection
    // dropped (or dropped and created again) while the search ran is answered as gone.
    if (this.contexts.resolve(collectionName).record.id !== context.record.id)
      throw DomainError.notFound(`Not found: Collection \`${collectionName}\` doesn't exist!`);
    const result: Candidate[] = [];
    settled.forEach((hits, i) => {
      for (const hit of hits.current()) {
        const location = { segment: hit.segment, slot: hit.slot, shardKey: handles[i].shardKey };
        result.push({ key: pointIdKey(hit.segment.pointId(hit.slot)), location, score: hit.score });
      }
    });
    const candidates = applyThreshold(result.sort(higher ? byScoreDesc : byScoreAsc), stage.scoreThreshold, higher);
    return candidates
      .slice(0, limit)
      .slice(request.offset, request.offset + request.limit)
      .map((c) => scoredPoint(c.location, c.score, request.withPayload, request.withVectors, c.orderValue));
  }

  /**
   * A query's admission, as `query` does before it runs (cluster mode: at the coordinator, whose parts
   * then run without strict mode): the request's rules and limits checked, its rate cost charged.
   */
  admit(collectionName: string, request: QueryRequest): void {
    const context = this.contexts.resolve(collectionName);
    this.checkRequest(context, request);
    this.chargeRead(context, this.rootStage(context, request, request.limit + request.offset), request.lookupFrom);
  }

  /** A grouped query's admission (cluster mode: at the coordinator), as `groups` does before it runs. */
  admitGroups(collectionName: string, source: QueryRequest, request: GroupsRequest<unknown>): void {
    const context = this.contexts.resolve(collectionName);
    this.checkRequest(context, { ...source, limit: boundedProduct(request.limit, request.groupSize) });
    checkGroupBy(
      context.record.config.strictModeConfig,
      request.groupBy,
      (key) => [...context.storage.shards.values()][0]?.shard.fieldIndexes.get(key)?.type,
    );
    this.chargeRead(
      context,
      this.rootStage(context, source, boundedProduct(request.limit, request.groupSize)),
      source.lookupFrom,
    );
  }

  /**
   * A query's root MMR over candidates merged from several peers (cluster mode): `candidates` are the
   * root's nearest hits, best first, each carrying its `using` vector (the root's examples resolved to
   * vectors already); the picked ones keep their query scores, in the order picked, at most `limit`.
   * The same pick as one server's (mmrSelect).
   */
  diversify(collectionName: string, request: QueryRequest, candidates: ScoredPoint[], limit: number): ScoredPoint[] {
    const query = request.query;
    if (!query || !('nearest' in query) || !query.mmr) return candidates.slice(0, limit);
    const context = this.contexts.resolve(collectionName);
    const using = request.using ?? DEFAULT_VECTOR_NAME;
    const space = requireSpace(context.storage.spaces, using);
    const vector = this.resolveVector(context, query.nearest, space, undefined, 'query.nearest');
    return mmrPickItems(
      space,
      vector,
      candidates,
      (point) => point.vectors?.[using],
      1 - (query.mmr.diversity ?? 0.5),
      limit,
    );
  }

  /** How the results of `request` are ordered, so that answers over different shards can be merged. */
  resultOrder(collectionName: string, request: QueryRequest): ResultOrder {
    const query = request.query;
    if (query && 'orderBy' in query) return { by: 'orderValue', direction: query.orderBy.direction ?? 'Asc' };
    if (query && 'sample' in query) return { by: 'random' };
    if (!query && request.prefetch.length === 0) return { by: 'id' };
    return { by: 'score', higherIsBetter: this.higherIsBetter(this.contexts.resolve(collectionName), request) };
  }

  searchGroups(collectionName: string, request: GroupsRequest<SearchRequest>): PointGroup[] {
    return this.groups(collectionName, searchQuery(request.source), request);
  }

  recommendGroups(collectionName: string, request: GroupsRequest<RecommendRequest>): PointGroup[] {
    return this.groups(collectionName, recommendQuery(request.source), request);
  }

  queryGroups(collectionName: string, request: GroupsRequest<QueryRequest>): PointGroup[] {
    return this.groups(collectionName, request.source, request);
  }

  private isSameCollection(lookup: LookupLocation, context: CollectionContext): boolean {
    return this.resolveLookup(lookup.collectionName).record.id === context.record.id;
  }

  /**
   * The root stage of a query, asking for `limit` candidates. Points the query uses as inputs by id
   * are excluded from the results, as Qdrant does (not when looked up in another collection).
   */
  private rootStage(context: CollectionContext, request: QueryRequest, limit: number): PrefetchQuery {
    const ids = referencedIdsOf(request, (lookup) => !lookup || this.isSameCollection(lookup, context));
    const exclude: Filter | undefined = ids.length > 0 ? { mustNot: [{ hasId: ids }] } : undefined;
    return { ...request, filter: mergeFilters(request.filter, exclude), limit };
  }

  /**
   * A grouped query: rounds of `limit * groupSize` hits (prefetch limits grown by `limit`), each
   * excluding what earlier rounds found, until the best groups are full or the rounds run out.
   */
  private groups(collectionName: string, source: QueryRequest, request: GroupsRequest<unknown>): PointGroup[] {
    const context = this.contexts.resolve(collectionName);
    // Strict mode limits a grouped query by the points it may return: limit × group_size, as Qdrant.
    this.checkRequest(context, { ...source, limit: boundedProduct(request.limit, request.groupSize) });
    checkGroupBy(
      context.record.config.strictModeConfig,
      request.groupBy,
      (key) => [...context.storage.shards.values()][0]?.shard.fieldIndexes.get(key)?.type,
    );
    const lookup = request.withLookup ? this.resolveLookup(request.withLookup.collectionName) : undefined;
    const root = this.rootStage(context, source, boundedProduct(request.limit, request.groupSize));
    this.chargeRead(context, root, source.lookupFrom);
    const stage = growPrefetchLimits(root, request.limit);
    const groups = collectGroups(
      {
        groupBy: request.groupBy,
        groupSize: request.groupSize,
        limit: request.limit,
        higherIsBetter: this.higherIsBetter(context, source),
      },
      (extra) =>
        this.evaluate(
          context,
          { ...stage, filter: mergeFilters(stage.filter, extra) },
          source.shardKeySelector,
          source.lookupFrom,
        ),
      (hit) => hit.location.segment.payload(hit.location.slot),
    );
    return groups.map((group) => {
      const result: PointGroup = {
        id: group.id,
        hits: group.hits.map((c) =>
          scoredPoint(c.location, c.score, source.withPayload, source.withVectors, c.orderValue),
        ),
      };
      const found = lookup && request.withLookup && this.lookupPoint(lookup, group.id, request.withLookup);
      if (found) result.lookup = found;
      return result;
    });
  }

  /** A collection named by `lookup_from` or `with_lookup`; Qdrant words a missing one differently. */
  private resolveLookup(name: string): CollectionContext {
    try {
      return this.contexts.resolve(name);
    } catch (error) {
      if (error instanceof DomainError && error.kind === ErrorKind.NotFound) {
        throw DomainError.notFound(`Not found: Collection ${name} not found`);
      }
      throw error;
    }
  }

  /** The point of the lookup collection whose id is the group id, if the id can be a point id. */
  private lookupPoint(lookup: CollectionContext, id: GroupId, withLookup: WithLookup): RetrievedPoint | undefined {
    const pointId = groupPointId(id);
    const location = pointId === undefined ? undefined : this.reader.locate(lookup, pointId);
    return location && retrievedPoint(location, withLookup.withPayload, withLookup.withVectors);
  }

  /** Whether a stage's final scores are better when higher (false for distances). */
  private higherIsBetter(context: CollectionContext, stage: PrefetchQuery): boolean {
    const query = stage.query;
    // Without a query, results keep the order (and scores) of the first prefetch.
    if (!query && stage.prefetch.length > 0) return this.higherIsBetter(context, stage.prefetch[0]);
    const byDistance =
      query !== undefined &&
      ('nearest' in query ||
        ('recommend' in query && (query.recommend.strategy ?? 'AverageVector') === 'AverageVector'));
    const space = byDistance ? context.storage.spaces.get(stage.using ?? DEFAULT_VECTOR_NAME) : undefined;
    return space ? spaceHigherIsBetter(space) : true;
  }

  /**
   * Charges the query's rate cost (Qdrant's, see queryRateCost) to the collection's read limit: a
   * point given by id costs reading it plus its stored vector's comparisons.
   */
  private chargeRead(context: CollectionContext, stage: PrefetchQuery, lookupFrom: LookupLocation | undefined): void {
    const strict = context.record.config.strictModeConfig;
    if (!strict?.enabled || strict.readRateLimit === undefined) return;
    const idCost = (id: PointId, using: string, lookup: LookupLocation | undefined): number => {
      const source = lookup ? this.contexts.resolve(lookup.collectionName) : context;
      const location = this.reader.locate(source, id);
      const vector = location?.segment.vectorStore(lookup?.vectorName ?? using)?.get(location.slot);
      return 1 + (vector ? vectorRateCost(vector) : 1);
    };
    this.contexts.strict.chargeRead(context.record.id, strict, queryRateCost(stage, idCost, lookupFrom));
  }

  private checkRequest(context: CollectionContext, request: QueryRequest | PrefetchQuery, depth = 0, path = ''): void {
    if (depth > 16) throw DomainError.validation(['prefetch: nested too deeply (more than 16 levels)']);
    if (request.filter) validateFilter(request.filter);
    // Qdrant's rules for what a stage without a query (or with order_by) may carry.
    if (request.query === undefined && request.prefetch.length > 0) {
      throw DomainError.invalidArgument(
        "Bad request: A query is needed to merge the prefetches. Can't have prefetches without defining a query.",
      );
    }
    if (request.scoreThreshold !== undefined && request.query === undefined) {
      throw DomainError.invalidArgument(
        "Bad request: A query is needed to use the score_threshold. Can't have score_threshold without defining a query.",
      );
    }
    if (request.scoreThreshold !== undefined && request.query !== undefined && 'orderBy' in request.query) {
      throw DomainError.invalidArgument("Bad request: Can't use score_threshold with an order_by query.");
    }
    const idf = request.params?.idf;
    if (idf !== undefined && idf !== 'global') {
      validateFilter(idf.corpus);
      const using = request.using ?? DEFAULT_VECTOR_NAME;
      const space = context.storage.spaces.get(using);
      if (!(space?.kind === 'sparse' && space.idf)) {
        throw DomainError.invalidArgument(
          `Bad request: \`idf\` search params apply only to a sparse vector with the \`idf\` modifier; \`${using}\` has none`,
        );
      }
    }
    if (request.query && 'formula' in request.query) {
      checkFormulaIndexes(
        context.record.config.strictModeConfig,
        request.query.formula.expression,
        context.indexSchemaOf,
      );
    }
    const mmr = request.query && 'nearest' in request.query ? request.query.mmr : undefined;
    if (mmr) {
      const mmrIssues = new ValidationIssues();
      mmrIssues.between(`${path}query.mmr.diversity`, mmr.diversity, 0, 1);
      mmrIssues.range(`${path}query.mmr.candidates_limit`, mmr.candidatesLimit, 0, 16_384);
      mmrIssues.throwIfAny();
    }
    // Qdrant's SearchParams rule: the beam of a graph search holds at least one candidate.
    const issues = new ValidationIssues();
    issues.range(`${path}params.hnsw_ef`, request.params?.hnswEf, 1);
    issues.throwIfAny();
    this.contexts.strict.checkRead(
      context.record.name,
      context.record.config.strictModeConfig,
      {
        limit: request.limit,
        filter: request.filter,
        params: request.params,
        timeout: 'timeout' in request ? request.timeout : undefined,
      },
      context.indexSchemaOf,
    );
    const query = request.query;
    // A stage with prefetches rescores their candidates: no full scan, whatever its vector's index.
    const searches =
      query &&
      ('nearest' in query ||
        'recommend' in query ||
        'discover' in query ||
        'context' in query ||
        'relevanceFeedback' in query);
    if (searches && request.prefetch.length === 0) {
      checkFullScan(context.record.config, request.using ?? DEFAULT_VECTOR_NAME, request.filter, context.isTenantKey);
    }
    request.prefetch.forEach((prefetch, i) =>
      this.checkRequest(context, prefetch, depth + 1, `${path}prefetch[${i}].`),
    );
  }

  /** Candidates of one stage, best first, at most `stage.limit`. */
  private evaluate(
    context: CollectionContext,
    stage: PrefetchQuery,
    selector: ShardKeySelector | undefined,
    lookupFrom: LookupLocation | undefined,
  ): Candidate[] {
    const limit = stage.limit ?? DEFAULT_PREFETCH_LIMIT;
    const using = stage.using ?? DEFAULT_VECTOR_NAME;
    const lookup = stage.lookupFrom ?? lookupFrom;
    // The stage's filter also holds for its prefetches: it is passed down, so their limits count matching points.
    const sources = stage.prefetch.map((p) =>
      this.evaluate(context, { ...p, filter: mergeFilters(p.filter, stage.filter) }, selector, lookupFrom),
    );
    const query: QueryVariant | undefined = stage.query;
    let result: Candidate[];
    if (!query) {
      // No query: prefetch results in their own order (each already best first), or points in id order.
      if (sources.length === 0) return this.byId(context, stage.filter, selector, limit);
      return applyThreshold(dedupe(sources.flat()), stage.scoreThreshold, true).slice(0, limit);
    } else if ('formula' in query) {
      if (sources.length === 0)
        throw DomainError.invalidArgument('Bad request: A formula query needs at least one prefetch');
      const scores = sources.map((list) => new Map(list.map((c) => [c.key, c.score])));
      result = scoreByFormula(query.formula, dedupe(sources.flat()), scores).sort(byScoreDesc);
    } else if ('fusion' in query || 'rrf' in query) {
      if (stage.using !== undefined)
        throw DomainError.invalidArgument("Bad request: Fusion queries cannot be combined with the 'using' field.");
      if (sources.length === 0) throw DomainError.validation(['query: fusion requires at least one prefetch']);
      result =
        'rrf' in query || query.fusion === 'RRF'
          ? 'rrf' in query
            ? rrf(sources, query.rrf.k ?? DEFAULT_RRF_K, query.rrf.weights)
            : rrf(sources, DEFAULT_RRF_K)
          : dbsf(sources);
    } else if ('orderBy' in query) {
      const locations =
        sources.length > 0
          ? dedupe(sources.flat()).map((c) => c.location)
          : this.reader.matching(context, stage.filter, selector);
      result = orderedPoints(context, locations, query.orderBy).map((o) => ({
        key: pointIdKey(o.location.segment.pointId(o.location.slot)),
        location: o.location,
        score: 0,
        orderValue: o.orderValue,
      }));
      return result.slice(0, limit);
    } else if ('sample' in query) {
      const pool =
        sources.length > 0
          ? dedupe(sources.flat())
          : this.byId(context, stage.filter, selector, Number.MAX_SAFE_INTEGER);
      result = shuffle(pool).map((c) => ({ ...c, score: 0 }));
    } else {
      const space = requireSpace(context.storage.spaces, using);
      const higher = spaceHigherIsBetter(space);
      const pool = sources.length > 0 ? dedupe(sources.flat()) : undefined;
      if ('nearest' in query) {
        const vector = this.resolveVector(context, query.nearest, space, lookup, 'query.nearest');
        const mmr = query.mmr;
        const pulled = mmr ? (mmr.candidatesLimit ?? limit) : limit;
        result = pool
          ? this.rescore(pool, using, vector, higher)
          : this.nearest(context, using, vector, stage.filter, stage.params, pulled, selector, higher);
        if (mmr) {
          const candidates = applyThreshold(result, stage.scoreThreshold, higher).slice(0, pulled);
          return mmrSelect(candidates, space, using, vector, 1 - (mmr.diversity ?? 0.5), limit);
        }
      } else if ('relevanceFeedback' in query) {
        result = this.feedbackScores(
          context,
          query.relevanceFeedback,
          space,
          using,
          stage.filter,
          selector,
          lookup,
          pool,
        );
        return applyThreshold(result, stage.scoreThreshold, true).slice(0, limit);
      } else if ('discover' in query || 'context' in query) {
        // Discovery and context scores are higher-is-better whatever the distance.
        result = this.contextScores(context, query, space, using, stage.filter, selector, lookup, pool);
        return applyThreshold(result, stage.scoreThreshold, true).slice(0, limit);
      } else {
        result = this.recommendScores(
          context,
          query.recommend,
          space,
          using,
          stage.filter,
          stage.params,
          limit,
          selector,
          lookup,
          pool,
        );
        // Best-score and sum-score results are similarities (higher is better) whatever the distance.
        if ((query.recommend.strategy ?? 'AverageVector') !== 'AverageVector') {
          return applyThreshold(result, stage.scoreThreshold, true).slice(0, limit);
        }
      }
      result = applyThreshold(result, stage.scoreThreshold, higher);
      return result.slice(0, limit);
    }
    return applyThreshold(result, stage.scoreThreshold, true).slice(0, limit);
  }

  private nearest(
    context: CollectionContext,
    using: string,
    vector: Vector,
    filter: Filter | undefined,
    params: SearchParams | undefined,
    limit: number,
    selector: ShardKeySelector | undefined,
    higher: boolean,
  ): Candidate[] {
    const result: Candidate[] = [];
    for (const handle of context.readShards(selector)) {
      for (const hit of handle.shard.search(using, vector, limit, filter, params, higher)) {
        const location = { segment: hit.segment, slot: hit.slot, shardKey: handle.shardKey };
        result.push({ key: pointIdKey(hit.segment.pointId(hit.slot)), location, score: hit.score });
      }
    }
    return result.sort(higher ? byScoreDesc : byScoreAsc).slice(0, limit);
  }

  /** Scores given candidates against a vector (a prefetch rescored by the outer query). */
  private rescore(pool: Candidate[], using: string, vector: Vector, higher: boolean): Candidate[] {
    const result: Candidate[] = [];
    const bySegment = new Map<Candidate['location']['segment'], Candidate[]>();
    for (const c of pool) {
      const list = bySegment.get(c.location.segment);
      if (list) list.push(c);
      else bySegment.set(c.location.segment, [c]);
    }
    for (const [segment, candidates] of bySegment) {
      const store = segment.vectorStore(using);
      if (!store) continue;
      const scored = store.score(
        vector,
        candidates.map((c) => c.location.slot),
      );
      const bySlot = new Map(candidates.map((c) => [c.location.slot, c]));
      for (let i = 0; i < scored.slots.length; i++) {
        const c = bySlot.get(scored.slots[i]);
        if (c) result.push({ ...c, score: scored.scores[i] });
      }
    }
    return result.sort(higher ? byScoreDesc : byScoreAsc);
  }

  private recommendScores(
    context: CollectionContext,
    input: RecommendInput,
    space: VectorSpace,
    using: string,
    filter: Filter | undefined,
    params: SearchParams | undefined,
    limit: number,
    selector: ShardKeySelector | undefined,
    lookup: LookupLocation | undefined,
    pool: Candidate[] | undefined,
  ): Candidate[] {
    const higher = spaceHigherIsBetter(space);
    const strategy = input.strategy ?? 'AverageVector';
    if (input.positive.length === 0 && (strategy === 'AverageVector' || input.negative.length === 0)) {
      throw DomainError.validation(['query.recommend.positive: At least one positive example is required']);
    }
    const positives = input.positive.map((v, i) => this.resolveVector(context, v, space, lookup, `positive[${i}]`));
    const negatives = input.negative.map((v, i) => this.resolveVector(context, v, space, lookup, `negative[${i}]`));
    if (strategy === 'AverageVector') {
      const target = averageQuery(positives, negatives);
      return pool
        ? this.rescore(pool, using, target, higher)
        : this.nearest(context, using, target, filter, params, limit, selector, higher);
    }
    // BestScore / SumScores score every candidate against every example, as similarities (higher is better).
    const candidates = pool ?? this.allCandidates(context, filter, selector);
    const similarity = (examples: Vector[]) =>
      examples.map((example) => {
        const scored = new Map<string, number>();
        for (const c of this.rescore(candidates, using, example, higher))
          scored.set(c.key, higher ? c.score : -c.score);
        return scored;
      });
    const pos = similarity(positives);
    const neg = similarity(negatives);
    const result: Candidate[] = [];
    for (const c of candidates) {
      const ps = pos.map((m) => m.get(c.key)).filter((s): s is number => s !== undefined);
      const ns = neg.map((m) => m.get(c.key)).filter((s): s is number => s !== undefined);
      if (ps.length + ns.length === 0) continue;
      let score: number;
      if (strategy === 'SumScores') score = ps.reduce((a, b) => a + b, 0) - ns.reduce((a, b) => a + b, 0);
      else {
        const bestPos = ps.length ? Math.max(...ps) : -Infinity;
        const bestNeg = ns.length ? Math.max(...ns) : -Infinity;
        // Disjoint ranges, as Qdrant: closer to a positive → (0, 1) by that similarity; closer to a
        // negative → (-1, 0), lower the closer it is to the negative.
        score = bestPos > bestNeg ? sigmoid(bestPos) : -sigmoid(bestNeg);
      }
      result.push({ ...c, score });
    }
    return result.sort(byScoreDesc).slice(0, limit);
  }

  /**
   * Discovery (target + context pairs) or context search, scored over every matching point (or the
   * prefetched pool) against the raw similarities to its examples; best first.
   */
  private contextScores(
    context: CollectionContext,
    query: { discover: DiscoverInput } | { context: ContextPair[] },
    space: VectorSpace,
    using: string,
    filter: Filter | undefined,
    selector: ShardKeySelector | undefined,
    lookup: LookupLocation | undefined,
    pool: Candidate[] | undefined,
  ): Candidate[] {
    const resolve = (input: VectorInput, path: string) => this.resolveVector(context, input, space, lookup, path);
    const pairs = ('discover' in query ? query.discover.context : query.context).map((pair, i) => ({
      positive: resolve(pair.positive, `context[${i}].positive`),
      negative: resolve(pair.negative, `context[${i}].negative`),
    }));
    const target = 'discover' in query ? resolve(query.discover.target, 'target') : undefined;
    const candidates = pool ?? this.allCandidates(context, filter, selector);
    const higher = spaceHigherIsBetter(space);
    return scoreContextQuery(candidates, { target, pairs }, (example) => {
      const similarities = new Map<string, number>();
      for (const c of this.rescore(candidates, using, example, higher))
        similarities.set(c.key, rawSimilarity(space, c.score));
      return similarities;
    });
  }

  /** Qdrant's naive relevance feedback over every candidate (see RelevanceFeedbackInput); higher is better. */
  private feedbackScores(
    context: CollectionContext,
    input: RelevanceFeedbackInput,
    space: VectorSpace,
    using: string,
    filter: Filter | undefined,
    selector: ShardKeySelector | undefined,
    lookup: LookupLocation | undefined,
    pool: Candidate[] | undefined,
  ): Candidate[] {
    const resolve = (given: VectorInput, path: string) => this.resolveVector(context, given, space, lookup, path);
    const target = resolve(input.target, 'relevance_feedback.target');
    const feedback = input.feedback.map((item, i) => ({
      vector: resolve(item.example, `relevance_feedback.feedback[${i}].example`),
      score: item.score,
    }));
    const { a, b, c } = input.naive;
    const pairs: Array<{ positive: number; negative: number; weight: number }> = [];
    feedback.forEach((positive, i) =>
      feedback.forEach((negative, j) => {
        const confidence = positive.score - negative.score;
        if (i !== j && confidence > 0) pairs.push({ positive: i, negative: j, weight: confidence ** b * c });
      }),
    );
    const candidates = pool ?? this.allCandidates(context, filter, selector);
    const higher = spaceHigherIsBetter(space);
    const similarities = (vector: Vector): Map<string, number> =>
      new Map(this.rescore(candidates, using, vector, higher).map((r) => [r.key, rawSimilarity(space, r.score)]));
    const toTarget = similarities(target);
    const toExample = feedback.map((item) =>
      pairs.length > 0 ? similarities(item.vector) : new Map<string, number>(),
    );
    return candidates
      .filter((candidate) => toTarget.has(candidate.key))
      .map((candidate) => {
        let score = a * toTarget.get(candidate.key)!;
        for (const pair of pairs) {
          const delta =
            (toExample[pair.positive].get(candidate.key) ?? 0) - (toExample[pair.negative].get(candidate.key) ?? 0);
          score += pair.weight * delta;
        }
        return { ...candidate, score };
      })
      .sort(byScoreDesc);
  }

  /** Every live point passing `filter`, unscored. */
  private allCandidates(
    context: CollectionContext,
    filter: Filter | undefined,
    selector: ShardKeySelector | undefined,
  ): Candidate[] {
    return this.reader
      .matching(context, filter, selector)
      .map((location) => ({ key: pointIdKey(location.segment.pointId(location.slot)), location, score: 0 }));
  }

  private byId(
    context: CollectionContext,
    filter: Filter | undefined,
    selector: ShardKeySelector | undefined,
    limit: number,
  ): Candidate[] {
    return this.allCandidates(context, filter, selector)
      .sort((a, b) =>
        comparePointIds(a.location.segment.pointId(a.location.slot), b.location.segment.pointId(b.location.slot)),
      )
      .slice(0, limit);
  }

  /** A query vector: given directly, or the stored vector of a point (here or in `lookup`'s collection). */
  private resolveVector(
    context: CollectionContext,
    input: VectorInput,
    space: VectorSpace,
    lookup: LookupLocation | undefined,
    path: string,
  ): Vector {
    if ('vector' in input) {
      // As in Qdrant, one dense vector queries a multivector field as a one-row multivector.
      const vector = asSpaceKind(space, input.vector);
      const issues = new ValidationIssues();
      checkVector(issues, path, space, vector);
      throwVectorIssues(issues);
      return vector;
    }
    const source = lookup ? this.resolveLookup(lookup.collectionName) : context;
    const name = lookup?.vectorName ?? space.name;
    // As in Qdrant: a missing point is 404 first; then a name the source collection lacks is a wrong input.
    const location = this.reader.locate(source, input.pointId);
    if (!location) throw DomainError.notFound(`Not found: No point with id ${formatId(input.pointId)} found`);
    if (!source.storage.spaces.has(name))
      throw DomainError.invalidArgument(`Wrong input: Not existing vector name error: ${name}`);
    const vector = location.segment.vectorStore(name)?.get(location.slot);
    if (!vector)
      throw DomainError.invalidArgument(`Wrong input: point ${formatId(input.pointId)} has no vector \`${name}\``);
    // A vector looked up in another collection must still fit this one.
    const issues = new ValidationIssues();
    checkVector(issues, path, space, vector);
    throwVectorIssues(issues);
    return vector;
  }
}

function formatId(id: PointId): string {
  return typeof id === 'bigint' ? id.toString() : id;
}

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

function byScoreDesc(a: Candidate, b: Candidate): number {
  return b.score - a.score;
}

function byScoreAsc(a: Candidate, b: Candidate): number {
  return a.score - b.score;
}

function applyThreshold(candidates: Candidate[], threshold: number | undefined, higher: boolean): Candidate[] {
  if (threshold === undefined) return candidates;
  return candidates.filter((c) => (higher ? c.score >= threshold : c.score <= threshold));
}

/** One entry per point, keeping the first (best) occurrence. */
function dedupe(candidates: Candidate[]): Candidate[] {
  const seen = new Set<string>();
  return candidates.filter((c) => (seen.has(c.key) ? false : (seen.add(c.key), true)));
}

/**
 * Qdrant's average-vector recommendation: avg(positive) + avg(positive) - avg(negative) for dense
 * vectors; for multivectors the rows of every positive, then those of every negative negated.
 */
function averageQuery(positives: Vector[], negatives: Vector[]): Vector {
  if ([...positives, ...negatives].some((v) => v.kind === 'multi')) {
    const rows = (vs: Vector[]): Float32Array[] =>
      vs.flatMap((v) => {
        if (v.kind === 'multi') return v.vectors;
        if (v.kind === 'dense') return [v.values];
        throw DomainError.invalidArgument(
          'Bad request: Positive and negative vectors should be of the same type, either all dense or all sparse or all multi',
        );
      });
    const positive = rows(positives);
    if (positive.length === 0) {
      throw DomainError.invalidArgument('Bad request: Positive vectors should not be empty with `average` strategy');
    }
    return { kind: 'multi', vectors: [...positive, ...rows(negatives).map((row) => row.map((x) => -x))] };
  }
  const dense = (vs: Vector[]) =>
    vs.map((v) => {
      if (v.kind !== 'dense')
        throw DomainError.invalidArgument('Bad request: the average_vector strategy needs dense vectors');
      return v.values;
    });
  const pos = dense(positives);
  const neg = dense(negatives);
  const dim = (pos[0] ?? neg[0]).length;
  const avg = (vs: Float32Array[]) => {
    const out = new Float32Array(dim);
    for (const v of vs) for (let i = 0; i < dim; i++) out[i] += v[i] / vs.length;
    return out;
  };
  const p = avg(pos);
  if (neg.length === 0) return { kind: 'dense', values: p };
  const n = avg(neg);
  const out = new Float32Array(dim);
  for (let i = 0; i < dim; i++) out[i] = p[i] + p[i] - n[i];
  return { kind: 'dense', values: out };
}

/** Deterministic per call order is not needed: sampling is random, as in Qdrant. */
function shuffle<T>(items: T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/**
 * Qdrant's Maximal Marginal Relevance over a stage's candidates (see mmrPick): candidates without the
 * vector are left out, as Qdrant does; the picked ones keep their query scores, in the order picked.
 */
export function mmrSelect(
  candidates: Candidate[],
  space: VectorSpace,
  using: string,
  query: Vector,
  lambda: number,
  limit: number,
): Candidate[] {
  return mmrPickItems(
    space,
    query,
    candidates,
    (c) => c.location.segment.vectorStore(using)?.get(c.location.slot),
    lambda,
    limit,
  );
}
