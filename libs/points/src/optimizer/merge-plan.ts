import { Segment } from '../storage/segment';
import { PlanningState } from './planning-state';

/**
 * Qdrant's merge optimizer: while the shard would have more than `target` segments, merge the smallest ones
 * (the appendable segment too: a fresh one takes its writes), in batches whose vectors stay under `maxKb`. A batch
 * takes at least 3 segments, or 2 when a second batch comes with it, so that the count really goes down: merging
 * the appendable segment with one other leaves as many segments as before.
 */
export function planMerges(state: PlanningState, target: number, maxKb: number): void {
  const candidates = [...state.remaining].sort((a, b) => a.vectorDataKb() - b.vectorDataKb());
  let held: Segment[] | undefined;
  let taken = 0;
  let last = Math.max(0, state.expectedSegmentCount() + 2 - target);
  while (taken < Math.min(last, candidates.length)) {
    const batch = smallestWithin(candidates.slice(taken, Math.min(last, candidates.length)), maxKb);
    if (batch.length < 2) return;
    const first = taken === 0;
    taken += batch.length;
    last += 1;
    if (first && batch.length < 3) {
      held = batch;
      continue;
    }
    if (held) state.plan('merge', held);
    held = undefined;
    state.plan('merge', batch);
  }
}

/** The leading segments whose vectors together stay under `maxKb`. */
function smallestWithin(sorted: readonly Segment[], maxKb: number): Segment[] {
  const batch: Segment[] = [];
  let total = 0;
  for (const segment of sorted) {
    total += segment.vectorDataKb();
    if (total >= maxKb) break;
    batch.push(segment);
  }
  return batch;
}
