import { Injectable } from '@nestjs/common';
import { validateFilter } from '../filter/filter-validation';
import { Filter } from '../model/filter.model';
import { comparePointIds, PointId } from '../model/point-id.model';
import { ShardKeySelector } from '../model/selectors.model';
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
    const space = requireSpace(context.storage.spaces, request.using);
    // Sampled while scanning (reservoir), so a large collection is not copied out point by point.
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
    const sampled = reservoir.items.sort((a, b) => comparePointIds(a.id, b.id));
    if (sampled.length < 2) return { ids: [], neighbours: [] };
    return {
      ids: sampled.map((p) => p.id),
      neighbours: nearestRows(sampled, request.using, request.limit, spaceHigherIsBetter(space)),
    };
  }
}

/** A uniform random sample of up to `size` of the items offered one by one (Algorithm R). */
export class Reservoir<T> {
  readonly items: T[] = [];
  private seen = 0;

  constructor(
    private readonly size: number,
    private readonly random: () => number = Math.random,
  ) {}

  /** `make` runs only for items that enter the sample. */
  offer(make: () => T): void {
    this.seen++;
    if (this.items.length < this.size) {
      this.items.push(make());
      return;
    }
    const j = Math.floor(this.random() * this.seen);
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
  const better = (a: MatrixNeighbour, b: MatrixNeighbour) =>
    (higherIsBetter ? b.score - a.score : a.score - b.score) || a.offset - b.offset;
  return sampled.map((point, row) => {
    const query = point.segment.vectorStore(using)!.get(point.slot)!;
    // the best `limit` so far, best first: a bounded insertion, not a sort of the whole row
    const best: MatrixNeighbour[] = [];
    for (const [segment, group] of bySegment) {
      const hits = segment.vectorStore(using)!.score(query, group.slots);
      for (let i = 0; i < hits.slots.length; i++) {
        const offset = group.offsets.get(hits.slots[i]);
        if (offset === undefined || offset === row) continue;
        const candidate = { offset, score: hits.scores[i] };
        if (best.length === limit && better(candidate, best[limit - 1]) >= 0) continue;
        let at = best.length === limit ? limit - 1 : best.length;
        while (at > 0 && better(candidate, best[at - 1]) < 0) at--;
        best.splice(at, 0, candidate);
        if (best.length > limit) best.pop();
      }
    }
    return best;
  });
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
