import { Injectable } from '@nestjs/common';
import { validateFilter } from '../filter/filter-validation';
import { Filter } from '../model/filter.model';
import { comparePointIds, PointId } from '../model/point-id.model';
import { ShardKeySelector } from '../model/selectors.model';
import { Segment } from '../storage/segment';
import { spaceHigherIsBetter } from '../storage/segment-vectors';
import { requireSpace } from '../storage/vector-space';
import { CollectionContexts } from './collection-context';

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
      context.isIndexed,
    );
    const space = requireSpace(context.storage.spaces, request.using);
    const candidates: SampledPoint[] = [];
    for (const handle of context.storage.readShards(request.shardKeySelector)) {
      for (const segment of handle.shard.segments) {
        const store = segment.vectorStore(request.using);
        if (!store || store.count === 0) continue;
        for (const slot of segment.matchingSlots(request.filter)) {
          if (store.has(slot)) candidates.push({ id: segment.pointId(slot), segment, slot });
        }
      }
    }
    const sampled = randomSample(candidates, request.sample).sort((a, b) => comparePointIds(a.id, b.id));
    if (sampled.length < 2) return { ids: [], neighbours: [] };
    const rows = scoreRows(sampled, request.using);
    return { ids: sampled.map((p) => p.id), neighbours: nearestPerRow(rows, request.limit, spaceHigherIsBetter(space)) };
  }
}

/**
 * Every sampled point scored against every sampled point: `rows[i]` holds the scores of point `i`'s
 * vector against the others (by offset), itself left out.
 */
function scoreRows(sampled: SampledPoint[], using: string): MatrixNeighbour[][] {
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
    const scored: MatrixNeighbour[] = [];
    for (const [segment, group] of bySegment) {
      const hits = segment.vectorStore(using)!.score(query, group.slots);
      for (let i = 0; i < hits.slots.length; i++) {
        const offset = group.offsets.get(hits.slots[i]);
        if (offset !== undefined && offset !== row) scored.push({ offset, score: hits.scores[i] });
      }
    }
    return scored;
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

/** Up to `size` distinct items chosen uniformly at random (a partial Fisher–Yates shuffle). */
export function randomSample<T>(items: readonly T[], size: number, random: () => number = Math.random): T[] {
  const pool = [...items];
  const take = Math.min(size, pool.length);
  for (let i = 0; i < take; i++) {
    const j = i + Math.floor(random() * (pool.length - i));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool.slice(0, take);
}
