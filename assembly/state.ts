// Index state: the header in linear memory is the source of truth (it is what save/load and the engine
// library see); every exported entry point copies it into globals first and writes mutable fields back.
import * as L from './layout';

/** Address of the header, set once per instance by the engine library. */
export let header: usize = 0;

export function setHeader(p: usize): void {
  header = p;
}

@inline export function hget(i: i32): u32 {
  return load<u32>(header + (<usize>i << 2));
}
@inline export function hset(i: i32, v: u32): void {
  store<u32>(header + (<usize>i << 2), v);
}
@inline function hgetf(i: i32): f32 {
  return load<f32>(header + (<usize>i << 2));
}

export let dim: i32 = 0;
export let dimPad: i32 = 0;
export let dtype: i32 = 0;
export let metric: i32 = 0;
export let normed: bool = false;
export let m: i32 = 0;
export let m0: i32 = 0;
export let efConstruct: i32 = 0;
export let count: u32 = 0;
export let entry: i32 = -1;
export let maxLevel: i32 = -1;
export let upperUsed: u32 = 0;
export let vecBase: usize = 0;
export let vecStride: usize = 0;
export let normBase: usize = 0;
export let l0Base: usize = 0;
export let l0Stride: usize = 0;
export let levelBase: usize = 0;
export let upOffBase: usize = 0;
export let upperBase: usize = 0;
export let upStride: usize = 0;
export let deletedBase: usize = 0;
export let allowedBase: usize = 0;
export let visitedBase: usize = 0;
export let epoch: u32 = 0;
export let queryPtr: usize = 0;
export let tmpA: usize = 0;
export let tmpB: usize = 0;
export let heapC: usize = 0;
export let heapR: usize = 0;
export let heapCap: i32 = 0;
export let outPtr: usize = 0;
export let bufPtr: usize = 0;
export let selPtr: usize = 0;
export let repPtr: usize = 0;
export let qKind: i32 = 0;
export let qCode: usize = 0;
export let qStride: usize = 0;
export let qAux: usize = 0;
export let qParam: usize = 0;
export let qQuery: usize = 0;
export let qBits: i32 = 0;
export let qSubDim: i32 = 0;
export let qLo: f32 = 0;
export let qScale: f32 = 0;
export let qQueryMode: i32 = 0;
export let qPlaneLo: f32 = 0;
export let qPlaneScale: f32 = 0;
export let deletedCount: u32 = 0;

export let locksBase: usize = 0;
/** True inside a parallel build: graph writes take per-node locks, entryPoint reads are atomic. */
export let mt: bool = false;

// per call
export let traversal: i32 = 0;
export let useAllowed: bool = false;
export let curQuery: usize = 0; // f32 query the original-vector kernels compare against

export function setTraversal(t: i32): void {
  traversal = t;
}
export function setUseAllowed(v: bool): void {
  useAllowed = v;
}
export function setCurQuery(p: usize): void {
  curQuery = p;
}
export function setEntry(e: i32, level: i32): void {
  entry = e;
  maxLevel = level;
}
export function setUpperUsed(v: u32): void {
  upperUsed = v;
}
export function setEpoch(v: u32): void {
  epoch = v;
}
export function setPlane(lo: f32, scale: f32): void {
  qPlaneLo = lo;
  qPlaneScale = scale;
}

