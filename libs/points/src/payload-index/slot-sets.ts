/** Sorted-slot-list helpers: every list here is ascending and duplicate-free. */

export const EMPTY_SLOTS = new Uint32Array(0);

/** Ascending, de-duplicated copy of any collection of slots. */
export function sortedSlots(slots: Iterable<number>): Uint32Array {
  const out = Uint32Array.from(slots instanceof Set ? slots : new Set(slots));
  return out.sort();
}

export function intersectSlots(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(Math.min(a.length, b.length));
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    if (a[i] < b[j]) i++;
    else if (a[i] > b[j]) j++;
    else {
      out[n++] = a[i];
      i++;
      j++;
    }
  }
  return out.subarray(0, n);
}

export function unionSlots(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i] < b[j])) out[n++] = a[i++];
    else if (i >= a.length || b[j] < a[i]) out[n++] = b[j++];
    else {
      out[n++] = a[i];
      i++;
      j++;
    }
  }
  return out.subarray(0, n);
}

/** Union of many slot collections. */
export function unionAll(sets: Iterable<Iterable<number>>): Uint32Array {
  const all = new Set<number>();
  for (const set of sets) for (const slot of set) all.add(slot);
  return sortedSlots(all);
}

/** First index in the ascending `values` whose value is >= `target` (or > when `strict`). */
export function lowerBound(values: Float64Array, target: number, strict: boolean): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (strict ? values[mid] <= target : values[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
