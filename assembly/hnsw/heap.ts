// Binary heaps of (f32 dist, u32 slot) pairs in linear memory: C is a min-heap of candidates to expand,
// R a max-heap of the best results so far (its top is the worst kept result).
import { heapC, heapR } from '../state';

export let cSize: i32 = 0;
export let rSize: i32 = 0;

export function heapsReset(): void {
  cSize = 0;
  rSize = 0;
}

@inline function dAt(base: usize, i: i32): f32 {
  return load<f32>(base + (<usize>i << 3));
}
@inline function idAt(base: usize, i: i32): u32 {
  return load<u32>(base + (<usize>i << 3), 4);
}
@inline function put(base: usize, i: i32, d: f32, id: u32): void {
  const p = base + (<usize>i << 3);
  store<f32>(p, d);
  store<u32>(p, id, 4);
}

@inline export function cTopDist(): f32 {
  return load<f32>(heapC);
}
@inline export function cTopId(): u32 {
  return load<u32>(heapC, 4);
}
@inline export function rTopDist(): f32 {
  return load<f32>(heapR);
}
@inline export function rTopId(): u32 {
  return load<u32>(heapR, 4);
}

export function cPush(d: f32, id: u32): void {
  let i = cSize++;
  while (i > 0) {
    const p = (i - 1) >> 1;
    const pd = dAt(heapC, p);
    if (pd <= d) break;
    put(heapC, i, pd, idAt(heapC, p));
    i = p;
  }
  put(heapC, i, d, id);
}

export function cPop(): void {
  const n = --cSize;
  if (n == 0) return;
  const d = dAt(heapC, n);
  const id = idAt(heapC, n);
  let i = 0;
  while (true) {
    let c = 2 * i + 1;
    if (c >= n) break;
    let cd = dAt(heapC, c);
    if (c + 1 < n) {
      const rd = dAt(heapC, c + 1);
      if (rd < cd) {
        c++;
        cd = rd;
      }
    }
    if (cd >= d) break;
    put(heapC, i, cd, idAt(heapC, c));
    i = c;
  }
  put(heapC, i, d, id);
}

/** Drops candidates no better than bound (they can never be expanded) and re-heapifies. */
export function cCompact(bound: f32): void {
  let n = 0;
  for (let i = 0; i < cSize; i++) {
    const d = dAt(heapC, i);
    if (d < bound) {
      put(heapC, n, d, idAt(heapC, i));
      n++;
    }
  }
  cSize = 0;
  // re-insert in place: entries 0..n-1 are already stored; sift each up
  for (let i = 0; i < n; i++) {
    const d = dAt(heapC, i);
    const id = idAt(heapC, i);
    cPush(d, id);
  }
}

export function rPush(d: f32, id: u32): void {
  let i = rSize++;
  while (i > 0) {
    const p = (i - 1) >> 1;
    const pd = dAt(heapR, p);
    if (pd >= d) break;
    put(heapR, i, pd, idAt(heapR, p));
    i = p;
  }
  put(heapR, i, d, id);
}

function rSiftDown(d: f32, id: u32, n: i32): void {
  let i = 0;
  while (true) {
    let c = 2 * i + 1;
    if (c >= n) break;
    let cd = dAt(heapR, c);
    if (c + 1 < n) {
      const rd = dAt(heapR, c + 1);
      if (rd > cd) {
        c++;
        cd = rd;
      }
    }
    if (cd <= d) break;
    put(heapR, i, cd, idAt(heapR, c));
    i = c;
  }
  put(heapR, i, d, id);
}

export function rPop(): void {
  const n = --rSize;
  if (n == 0) return;
  rSiftDown(dAt(heapR, n), idAt(heapR, n), n);
}

/** Replaces the worst result (the top) with a better one. */
export function rReplaceTop(d: f32, id: u32): void {
  rSiftDown(d, id, rSize);
}

/** Pops every result into dst as ascending (slot u32, dist f32) pairs; returns how many. */
export function rDrainAscending(dst: usize): i32 {
  const n = rSize;
  for (let i = n - 1; i >= 0; i--) {
    const p = dst + (<usize>i << 3);
    store<u32>(p, rTopId());
    store<f32>(p, rTopDist(), 4);
    rPop();
  }
  return n;
}
