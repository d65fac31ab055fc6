import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  CollectionCatalog,
  CollectionRecord,
  readExclusions,
  type ReadExclusion,
  ShardRecord,
  unreadShardIds,
} from '@vectorstore/collections';
import { DomainError, ErrorKind, isDomainError } from '@vectorstore/common';
import {
  PointId,
  pointIdKey,
  RetrievedPoint,
  ScoredPoint,
  CountRequest,
  DiscoverRequest,
  FacetHit,
  FacetRequest,
  GetRequest,
  GroupId,
  GroupsRequest,
  PointGroup,
  PrefetchQuery,
  QueryRequest,
  ReadConsistency,
  RecommendRequest,
  ScrollRequest,
  SearchRequest,
  VectorInput,
  WithLookup,
  ShardKeySelector,
  VectorSelector,
  DEFAULT_VECTOR_NAME,
  readShards,
  ringShard,
  DistanceMatrix,
  DistanceMatrixRequest,
  DistanceMatrixService,
  mergeSamples,
  dbsf,
  rrf,
  PointsReader,
  DEFAULT_RRF_K,
  QueryEngine,
  boundedProduct,
  DEFAULT_PREFETCH_LIMIT,
  discoverQuery,
  growPrefetchLimits,
  mergeFilters,
  recommendQuery,
  searchQuery,
  collectGroupsAsync,
  groupIdKey,
  groupPointId,
  selectPayload,
  selectVectors,
} from '@vectorstore/points';
import { mapQueryInputs, stagesOf } from './query-inputs';
import { POINTS_PEERS, PointsPeers, ShardRead, ShardReadResults } from './points-peers';
import { readReplicas } from './hedged-read';
import { ShardEndpoint } from './shard-endpoint';
import { mergeFacets, mergeGot, mergeOrderedPages, mergeScored, mergeScrollPages } from './result-merge';

/** Where a read goes in cluster mode: the collection as routed, and which peers answer for which shards. */
interface Spread {
  record: CollectionRecord;
  /** The selected replicas (every replica of every selected shard). */
  replicas: ShardRecord[];
  readConsistency?: ReadConsistency;
  /** Whether this peer answers for some shard (then it checks the request first). */
  local: boolean;
  /** A resharding's copies that reads of some shards leave out (see libs/collections cluster/resharding.ts). */
  exclusions: ReadExclusion[];
}

/** Failures after which the same shards are asked of another replica: the peer, not the request, failed. */
const RETRIED_FAILURES: ReadonlySet<ErrorKind> = new Set([
  // A replica that its own peer knows is Dead (this coordinator's catalog lags).
  ErrorKind.FailedPrecondition,
  ErrorKind.Unavailable,
  ErrorKind.DeadlineExceeded,
  ErrorKind.Internal,
]);

/**
 * Every read of points, as the transports call it. On a standalone server (or when this peer holds
 * every shard a read selects) it is the local services' answer. In cluster mode a read selecting
 * shards of other peers goes to each of them (`ShardRead`) and to this peer's own shards, and the
 * answers are merged here (docs/cluster.md, "Reads").
 */
@Injectable()
export class ReadRouter {
  constructor(
    private readonly catalog: CollectionCatalog,
    private readonly reader: PointsReader,
    private readonly engine: QueryEngine,
    private readonly matrix: DistanceMatrixService,
    private readonly endpoint: ShardEndpoint,
    @Optional() @Inject(POINTS_PEERS) private readonly peers?: PointsPeers,
  ) {}

  async get(collectionName: string, request: GetRequest): Promise<RetrievedPoint[]> {
    const spread = this.spread(collectionName, request.shardKeySelector, request.readConsistency);
    if (!spread) return this.reader.get(collectionName, request);
    this.reader.admit(collectionName, { timeout: request.timeout }, request.ids.length);
    return this.getAdmitted(spread, request);
  }

  /**
   * Points by id for the server's own use (existence checks of a write, a query's examples): the
   * client's request was admitted by strict mode already, so this read is not charged again.
   */
  async fetch(collectionName: string, request: GetRequest): Promise<RetrievedPoint[]> {
    const spread = this.spread(collectionName, request.shardKeySelector, request.readConsistency);
    if (!spread) return this.reader.get(collectionName, request);
    return this.getAdmitted(spread, request);
  }

