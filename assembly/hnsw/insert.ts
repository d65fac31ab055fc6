// HNSW insertion (paper Alg. 1) with hnswlib's neighbour-selection heuristic (Alg. 4 without extension).
import * as S from '../state';
import { originalDist, queryDist, vectorAsF32 } from '../distance/dispatch';
import { levelOf, neighbors } from './graph';
import { rDrainAscending, rSize } from './heap';
import { greedyClosest, greedyDist, greedyId, searchLayer } from './search-layer';
import { lockGlobal, lockNode, publishEntry, readEntry, unlockGlobal, unlockNode } from './locks';

/**
 * selectNeighborsHeuristic: walks candidates (ascending (slot, dist) pairs at src) and keeps one only if
 * it is closer to the base than to every neighbour kept so far; writes up to maxN slots to dst.
 */
function selectNeighborsHeuristic(src: usize, n: i32, maxN: i32, dst: usize): i32 {
  if (n <= maxN) {
    for (let i = 0; i < n; i++) store<u32>(dst + ((<usize>i) << 2), load<u32>(src + ((<usize>i) << 3)));
    return n;
  }
  let kept = 0;
  for (let i = 0; i < n && kept < maxN; i++) {
    const id = load<u32>(src + ((<usize>i) << 3));
    const d = load<f32>(src + ((<usize>i) << 3), 4);
    const cand = vectorAsF32(id, S.tmpA);
    let good = true;
    for (let j = 0; j < kept; j++) {
      if (originalDist(cand, load<u32>(dst + ((<usize>j) << 2))) < d) {
        good = false;
        break;
      }
    }
    if (good) {
      store<u32>(dst + ((<usize>kept) << 2), id);
      kept++;
    }
  }
  return kept;
}

/** Adds the link nb -> slot on a level, shrinking nb's list with the heuristic when it is full. */
function linkBack(nb: u32, slot: u32, level: i32): void {
  const maxN = level == 0 ? S.m0 : S.m;
  const list = neighbors(nb, level);
  lockNode(nb);
  const n = <i32>load<u32>(list);
  if (n < maxN) {
    store<u32>(list + 4 + ((<usize>n) << 2), slot);
    store<u32>(list, n + 1);
    unlockNode(nb);
    return;
  }
  const base = vectorAsF32(nb, S.tmpB);
  const rep = S.repPtr;
  // gather existing neighbours plus the new one with distances to nb, then insertion-sort ascending
  for (let i = 0; i <= n; i++) {
    const id = i < n ? load<u32>(list + 4 + ((<usize>i) << 2)) : slot;
    const d = originalDist(base, id);
    let j = i;
    while (j > 0 && load<f32>(rep + ((<usize>(j - 1)) << 3), 4) > d) {
      store<u64>(rep + ((<usize>j) << 3), load<u64>(rep + ((<usize>(j - 1)) << 3)));
      j--;
    }
    store<u32>(rep + ((<usize>j) << 3), id);
    store<f32>(rep + ((<usize>j) << 3), d, 4);
  }
  const kept = selectNeighborsHeuristic(rep, n + 1, maxN, list + 4);
  store<u32>(list, kept);
  unlockNode(nb);
}

/** Inserts one slot whose vector, level and upper-record offset are already in place. */
export function insertOne(slot: u32): void {
  const level = levelOf(slot);
  lockNode(slot);
  store<u32>(neighbors(slot, 0), 0);
  for (let l = 1; l <= level; l++) store<u32>(neighbors(slot, l), 0);
  unlockNode(slot);
  // In a parallel build a node that may become the new entryPoint holds the global lock throughout
  // (hnswlib does the same); everyone else reads the published entryPoint once.
  let global = false;
  if (S.mt) {
    readEntry();
    if (S.entry < 0 || level > S.maxLevel) {
      lockGlobal();
      global = true;
      readEntry();
    }
  }
  if (S.entry < 0) {
    if (S.mt) publishEntry(<i32>slot, level);
    else S.setEntry(<i32>slot, level);
    if (global) unlockGlobal();
    return;
  }
  S.setCurQuery(vectorAsF32(slot, S.queryPtr));
  let cur = <u32>S.entry;
  let curDist = queryDist(cur);
  for (let l = S.maxLevel; l > level; l--) {
    greedyClosest(cur, curDist, l);
    cur = greedyId;
    curDist = greedyDist;
  }
  const top = level < S.maxLevel ? level : S.maxLevel;
  for (let l = top; l >= 0; l--) {
    searchLayer(cur, curDist, l, S.efConstruct);
    const n = rSize;
    if (n == 0) continue;
    rDrainAscending(S.bufPtr);
    const kept = selectNeighborsHeuristic(S.bufPtr, n, S.m, S.selPtr);
    const own = neighbors(slot, l);
    lockNode(slot);
    for (let i = 0; i < kept; i++) store<u32>(own + 4 + ((<usize>i) << 2), load<u32>(S.selPtr + ((<usize>i) << 2)));
    store<u32>(own, kept);
    unlockNode(slot);
    for (let i = 0; i < kept; i++) linkBack(load<u32>(S.selPtr + ((<usize>i) << 2)), slot, l);
    cur = load<u32>(S.bufPtr);
    curDist = load<f32>(S.bufPtr, 4);
  }
  if (level > S.maxLevel) {
    if (S.mt) publishEntry(<i32>slot, level);
    else S.setEntry(<i32>slot, level);
  }
  if (global) unlockGlobal();
}
