import { PointId } from '../../model/point-id.model';
import { PointsSelector } from '../../model/selectors.model';
import { Segment } from '../segment';

/** A point found in a segment. */
export interface PointRef {
  segment: Segment;
  slot: number;
}

/**
 * Where a live point is among `segments`, if anywhere. Writes see deferred points (`prevent_unoptimized`)
 * too; reads pass `'visible'`.
 */
export function findPoint(
  segments: readonly Segment[],
  id: PointId,
  scope: 'visible' | 'stored' = 'stored',
): PointRef | undefined {
  for (const segment of segments) {
    const slot = scope === 'stored' ? segment.slotOf(id) : segment.visibleSlotOf(id);
    if (slot !== undefined) return { segment, slot };
  }
  return undefined;
}

/** Live points chosen by ids or a filter, deferred ones included (what a write acts on). */
export function selectPoints(segments: readonly Segment[], selector: PointsSelector): PointRef[] {
  if ('ids' in selector) {
    return selector.ids.map((id) => findPoint(segments, id)).filter((ref): ref is PointRef => ref !== undefined);
  }
  const refs: PointRef[] = [];
  for (const segment of segments) {
    for (const slot of segment.matchingSlots(selector.filter, 'stored')) refs.push({ segment, slot });
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