  private async getAdmitted(spread: Spread, request: GetRequest): Promise<RetrievedPoint[]> {
    const lists = await this.gather(spread, { kind: 'get', request });
    return mergeGot(request.ids, lists.flat());
  }

  async scroll(
    collectionName: string,
    request: ScrollRequest,
  ): Promise<{ points: RetrievedPoint[]; nextPageOffset?: PointId }> {
    const spread = this.spread(collectionName, request.shardKeySelector, request.readConsistency);
    if (!spread) return this.reader.scroll(collectionName, request);
    this.reader.admit(collectionName, { limit: request.limit, timeout: request.timeout, filter: request.filter });
    const copies = await this.gather(spread, { kind: 'scroll', request });
    if (request.orderBy) {
      // A point appears once per value of the key, so copies are not merged by id: one copy answers.
      return {
        points: mergeOrderedPages(
          copies[0].map((page) => page.points),
          request.orderBy,
          request.limit,
        ),
      };
    }
    return mergeScrollPages(copies.flat(), request.limit);
  }

  async count(collectionName: string, request: CountRequest): Promise<number> {
    const spread = this.spread(collectionName, request.shardKeySelector, request.readConsistency);
    if (!spread) return this.reader.count(collectionName, request);
    // Each copy counts every selected shard once: the first copy's sum is the count.
    this.reader.admit(collectionName, { timeout: request.timeout, filter: request.filter });
    const [counts] = await this.gather(spread, { kind: 'count', request });
    return counts.reduce((sum, count) => sum + count, 0);
  }

  async facet(collectionName: string, request: FacetRequest): Promise<FacetHit[]> {
    const spread = this.spread(collectionName, request.shardKeySelector, request.readConsistency);
    if (!spread) return this.reader.facet(collectionName, request);
    // Every peer counts every value, so the sums are exact before the cut.
    this.reader.admit(collectionName, { limit: request.limit, timeout: request.timeout, filter: request.filter });
    const [lists] = await this.gather(spread, { kind: 'facet', request });
    return mergeFacets(lists, request.limit);
  }

  search(collectionName: string, request: SearchRequest): Promise<ScoredPoint[]> {
    return this.query(collectionName, searchQuery(request));
  }

  recommend(collectionName: string, request: RecommendRequest): Promise<ScoredPoint[]> {
    return this.query(collectionName, recommendQuery(request));
  }

  discover(collectionName: string, request: DiscoverRequest): Promise<ScoredPoint[]> {
    this.catalog.require(collectionName);
    return this.query(collectionName, discoverQuery(request));
  }

  async query(collectionName: string, request: QueryRequest): Promise<ScoredPoint[]> {
    const spread = this.spread(collectionName, request.shardKeySelector, request.readConsistency);
    if (!spread) return this.engine.queryAsync(collectionName, request);
    this.engine.admit(collectionName, request);
    const resolved = await this.withExampleVectors(spread.record, request);
    return this.answer(collectionName, spread, resolved);
  }

  /** An admitted query, its examples resolved, answered over the peers and merged. */
  private async answer(collectionName: string, spread: Spread, resolved: QueryRequest): Promise<ScoredPoint[]> {
    const root = resolved.query;
    if (root && ('fusion' in root || 'rrf' in root)) return this.fused(collectionName, spread, resolved);
    if (root && 'nearest' in root && root.mmr) return this.diversified(collectionName, spread, resolved, root.nearest);
    const order = this.engine.resultOrder(collectionName, resolved);
    const window = resolved.offset + resolved.limit;
    const part: QueryRequest = { ...resolved, offset: 0, limit: window };
    const lists = await this.gather(spread, { kind: 'query', request: part });
    return mergeScored(lists.flat(), order, window).slice(resolved.offset);
  }

  /** Several queries of one kind against one collection (SearchBatch, QueryBatch, ...), in order. */
  async batch<R>(
    collectionName: string,
    requests: readonly R[],
    run: (collectionName: string, request: R) => Promise<ScoredPoint[]>,
  ): Promise<ScoredPoint[][]> {
    // The batch's own checks (the collection exists, strict mode's batch size) come first.
    this.engine.checkBatch(collectionName, requests.length);
    const results: ScoredPoint[][] = [];
    for (const request of requests) results.push(await run.call(this, collectionName, request));
    return results;
  }

