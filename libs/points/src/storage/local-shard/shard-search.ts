// Vector search across a shard's segments: the per-segment bests merged into one top-k.
import { Filter } from '../../model/filter.model';
import { SearchParams } from '../../model/query.model';
import { Vector } from '../../model/vectors.model';
import { Segment, SlotPredicate } from '../segment';
import { PointRef } from './shard-points';

/** A search hit inside a shard. */
export interface ShardHit extends PointRef {
  score: number;
}

/**
 * The `k` best hits for a query on vector space `name` among points passing `filter`, best
 * first. `higherIsBetter` orders scores (false for distances).
 */
export function searchSegments(
  segments: readonly Segment[],
  name: string,
  query: Vector,
  k: number,
  filter: Filter | undefined,
  params: SearchParams | undefined,
  higherIsBetter: boolean,
): ShardHit[] {
  const hits: ShardHit[] = [];
  for (const segment of segments) {
    if (segment.pointCount === 0) continue;
    const allowed: SlotPredicate | undefined = filter ? segment.filterPredicate(filter) : undefined;
    const found = segment.search(name, query, k, allowed, params);
    for (let i = 0; i < found.slots.length; i++) hits.push({ segment, slot: found.slots[i], score: found.scores[i] });
  }
  hits.sort((a, b) => (higherIsBetter ? b.score - a.score : a.score - b.score));
  return hits.slice(0, k);
}
