// searchLayer (HNSW paper, Alg. 2) and the greedy descent used on upper levels.
import * as S from '../state';
import { dataPtr, queryDist } from '../distance/dispatch';
import { accepted, neighbors } from './graph';
import { cCompact, cPop, cPush, cSize, cTopDist, cTopId, heapsReset, rPop, rPush, rSize, rTopDist } from './heap';
import { isVisited, markVisited, newEpoch } from './visited';

export let greedyId: u32 = 0;
/** Sink for the touch loads (kept observable so the loads are not optimized away). */
export let touch: u32 = 0;
export let greedyDist: f32 = 0;

/** Greedy walk on one upper level from (ep, epDist); leaves the closest found in greedyId/greedyDist. */
export function greedyClosest(ep: u32, epDist: f32, level: i32): void {
  let cur = ep;
  let curDist = epDist;
  let changed = true;
  while (changed) {
    changed = false;
    const list = neighbors(cur, level);
    const n = <i32>load<u32>(list);
    for (let i = 0; i < n; i++) {
      const nb = load<u32>(list + 4 + ((<usize>i) << 2));
      const d = queryDist(nb);
      if (d < curDist) {
        curDist = d;
        cur = nb;
        changed = true;
      }
    }
  }
  greedyId = cur;
  greedyDist = curDist;
}

/**
 * Best-first search on one level keeping ef results in the R heap. Deleted or filtered-out slots are
 * still traversed (they keep the graph connected) but never enter the results; with such slots around
 * the walk continues until ef results are found (hnswlib's rule).
 */
export function searchLayer(ep: u32, epDist: f32, level: i32, ef: i32): void {
  newEpoch();
  heapsReset();
  const filtering = S.useAllowed || S.deletedCount > 0;
  markVisited(ep);
  let bound: f32 = Infinity;
  if (accepted(ep)) {
    rPush(epDist, ep);
    bound = epDist;
  }
  cPush(epDist, ep);
  const cap = S.heapCap;
  while (cSize > 0) {
    const cd = cTopDist();
    if (cd > bound && (rSize >= ef || !filtering)) break;
    const cur = cTopId();
    cPop();
    const list = neighbors(cur, level);
    const n = <i32>load<u32>(list);
    // Pass 1: collect unvisited neighbours and touch every cache line of each one's data, so all their
    // cache misses are in flight together before any distance is computed (wasm has no prefetch
    // instruction, but independent loads overlap). Measured on 100k x 128: ~1.3x faster than touching
    // nothing or only the first line.
    const gather = S.selPtr;
    const touchBytes: usize = S.traversal == 0 ? S.vecStride : S.qStride;
    let cnt = 0;
    for (let i = 0; i < n; i++) {
      const nb = load<u32>(list + 4 + ((<usize>i) << 2));
      if (isVisited(nb)) continue;
      markVisited(nb);
      store<u32>(gather + ((<usize>cnt) << 2), nb);
      const dp = dataPtr(nb);
      for (let off: usize = 0; off < touchBytes; off += 64) touch ^= load<u32>(dp + off);
      cnt++;
    }
    for (let i = 0; i < cnt; i++) {
      const nb = load<u32>(gather + ((<usize>i) << 2));
      const d = queryDist(nb);
      if (rSize < ef || d < bound) {
        if (cSize >= cap) {
          cCompact(bound);
          if (cSize >= cap) continue;
        }
        cPush(d, nb);
        if (accepted(nb)) {
          rPush(d, nb);
          if (rSize > ef) rPop();
        }
        if (rSize > 0) bound = rTopDist();
      }
    }
  }
}
