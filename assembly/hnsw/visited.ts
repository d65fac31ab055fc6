// Epoch-stamped visited set (hnswlib's VisitedList): one u16 per slot, never cleared per query; a slot is
// visited when its stamp equals the current epoch. The array is wiped only when the epoch wraps.
import { count, epoch, setEpoch, visitedBase } from '../state';

export function newEpoch(): void {
  let e = epoch + 1;
  if (e > 0xffff) {
    memory.fill(visitedBase, 0, <usize>count << 1);
    e = 1;
  }
  setEpoch(e);
}

@inline export function isVisited(slot: u32): bool {
  return load<u16>(visitedBase + (<usize>slot << 1)) == <u16>epoch;
}

@inline export function markVisited(slot: u32): void {
  store<u16>(visitedBase + (<usize>slot << 1), <u16>epoch);
}