export function loadState(): void {
  dim = <i32>hget(L.H_DIM);
  dimPad = <i32>hget(L.H_DIM_PAD);
  dtype = <i32>hget(L.H_DTYPE);
  metric = <i32>hget(L.H_METRIC);
  normed = hget(L.H_NORMED) != 0;
  m = <i32>hget(L.H_M);
  m0 = <i32>hget(L.H_M0);
  efConstruct = <i32>hget(L.H_EF_CONSTRUCT);
  count = hget(L.H_COUNT);
  entry = <i32>hget(L.H_ENTRY);
  maxLevel = <i32>hget(L.H_MAX_LEVEL);
  upperUsed = hget(L.H_UPPER_USED);
  vecBase = hget(L.H_VEC);
  vecStride = hget(L.H_VEC_STRIDE);
  normBase = hget(L.H_NORM);
  l0Base = hget(L.H_L0);
  l0Stride = hget(L.H_L0_STRIDE);
  levelBase = hget(L.H_LEVEL);
  upOffBase = hget(L.H_UP_OFF);
  upperBase = hget(L.H_UPPER);
  upStride = hget(L.H_UP_STRIDE);
  deletedBase = hget(L.H_DELETED);
  allowedBase = hget(L.H_ALLOWED);
  visitedBase = hget(L.H_VISITED);
  epoch = hget(L.H_EPOCH);
  queryPtr = hget(L.H_QUERY);
  tmpA = hget(L.H_TMP_A);
  tmpB = hget(L.H_TMP_B);
  heapC = hget(L.H_HEAP_C);
  heapR = hget(L.H_HEAP_R);
  heapCap = <i32>hget(L.H_HEAP_CAP);
  outPtr = hget(L.H_OUT);
  bufPtr = hget(L.H_BUF);
  selPtr = hget(L.H_SEL);
  repPtr = hget(L.H_REP);
  qKind = <i32>hget(L.H_Q_KIND);
  qCode = hget(L.H_Q_CODE);
  qStride = hget(L.H_Q_STRIDE);
  qAux = hget(L.H_Q_AUX);
  qParam = hget(L.H_Q_PARAM);
  qQuery = hget(L.H_Q_QUERY);
  qBits = <i32>hget(L.H_Q_BITS);
  qSubDim = <i32>hget(L.H_Q_SUB_DIM);
  qLo = hgetf(L.H_Q_LO);
  qScale = hgetf(L.H_Q_SCALE);
  qQueryMode = <i32>hget(L.H_Q_QUERY_MODE);
  qPlaneLo = hgetf(L.H_Q_PLANE_LO);
  qPlaneScale = hgetf(L.H_Q_PLANE_SCALE);
  deletedCount = hget(L.H_DELETED_COUNT);
  locksBase = hget(L.H_LOCKS);
  mt = false;
  curQuery = queryPtr;
  traversal = L.TR_ORIGINAL;
  useAllowed = false;
}

/**
 * Points the per-call scratch (query, temporaries, heaps, output, visited set) at a thread's own block, laid
 * out as threadScratchBytes describes, and starts a fresh visited epoch there.
 */
export function useThreadScratch(base: usize): void {
  let p = base;
  const vec = (<usize>dimPad << 2);
  queryPtr = p;
  p += vec;
  tmpA = p;
  p += 2 * vec;
  tmpB = p;
  p += vec;
  heapC = p;
  p += <usize>heapCap << 3;
  heapR = p;
  p += <usize>heapCap << 3;
  outPtr = p;
  p += <usize>heapCap << 3;
  bufPtr = p;
  p += <usize>heapCap << 3;
  selPtr = p;
  p += (<usize>(m0 + 2)) << 2;
  repPtr = p;
  p += (<usize>(m0 + 2)) << 3;
  p = (p + 63) & ~63;
  allowedBase = p;
  p += (<usize>(capacityOf() + 511) >> 9) << 6;
  visitedBase = p;
  memory.fill(visitedBase, 0, <usize>count << 1);
  epoch = 0;
  curQuery = queryPtr;
}

/** Bytes of one thread's scratch block for the current header values and a slot capacity. */
export function threadScratchBytes(capacity: u32): usize {
  const vec: usize = <usize>dimPad << 2;
  const fixed: usize = (vec << 2) + (<usize>heapCap << 5) + <usize>(m0 + 2) * 12;
  const allowed: usize = (<usize>(capacity + 511) >> 9) << 6;
  const visited: usize = ((<usize>capacity << 1) + 63) & ~63;
  return ((fixed + 63) & ~63) + allowed + visited;
}

@inline function capacityOf(): u32 {
  return hget(L.H_CAPACITY);
}

export function setMt(v: bool): void {
  mt = v;
}

/** Writes back the fields kernels may change. */
export function storeState(): void {
  if (mt) return; // threads keep their epoch; entryPoint changes were published atomically
  hset(L.H_ENTRY, <u32>entry);
  hset(L.H_MAX_LEVEL, <u32>maxLevel);
  hset(L.H_UPPER_USED, upperUsed);
  hset(L.H_EPOCH, epoch);
  store<f32>(header + (<usize>L.H_Q_PLANE_LO << 2), qPlaneLo);
  store<f32>(header + (<usize>L.H_Q_PLANE_SCALE << 2), qPlaneScale);
}