  searchGroups(collectionName: string, request: GroupsRequest<SearchRequest>): Promise<PointGroup[]> {
    return this.groups(collectionName, searchQuery(request.source), request, () =>
      this.engine.searchGroups(collectionName, request),
    );
  }

  recommendGroups(collectionName: string, request: GroupsRequest<RecommendRequest>): Promise<PointGroup[]> {
    return this.groups(collectionName, recommendQuery(request.source), request, () =>
      this.engine.recommendGroups(collectionName, request),
    );
  }

  queryGroups(collectionName: string, request: GroupsRequest<QueryRequest>): Promise<PointGroup[]> {
    return this.groups(collectionName, request.source, request, () => this.engine.queryGroups(collectionName, request));
  }

  /**
   * A grouped query. In cluster mode the coordinator runs the grouping rounds itself (as one server
   * does over its shards), each round a query over the peers merged as `query` merges; hits carry
   * their whole payload for the grouping and are cut to the client's selector after.
   */
  private async groups(
    collectionName: string,
    source: QueryRequest,
    request: GroupsRequest<unknown>,
    local: () => PointGroup[],
  ): Promise<PointGroup[]> {
    const spread = this.spread(collectionName, source.shardKeySelector, source.readConsistency);
    if (!spread) return local();
    // As the local engine: a missing lookup collection is refused before anything is read or charged.
    if (request.withLookup) this.requireLookupCollection(request.withLookup.collectionName);
    this.engine.admitGroups(collectionName, source, request);
    const resolved = await this.withExampleVectors(spread.record, source);
    const size = boundedProduct(request.limit, request.groupSize);
    const stage: QueryRequest = {
      ...resolved,
      prefetch: growPrefetchLimits(resolved, request.limit).prefetch,
      limit: size,
      offset: 0,
      withPayload: { enable: true },
    };
    const order = this.engine.resultOrder(collectionName, stage);
    const groups = await collectGroupsAsync(
      {
        groupBy: request.groupBy,
        groupSize: request.groupSize,
        limit: request.limit,
        higherIsBetter: order.by === 'score' ? order.higherIsBetter : true,
      },
      async (extra) => {
        const hits = await this.answer(collectionName, spread, { ...stage, filter: mergeFilters(stage.filter, extra) });
        return hits.map((point) => ({ key: pointIdKey(point.id), score: point.score, point }));
      },
      (hit) => hit.point.payload ?? {},
    );
    const lookups = request.withLookup
      ? await this.lookups(
          request.withLookup,
          groups.map((g) => g.id),
        )
      : undefined;
    return groups.map((group) => {
      const result: PointGroup = {
        id: group.id,
        hits: group.hits.map(({ point }) => {
          const payload = point.payload && selectPayload(point.payload, source.withPayload);
          const { payload: _all, ...rest } = point;
          return payload ? { ...rest, payload } : rest;
        }),
      };
      const found = lookups?.get(groupIdKey(group.id));
      if (found) result.lookup = found;
      return result;
    });
  }

  private requireLookupCollection(name: string): void {
    try {
      this.catalog.require(name);
    } catch (error) {
      if (isDomainError(error) && error.kind === ErrorKind.NotFound)
        throw DomainError.notFound(`Not found: Collection ${name} not found`);
      throw error;
    }
  }

  /** The points of the `with_lookup` collection whose ids are the group ids, by group id key. */
  private async lookups(withLookup: WithLookup, ids: GroupId[]): Promise<Map<string, RetrievedPoint>> {
    const pointIds = ids.flatMap((id) => {
      const pointId = groupPointId(id);
      return pointId === undefined ? [] : [pointId];
    });
    let points: RetrievedPoint[];
    try {
      points = await this.fetch(withLookup.collectionName, {
        ids: pointIds,
        withPayload: withLookup.withPayload,
        withVectors: withLookup.withVectors,
      });
    } catch (error) {
      // As the local engine words it.
      if (isDomainError(error) && error.kind === ErrorKind.NotFound)
        throw DomainError.notFound(`Not found: Collection ${withLookup.collectionName} not found`);
      throw error;
    }
    const byId = new Map(points.map((point) => [pointIdKey(point.id), point]));
    const result = new Map<string, RetrievedPoint>();
    for (const id of ids) {
      const pointId = groupPointId(id);
      const point = pointId === undefined ? undefined : byId.get(pointIdKey(pointId));
      if (point) result.set(groupIdKey(id), point);
    }
    return result;
  }

