// Spin locks in shared memory for the parallel build (hnswlib's link_list_locks_ and global lock). Graph
// reads stay lock-free: every aligned u32 read yields a valid slot id, so a racing reader can at worst see
// a neighbour list mid-update, which only affects which candidates it considers.
import * as L from '../layout';
import * as S from '../state';

@inline function acquire(p: usize): void {
  while (atomic.cmpxchg<u32>(p, 0, 1) != 0) {
    // spin: critical sections are a few hundred nanoseconds (one neighbour-list update)
  }
}

@inline function release(p: usize): void {
  atomic.store<u32>(p, 0);
}

@inline export function lockNode(slot: u32): void {
  if (S.mt) acquire(S.locksBase + (<usize>slot << 2));
}

@inline export function unlockNode(slot: u32): void {
  if (S.mt) release(S.locksBase + (<usize>slot << 2));
}

@inline export function lockGlobal(): void {
  acquire(S.header + (<usize>L.H_GLOBAL_LOCK << 2));
}

@inline export function unlockGlobal(): void {
  release(S.header + (<usize>L.H_GLOBAL_LOCK << 2));
}

/** Current entryPoint and maxLevel as published in the header. */
export function readEntry(): void {
  const e = <i32>atomic.load<u32>(S.header + (<usize>L.H_ENTRY << 2));
  const l = <i32>atomic.load<u32>(S.header + (<usize>L.H_MAX_LEVEL << 2));
  S.setEntry(e, l);
}

export function publishEntry(e: i32, level: i32): void {
  atomic.store<u32>(S.header + (<usize>L.H_MAX_LEVEL << 2), <u32>level);
  atomic.store<u32>(S.header + (<usize>L.H_ENTRY << 2), <u32>e);
  S.setEntry(e, level);
}
