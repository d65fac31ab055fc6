import { Injectable } from '@nestjs/common';
import { validateFilter } from '../filter/filter-validation';
import { Filter } from '../model/filter.model';
import { comparePointIds, PointId, pointIdKey } from '../model/point-id.model';
import { ScoredPoint } from '../model/point.model';
import { QueryRequest, ReadConsistency } from '../model/query.model';
import { ShardKeySelector } from '../model/selectors.model';
import { Vector } from '../model/vectors.model';
import { Segment } from '../storage/segment';
import { requireSpace, spaceHigherIsBetter } from '../storage/vector-space';
import { CollectionContexts } from './collection-context';
import { filterRateCost } from './strict-mode';

/** Qdrant's defaults for the distance matrix API. */
export const MATRIX_DEFAULT_SAMPLE = 10;
export const MATRIX_DEFAULT_LIMIT = 3;

/** SearchMatrixPairs / SearchMatrixOffsets: sample points, then each one's nearest among the sample. */
export interface DistanceMatrixRequest {
  /** Points to sample from: those passing the filter that have the `using` vector. */
  filter?: Filter;
  /** How many points to sample (at most). */
  sample: number;
  /** Neighbours kept per sampled point. */
  limit: number;
  /** Vector name ("" is the unnamed vector). */
  using: string;
  shardKeySelector?: ShardKeySelector;
  timeout?: number;
  /** Cluster mode: how many replicas of each shard must answer. */
  readConsistency?: ReadConsistency;
}

/** One neighbour of a sampled point: its position in {@link DistanceMatrix.ids} and its score. */
export interface MatrixNeighbour {
  offset: number;
  score: number;
}

/**
 * The sampled points in point-id order, and for each (same order) its nearest other sampled points,
 * best first. Empty when fewer than two points could be sampled, as Qdrant answers.
 */
export interface DistanceMatrix {
  ids: PointId[];
  neighbours: MatrixNeighbour[][];
}

interface SampledPoint {
  id: PointId;
  segment: Segment;
  slot: number;
}

/**
 * Qdrant's distance matrix: a random sample of the points matching the filter (and having the
 * vector), then, for each sampled point, its `limit` nearest among the sample, itself excluded.
 * Scores are the search scores of the vector space (similarities, or distances for Euclid and
 * Manhattan), computed exactly against every other sampled point.
 */
@Injectable()
export class DistanceMatrixService {
  constructor(private readonly contexts: CollectionContexts) {}

  compute(collectionName: string, request: DistanceMatrixRequest): DistanceMatrix {
    this.admit(collectionName, request);
    const context = this.contexts.resolve(collectionName);
    const space = requireSpace(context.storage.spaces, request.using);
    const sampled = this.reservoir(collectionName, request).items.sort((a, b) => comparePointIds(a.id, b.id));
    if (sampled.length < 2) return { ids: [], neighbours: [] };
    return {
      ids: sampled.map((p) => p.id),
      neighbours: nearestRows(sampled, request.using, request.limit, spaceHigherIsBetter(space)),
    };
  }

  /**
   * The request's checks and strict mode's charge, as `compute` does first (cluster mode: once at the
   * coordinator, whose peers then sample without strict mode).
   */
  admit(collectionName: string, request: DistanceMatrixRequest): void {
    const context = this.contexts.resolve(collectionName);
    if (request.filter) validateFilter(request.filter);
    // Strict mode counts the whole matrix as the query's size, as Qdrant does (sample × limit).
    this.contexts.strict.checkRead(
      context.record.name,
      context.record.config.strictModeConfig,
      { limit: request.sample * request.limit, timeout: request.timeout, filter: request.filter },
      context.indexSchemaOf,
    );
    // One search per sampled point, each 1 plus the filter's conditions.
    this.contexts.strict.chargeRead(
      context.record.id,
      context.record.config.strictModeConfig,
      request.sample * (1 + filterRateCost(request.filter)),
    );
  }