  /**
   * The search matrix. In cluster mode every peer samples its own matching points (with their vectors)
   * and the coordinator draws one uniform sample from those parts; then each sampled point's nearest
   * among the sample are searched over the peers, as Qdrant does, in one batch per peer.
   */
  async distanceMatrix(collectionName: string, request: DistanceMatrixRequest): Promise<DistanceMatrix> {
    const spread = this.spread(collectionName, request.shardKeySelector, request.readConsistency);
    if (!spread) return this.matrix.compute(collectionName, request);
    this.matrix.admit(collectionName, request);
    // One copy samples (as count does); the rows are then read at the requested consistency.
    const [parts] = await this.gather(spread, { kind: 'sample', request });
    return this.matrix.fromSample(collectionName, request, mergeSamples(parts, request.sample), async (queries) => {
      const order = this.engine.resultOrder(collectionName, queries[0]);
      const copies = await this.gather(spread, {
        kind: 'queries',
        request: { requests: queries, timeout: request.timeout },
      });
      return queries.map((query, i) =>
        mergeScored(
          copies.flatMap((parts) => parts.map((answers) => answers[i])),
          order,
          query.limit,
        ),
      );
    });
  }

  /**
   * A query whose root re-ranks by MMR: the root's nearest candidates are merged over the peers (with
   * the vector MMR compares), then picked here, as one server picks over its shards' candidates.
   */
  private async diversified(
    collectionName: string,
    spread: Spread,
    request: QueryRequest,
    nearest: VectorInput,
  ): Promise<ScoredPoint[]> {
    const using = request.using ?? DEFAULT_VECTOR_NAME;
    const window = request.offset + request.limit;
    const mmr = request.query && 'nearest' in request.query ? request.query.mmr : undefined;
    const pulled = mmr?.candidatesLimit ?? window;
    const part: QueryRequest = {
      ...request,
      query: { nearest },
      offset: 0,
      limit: pulled,
      withVectors: withVector(request.withVectors, using),
    };
    const lists = await this.gather(spread, { kind: 'query', request: part });
    const candidates = mergeScored(lists.flat(), this.engine.resultOrder(collectionName, part), pulled);
    return this.engine
      .diversify(collectionName, request, candidates, window)
      .slice(request.offset)
      .map((point) => withSelectedVectors(point, request.withVectors));
  }

  /**
   * A query whose root fuses its prefetches (RRF, DBSF): each prefetch is merged over the peers first
   * (its best `limit` over the whole collection, as on one server), then they are fused here.
   */
  private async fused(collectionName: string, spread: Spread, request: QueryRequest): Promise<ScoredPoint[]> {
    const root = request.query;
    if (request.using !== undefined)
      throw DomainError.invalidArgument("Bad request: Fusion queries cannot be combined with the 'using' field.");
    if (request.prefetch.length === 0) throw DomainError.validation(['query: fusion requires at least one prefetch']);
    const lists = await Promise.all(
      request.prefetch.map(async (prefetch) => {
        const part: QueryRequest = {
          ...prefetch,
          filter: mergeFilters(prefetch.filter, request.filter),
          limit: prefetch.limit ?? DEFAULT_PREFETCH_LIMIT,
          offset: 0,
          withPayload: request.withPayload,
          withVectors: request.withVectors,
          shardKeySelector: request.shardKeySelector,
          lookupFrom: prefetch.lookupFrom ?? request.lookupFrom,
          timeout: request.timeout,
        };
        const order = this.engine.resultOrder(collectionName, part);
        const parts = await this.gather(spread, { kind: 'query', request: part });
        return mergeScored(parts.flat(), order, part.limit).map((point) => ({
          key: pointIdKey(point.id),
          score: point.score,
          point,
        }));
      }),
    );
    const fused =
      root && 'rrf' in root
        ? rrf(lists, root.rrf.k ?? DEFAULT_RRF_K, root.rrf.weights)
        : root && 'fusion' in root && root.fusion === 'RRF'
          ? rrf(lists, DEFAULT_RRF_K)
          : dbsf(lists);
    const threshold = request.scoreThreshold;
    return fused
      .filter((hit) => threshold === undefined || hit.score >= threshold)
      .slice(request.offset, request.offset + request.limit)
      .map((hit) => ({ ...hit.point, score: hit.score }));
  }

