// Typed view of the WebAssembly exports of build/wasm/engine.wasm (assembly/index.ts).

/** A distance kernel: (f32 query ptr, stored vector ptr, dim) -> f32. */
export type KernelFn = (a: number, b: number, n: number) => number;

export interface EngineExports {
  readonly memory: WebAssembly.Memory;
  abiVersion(): number;
  setHeader(ptr: number): void;
  heapBase(): number;
  threadScratchBytes(capacity: number): number;
  insertParallel(scratch: number): void;
  searchIn(scratch: number, k: number, ef: number, traversal: number, useAllowed: number, exact: number): number;
  rescoreIn(scratch: number, n: number, k: number): number;
  touchSink(): number;
  threadOutOffset(): number;
  threadAllowedOffset(): number;
  insertBatch(start: number, n: number): void;
  searchKnn(k: number, ef: number, traversal: number, useAllowed: number): number;
  searchExact(k: number, traversal: number, useAllowed: number): number;
  rescore(n: number, k: number): number;
  encodeRange(start: number, n: number): void;
  distances(ids: number, n: number, out: number): void;
  rowDistances(rows: number, ids: number, n: number, out: number): void;
  dotF32: KernelFn;
  l2sqF32: KernelFn;
  l1F32: KernelFn;
  dotF32Scalar: KernelFn;
  l2sqF32Scalar: KernelFn;
  l1F32Scalar: KernelFn;
  dotF16: KernelFn;
  l2sqF16: KernelFn;
  l1F16: KernelFn;
  dotF16Scalar: KernelFn;
  l2sqF16Scalar: KernelFn;
  l1F16Scalar: KernelFn;
  decodeF16(src: number, dst: number, n: number): void;
  dotU8: KernelFn;
  l2sqU8: KernelFn;
  l1U8: KernelFn;
  dotU8Scalar: KernelFn;
  l2sqU8Scalar: KernelFn;
  l1U8Scalar: KernelFn;
  l2sqCodes: KernelFn;
  dotCodes: KernelFn;
  l1Codes: KernelFn;
  l2sqCodesScalar: KernelFn;
  dotCodesScalar: KernelFn;
  l1CodesScalar: KernelFn;
  hamming(a: number, b: number, nWords: number): number;
  planeScore(planes: number, nPlanes: number, code: number, nWords: number, lo: number, scale: number): number;
  pqDistance(table: number, code: number, nSub: number): number;
  assignCentroids(points: number, n: number, centroids: number, k: number, sub: number, labels: number): void;
  maxSim(q: number, nq: number, doc: number, nd: number, dim: number, metric: number): number;
  maxSimScan(
    q: number,
    nq: number,
    vectors: number,
    offsets: number,
    counts: number,
    nDocs: number,
    dim: number,
    metric: number,
    out: number,
  ): void;
}

const REQUIRED: readonly (keyof EngineExports)[] = [
  'memory',
  'abiVersion',
  'setHeader',
  'heapBase',
  'threadScratchBytes',
  'insertParallel',
  'searchIn',
  'insertBatch',
  'searchKnn',
  'searchExact',
  'rescore',
  'encodeRange',
  'distances',
  'rowDistances',
  'dotF32',
  'l2sqF32',
  'l1F32',
  'assignCentroids',
  'maxSim',
  'maxSimScan',
];

/** Narrows an instance's exports, failing loudly when the artifact is not the one this library expects. */
export function asEngineExports(raw: WebAssembly.Exports): EngineExports {
  for (const name of REQUIRED) {
    if (!(name in raw)) throw new Error(`engine.wasm: missing export ${String(name)}; rebuild with npm run build:wasm`);
  }
  return raw as unknown as EngineExports;
}