  /**
   * A peer's part of a matrix over several peers: a uniform sample of up to `sample` of its matching
   * points with their `using` vector, in random order, and how many points it sampled from (so the
   * coordinator can draw from the parts in proportion, see mergeSamples).
   */
  sample(collectionName: string, request: DistanceMatrixRequest): MatrixSample {
    const reservoir = this.reservoir(collectionName, request);
    const points = shuffled(reservoir.items).map((p) => ({
      id: p.id,
      vector: p.segment.vectorStore(request.using)!.get(p.slot)!,
    }));
    return { seen: reservoir.seen, points };
  }

  /**
   * The matrix over points sampled on several peers, as Qdrant computes it: one nearest query per
   * sampled point (its own vector) restricted to the sample, run over every shard, so each neighbour
   * is scored by the shard holding it (as `compute` scores it, sparse IDF included). `search` runs the
   * queries over the peers and merges each one's hits, best first.
   */
  async fromSample(
    collectionName: string,
    request: DistanceMatrixRequest,
    points: SampledVector[],
    search: (queries: QueryRequest[]) => Promise<ScoredPoint[][]>,
  ): Promise<DistanceMatrix> {
    const sampled = [...points].sort((a, b) => comparePointIds(a.id, b.id));
    if (sampled.length < 2) return { ids: [], neighbours: [] };
    const ids = sampled.map((p) => p.id);
    const offsets = new Map(ids.map((id, offset) => [pointIdKey(id), offset]));
    const rows = await search(
      sampled.map((point) => ({
        prefetch: [],
        query: { nearest: { vector: point.vector } },
        using: request.using,
        filter: { must: [{ hasId: ids }] },
        params: { exact: true },
        // one more, as the point itself is among its own nearest
        limit: request.limit + 1,
        offset: 0,
        withPayload: { enable: false },
        withVectors: { enable: false },
        shardKeySelector: request.shardKeySelector,
        timeout: request.timeout,
      })),
    );
    const neighbours = rows.map((hits, row) =>
      hits
        .map((hit) => ({ offset: offsets.get(pointIdKey(hit.id)) ?? -1, score: hit.score }))
        .filter((n) => n.offset >= 0 && n.offset !== row)
        .slice(0, request.limit),
    );
    return { ids, neighbours };
  }

  /** Sampled while scanning (reservoir), so a large collection is not copied out point by point. */
  private reservoir(collectionName: string, request: DistanceMatrixRequest): Reservoir<SampledPoint> {
    const context = this.contexts.resolve(collectionName);
    requireSpace(context.storage.spaces, request.using);
    const reservoir = new Reservoir<SampledPoint>(request.sample);
    for (const handle of context.readShards(request.shardKeySelector)) {
      for (const segment of handle.shard.segments) {
        const store = segment.vectorStore(request.using);
        if (!store || store.count === 0) continue;
        const passes = segment.filterPredicate(request.filter);
        for (let slot = 0; slot < segment.size; slot++) {
          if (passes(slot) && store.has(slot)) reservoir.offer(() => ({ id: segment.pointId(slot), segment, slot }));
        }
      }
    }
    return reservoir;
  }
}

/** A sampled point with its vector, as a peer sends it to the coordinator. */
export interface SampledVector {
  id: PointId;
  vector: Vector;
}

/** One peer's sample for a matrix: up to `sample` points in random order, drawn from `seen` points. */
export interface MatrixSample {
  seen: number;
  points: SampledVector[];
}

/**
 * A uniform sample of up to `size` points of the union of the parts: each draw takes the next point of
 * a part chosen in proportion to the points that part has not given yet (drawing without replacement
 * over the whole union, since each part's list is itself a uniform sample in random order).
 */