  /**
   * The query with every example given by point id replaced by that point's vector, fetched from
   * whichever peer holds it; the ids of this collection's examples are left out of the results, as
   * the local engine does for the ids it resolves itself.
   */
  private async withExampleVectors(record: CollectionRecord, request: QueryRequest): Promise<QueryRequest> {
    const wanted = new Map<string, { collection: string; vector: string; ids: PointId[] }>();
    const excluded: PointId[] = [];
    for (const { stage, lookup } of stagesOf(request)) {
      const vector = lookup?.vectorName ?? stage.using ?? DEFAULT_VECTOR_NAME;
      const collection = lookup?.collectionName ?? record.name;
      for (const input of inputsOfStage(stage)) {
        if (!('pointId' in input)) continue;
        const key = `${collection}\u0000${vector}`;
        const entry = wanted.get(key) ?? { collection, vector, ids: [] };
        entry.ids.push(input.pointId);
        wanted.set(key, entry);
        if (!lookup || this.catalog.require(lookup.collectionName).id === record.id) excluded.push(input.pointId);
      }
    }
    if (wanted.size === 0) return request;
    const vectors = new Map<string, VectorInput>();
    for (const [key, entry] of wanted) {
      const points = await this.fetch(entry.collection, {
        ids: entry.ids,
        withPayload: { enable: false },
        withVectors: { include: [entry.vector] },
      });
      const found = new Map(points.map((point) => [pointIdKey(point.id), point]));
      for (const id of entry.ids) {
        const point = found.get(pointIdKey(id));
        if (!point) throw DomainError.notFound(`Not found: No point with id ${pointIdKey(id)} found`);
        const vector = point.vectors?.[entry.vector];
        if (!vector)
          throw DomainError.invalidArgument(`Wrong input: point ${pointIdKey(id)} has no vector \`${entry.vector}\``);
        vectors.set(`${key}\u0000${pointIdKey(id)}`, { vector });
      }
    }
    const resolved = mapQueryInputs(request, (input, stage, lookup) => {
      if (!('pointId' in input)) return input;
      const vector = lookup?.vectorName ?? stage.using ?? DEFAULT_VECTOR_NAME;
      const collection = lookup?.collectionName ?? record.name;
      return vectors.get(`${collection}\u0000${vector}\u0000${pointIdKey(input.pointId)}`) ?? input;
    });
    const exclude = excluded.length > 0 ? { mustNot: [{ hasId: excluded }] } : undefined;
    return { ...resolved, filter: mergeFilters(resolved.filter, exclude) };
  }

  /** Where a read goes in cluster mode (undefined on a standalone server, which holds every shard). */
  private spread(
    collectionName: string,
    selector: ShardKeySelector | undefined,
    readConsistency: ReadConsistency | undefined,
  ): Spread | undefined {
    const peers = this.peers;
    if (!peers) return undefined;
    const record = this.catalog.require(collectionName);
    const shards = new Map(record.shards.map((shard) => [shard.shardId, shard]));
    // An unknown shard key is refused here, as a single server does.
    const selected = new Set(readShards(shards, selector).map((shard) => shard.shardId));
    // A resharding's new shard is not read until reads follow the new ring, nor a shard being removed after.
    const unread = unreadShardIds(record);
    const replicas = record.shards.filter((replica) => selected.has(replica.shardId) && !unread.has(replica.shardId));
    const local = replicas.some((replica) => (replica.peerId ?? peers.selfId) === peers.selfId);
    return { record, replicas, readConsistency, local, exclusions: readExclusions(record) };
  }

