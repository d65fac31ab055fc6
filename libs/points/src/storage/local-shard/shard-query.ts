import { Filter } from '../../model/filter.model';
import { PointId } from '../../model/point-id.model';
import { SearchParams } from '../../model/query.model';
import { PointsSelector } from '../../model/selectors.model';
import { Vector } from '../../model/vectors.model';
import { Segment, SlotPredicate } from '../segment';

/** A point found in a segment. */
export interface PointRef {
  segment: Segment;
  slot: number;
}

/** A search hit inside a shard. */
export interface ShardHit extends PointRef {
  score: number;
}

/** Where a live point is among `segments`, if anywhere. */
export function findPoint(segments: readonly Segment[], id: PointId): PointRef | undefined {
  for (const segment of segments) {
    const slot = segment.slotOf(id);
    if (slot !== undefined) return { segment, slot };
  }
  return undefined;
}

/** Live points chosen by ids or a filter. */
export function selectPoints(segments: readonly Segment[], selector: PointsSelector): PointRef[] {
  if ('ids' in selector) {
    return selector.ids.map((id) => findPoint(segments, id)).filter((ref): ref is PointRef => ref !== undefined);
  }
  const refs: PointRef[] = [];
  for (const segment of segments) {
    for (const slot of segment.matchingSlots(selector.filter)) refs.push({ segment, slot });
  }
  return refs;
}

export function livePointCount(segments: readonly Segment[]): number {
  return segments.reduce((sum, segment) => sum + segment.pointCount, 0);
}

/** Number of vectors held in indexed (graph-searched) segments. */
export function indexedVectorCount(segments: readonly Segment[]): number {
  let count = 0;
  for (const segment of segments) {
    for (const name of segment.vectorNames()) {
      const store = segment.vectorStore(name)!;
      if (store.indexed && store.space.kind !== 'sparse') count += store.count;
    }
  }
  return count;
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