export function mergeSamples(
  parts: readonly MatrixSample[],
  size: number,
  random: () => number = Math.random,
): SampledVector[] {
  const left = parts.map((part) => part.seen);
  const taken = parts.map(() => 0);
  const result: SampledVector[] = [];
  let total = left.reduce((sum, n) => sum + n, 0);
  while (result.length < size && total > 0) {
    let r = Math.floor(random() * total);
    let i = 0;
    while (r >= left[i]) r -= left[i++];
    const point = parts[i].points[taken[i]++];
    left[i]--;
    total--;
    if (point) result.push(point);
  }
  return result;
}

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** A uniform random sample of up to `size` of the items offered one by one (Algorithm R). */
export class Reservoir<T> {
  readonly items: T[] = [];
  private offered = 0;

  constructor(
    private readonly size: number,
    private readonly random: () => number = Math.random,
  ) {}

  /** How many items were offered. */
  get seen(): number {
    return this.offered;
  }

  /** `make` runs only for items that enter the sample. */
  offer(make: () => T): void {
    this.offered++;
    if (this.items.length < this.size) {
      this.items.push(make());
      return;
    }
    const j = Math.floor(this.random() * this.offered);
    if (j < this.size) this.items[j] = make();
  }
}

/**
 * For each sampled point, its `limit` nearest among the sample (itself left out). Each row is
 * scored against every sampled point, then cut to `limit` at once, so only sample × limit
 * neighbours are ever held.
 */
function nearestRows(
  sampled: SampledPoint[],
  using: string,
  limit: number,
  higherIsBetter: boolean,
): MatrixNeighbour[][] {
  // Score a query against each segment's sampled slots in one engine call.
  const bySegment = new Map<Segment, { slots: number[]; offsets: Map<number, number> }>();
  sampled.forEach((point, offset) => {
    let group = bySegment.get(point.segment);
    if (!group) bySegment.set(point.segment, (group = { slots: [], offsets: new Map() }));
    group.slots.push(point.slot);
    group.offsets.set(point.slot, offset);
  });
  return sampled.map((point, row) => {
    const query = point.segment.vectorStore(using)!.get(point.slot)!;
    const best = new BestNeighbours(limit, higherIsBetter);
    for (const [segment, group] of bySegment) {
      const hits = segment.vectorStore(using)!.score(query, group.slots);
      for (let i = 0; i < hits.slots.length; i++) {
        const offset = group.offsets.get(hits.slots[i]);
        if (offset !== undefined && offset !== row) best.offer({ offset, score: hits.scores[i] });
      }
    }
    return best.items;
  });
}

/**
 * The best `limit` neighbours offered so far, best first (ascending scores for distances; ties to the
 * lower offset): a bounded insertion, not a sort of the whole row.
 */
class BestNeighbours {
  readonly items: MatrixNeighbour[] = [];

  constructor(
    private readonly limit: number,
    private readonly higherIsBetter: boolean,
  ) {}

  offer(candidate: MatrixNeighbour): void {
    const best = this.items;
    const limit = this.limit;
    if (limit <= 0) return;
    if (best.length === limit && this.compare(candidate, best[limit - 1]) >= 0) return;
    let at = best.length === limit ? limit - 1 : best.length;
    while (at > 0 && this.compare(candidate, best[at - 1]) < 0) at--;
    best.splice(at, 0, candidate);
    if (best.length > limit) best.pop();
  }

  private compare(a: MatrixNeighbour, b: MatrixNeighbour): number {
    return (this.higherIsBetter ? b.score - a.score : a.score - b.score) || a.offset - b.offset;
  }
}

/**
 * The `limit` best neighbours of each row, best first (ascending scores for distances); ties go to
 * the lower offset, i.e. the lower point id.
 */
export function nearestPerRow(rows: MatrixNeighbour[][], limit: number, higherIsBetter: boolean): MatrixNeighbour[][] {
  return rows.map((row) =>
    [...row]
      .sort((a, b) => (higherIsBetter ? b.score - a.score : a.score - b.score) || a.offset - b.offset)
      .slice(0, limit),
  );
}