  /**
   * The answers to a read, one list per copy (see planReads): each part of a copy goes to its peer
   * (this peer's own part runs here, while the others are on their way), hedged by the collection's
   * `read_fan_out_factor` and `read_fan_out_delay_ms`, and asked of another replica when its peer fails
   * (see readReplicas).
   */
  private async gather<K extends ShardRead['kind']>(
    spread: Spread,
    read: Extract<ShardRead, { kind: K }>,
  ): Promise<Array<Array<ShardReadResults[K]>>> {
    if (spread.exclusions.length === 0) return this.gatherFrom(spread, spread.replicas, read);
    // During a resharding, the shards holding copies the ring in force does not give them are read with those
    // copies left out; each group of shards is read apart, and copy i of the whole read joins copy i of each.
    const groups: Array<{ replicas: ShardRecord[]; exclusion?: ReadExclusion }> = [];
    let rest = spread.replicas;
    for (const exclusion of spread.exclusions) {
      const ids = new Set(exclusion.shardIds);
      const held = rest.filter((replica) => ids.has(replica.shardId));
      rest = rest.filter((replica) => !ids.has(replica.shardId));
      if (held.length > 0) groups.push({ replicas: held, exclusion });
    }
    if (rest.length > 0) groups.push({ replicas: rest });
    const answers = await Promise.all(
      groups.map(async ({ replicas, exclusion }) => {
        if (!exclusion) return this.gatherFrom(spread, replicas, read);
        const copies = await this.gatherFrom(spread, replicas, excluding(read, exclusion));
        return read.kind === 'get'
          ? copies.map((copy) =>
              copy.map(
                (points) =>
                  (points as RetrievedPoint[]).filter(
                    (point) => !isExcluded(point.id, exclusion),
                  ) as ShardReadResults[K],
              ),
            )
          : copies;
      }),
    );
    const copies = Math.max(...answers.map((answer) => answer.length));
    return Array.from({ length: copies }, (_, i) =>
      answers.flatMap((answer) => answer[Math.min(i, answer.length - 1)] ?? []),
    );
  }

  private gatherFrom<K extends ShardRead['kind']>(
    spread: Spread,
    replicas: ShardRecord[],
    read: Extract<ShardRead, { kind: K }>,
  ): Promise<Array<Array<ShardReadResults[K]>>> {
    const peers = this.peers!;
    const params = spread.record.config.params;
    return readReplicas<ShardReadResults[K]>({
      replicas,
      selfId: peers.selfId,
      readConsistency: spread.readConsistency,
      fanOut: { factor: params.readFanOutFactor, delayMs: params.readFanOutDelayMs },
      ask: (peerId, shardIds) =>
        peerId === peers.selfId
          ? this.endpoint.read(spread.record, shardIds, read)
          : peers.read(peerId, spread.record, shardIds, read),
      isPeerFailure: (error) => isDomainError(error) && RETRIED_FAILURES.has(error.kind),
    });
  }
}

/** The filter that leaves a resharding's excluded copies out of a read. */
function exclusionFilter(exclusion: ReadExclusion) {
  return { mustNot: [{ ringOwner: { shardIds: exclusion.ring, owner: exclusion.owner } }] };
}

/** `read` with the excluded copies filtered out (a read by ids is filtered on its answer instead). */
function excluding<R extends ShardRead>(read: R, exclusion: ReadExclusion): R {
  const filter = exclusionFilter(exclusion);
  switch (read.kind) {
    case 'scroll':
    case 'count':
    case 'facet':
    case 'query':
    case 'sample':
      return { ...read, request: { ...read.request, filter: mergeFilters(read.request.filter, filter) } };
    case 'queries':
      return {
        ...read,
        request: {
          ...read.request,
          requests: read.request.requests.map((request) => ({
            ...request,
            filter: mergeFilters(request.filter, filter),
          })),
        },
      };
    default:
      return read;
  }
}

function isExcluded(id: PointId, exclusion: ReadExclusion): boolean {
  return exclusion.ring[ringShard(id, exclusion.ring)] === exclusion.owner;
}

/** `selector` widened to return vector `name` too. */
function withVector(selector: VectorSelector, name: string): VectorSelector {
  if ('enable' in selector) return selector.enable ? selector : { include: [name] };
  return selector.include.includes(name) ? selector : { include: [...selector.include, name] };
}

/** The point with only the vectors the client's selector asks for. */
function withSelectedVectors(point: ScoredPoint, selector: VectorSelector): ScoredPoint {
  const { vectors, ...rest } = point;
  const selected = vectors && selectVectors(vectors, selector);
  return selected ? { ...rest, vectors: selected } : rest;
}

function inputsOfStage(stage: PrefetchQuery): VectorInput[] {
  const inputs: VectorInput[] = [];
  mapQueryInputs({ ...stage, prefetch: [] }, (input) => (inputs.push(input), input));
  return inputs;
}
