import { Segment } from '../storage/segment';
import { PlanningState } from './planning-state';

/**
 * Qdrant's indexing optimizer: index each appendable segment that reached `thresholdKb` of vectors (or holds points
 * deferred by `prevent_unoptimized`), largest first. Once the shard has `target` segments, a segment is indexed
 * together with the smallest other one waiting for indexing, or else with the smallest indexed segment (within
 * `maxKb`), so that indexing under sustained writes does not add a segment per job.
 */
export function planIndexing(state: PlanningState, target: number, thresholdKb: number, maxKb: number): void {
  if (thresholdKb <= 0) return;
  const bySize = (a: Segment, b: Segment) => a.vectorDataKb() - b.vectorDataKb();
  const unindexed = state.remaining
    .filter((s) => s.appendable && s.pointCount > 0 && (s.vectorDataKb() >= thresholdKb || s.deferredCount > 0))
    .sort(bySize);
  const indexed = state.remaining.filter((s) => !s.appendable).sort(bySize);
  for (let selected = unindexed.pop(); selected; selected = unindexed.pop()) {
    if (!state.has(selected)) continue;
    if (state.expectedSegmentCount() < target) {
      state.plan('indexing', [selected]);
      continue;
    }
    const fits = (other: Segment | undefined): other is Segment =>
      other !== undefined && state.has(other) && selected.vectorDataKb() + other.vectorDataKb() < maxKb;
    // Only each list's front (its smallest) is tried, as in Qdrant; a partner taken leaves its list.
    const partner = fits(unindexed[0]) ? unindexed.shift() : fits(indexed[0]) ? indexed.shift() : undefined;
    state.plan('indexing', partner ? [selected, partner] : [selected]);
  }
}
