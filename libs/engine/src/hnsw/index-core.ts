// IndexCore: one HNSW index over dense vectors in its own WebAssembly instance. The engine owns memory
// layout and orchestration; the WASM kernels own distances and graph walks.
import { EngineInputError } from '../errors';
import { Arena, RegionSizes } from '../wasm/arena';
import { EngineExports } from '../wasm/exports';
import { instantiateEngine } from '../wasm/loader';
import { DT, H, TR } from '../wasm/layout';
import { internalMetric, normalizeInPlace, toScore } from '../distance/metric';
import { QuantizationConfig, QuantizationSearchParams, checkQuantizationConfig } from '../quantization/config';
import { QuantizerState, trainQuantizer } from '../quantization/train';
import { checkInt, checkQuery, flattenBatch, VectorBatch } from '../validate';
import { IndexConfig, ResolvedConfig, resolveConfig } from './index-config';
import { AllowedSlots, writeAllowedBitmap } from './allowed-bitmap';
import { decodeVector, encodeVector } from './vector-codec';
import { SeededRandom, randomLevel } from './random';

export type { AllowedSlots };

export interface SearchParams {
  /** Number of results. */
  readonly k: number;
  /** HNSW beam width; default the index's ef. Raised to k when smaller. */
  readonly ef?: number;
  /** Exact scan instead of the graph. */
  readonly exact?: boolean;
  /** Only these slots may be returned. */
  readonly allowed?: AllowedSlots;
  readonly quantization?: QuantizationSearchParams;
  /** Overrides the index's full_scan_threshold (KB) for this search: the collection's current setting. */
  readonly fullScanThreshold?: number;
}

/** How a search runs, decided once by IndexCore.plan. */
export interface SearchPlan {
  readonly query: Float32Array;
  readonly k: number;
  /** Candidates fetched before rescoring (k * oversampling for quantized traversal). */
  readonly kq: number;
  readonly ef: number;
  readonly traversal: number;
  readonly exact: boolean;
}

/** Results best first as parallel arrays; scores follow Qdrant's convention for the distance. */
export interface SearchResult {
  readonly slots: Uint32Array;
  readonly scores: Float32Array;
}

const DTYPE_CODE = { float32: DT.F32, float16: DT.F16, uint8: DT.U8 } as const;
const ELEM_BYTES = { float32: 4, float16: 2, uint8: 1 } as const;
const MIN_HEAP = 2048;
/**
 * Beam the caller's heap is sized for once async searches start (or the index's size, if smaller: no beam
 * exceeds it), so synchronous searches (ef and k up to this) and scoreSlots batches running beside them
 * never move memory the workers read. About 4 MB of heaps per index that searched on workers.
 */
export const ASYNC_HEAP = 16_384;
/** scoreRows copies rows into WASM memory in chunks of at most this many bytes (at least one row). */
const ROW_CHUNK_BYTES = 128 * 1024;

const align64 = (n: number): number => Math.ceil(n / 64) * 64;

/** Internal construction options (VectorIndex.load). */
export interface CoreOptions {
  /** False: the index holds no original vectors (no VEC or lock memory); see VectorIndex.hasVectors. */
  readonly vectors?: boolean;
}

export class IndexCore {
  readonly config: ResolvedConfig;
  /** m0 = 2m, level-0 links per node. */
  readonly m0: number;
  readonly dimPad: number;
  protected readonly wasm: EngineExports;
  protected readonly arena: Arena;
  protected rng: SeededRandom;
  protected capacity = 0;
  protected upperCap = 0;
  protected heapCap = 0;
  protected quantizer: QuantizerState | undefined;
  private readonly vecStride: number;
  /**
   * Level-0 record: (count, m0 links) padded to 16 bytes. Vectors are a separate contiguous block: measured
   * on 100k x 128, putting each vector inside its level-0 record (hnswlib's layout) did not speed up graph
   * search but made exact scans 17% slower (they read the link bytes too).
   */
  private readonly recordBytes: number;
  private readonly metric: number;
  private readonly normed: boolean;
  private readonly vectorsInMemory: boolean;

  /**
   * Creates an empty index. Throws EngineInputError on an invalid config. `options` is internal
   * (VectorIndex.load uses it for indexes saved without vectors).
   */
  constructor(config: IndexConfig, options: CoreOptions = {}) {
    this.config = resolveConfig(config);
    this.vectorsInMemory = options.vectors ?? true;
    const c = this.config;
    this.m0 = 2 * c.m;
    this.dimPad = Math.ceil(c.dim / 16) * 16;
    this.vecStride = this.dimPad * ELEM_BYTES[c.datatype];
    this.recordBytes = Math.ceil(((1 + this.m0) * 4) / 16) * 16;
    this.metric = internalMetric(c.distance);
    this.normed = c.distance === 'Cosine' && c.datatype === 'uint8';
    this.rng = new SeededRandom(c.seed);
    this.wasm = instantiateEngine();
    this.arena = new Arena(this.wasm);
    const a = this.arena;
    a.set(H.ABI, this.wasm.abiVersion());
    a.set(H.DIM, c.dim);
    a.set(H.DIM_PAD, this.dimPad);
    a.set(H.DTYPE, DTYPE_CODE[c.datatype]);
    a.set(H.METRIC, this.metric);
    a.set(H.NORMED, this.normed ? 1 : 0);
    a.set(H.M, c.m);
    a.set(H.M0, this.m0);
    a.set(H.EF_CONSTRUCT, c.efConstruct);
    a.set(H.ENTRY, 0xffffffff);
    a.set(H.MAX_LEVEL, 0xffffffff);
    a.set(H.VEC_STRIDE, this.vecStride);
    a.set(H.L0_STRIDE, this.recordBytes);
    a.set(H.UP_STRIDE, (1 + c.m) * 4);
    this.ensureHeap(Math.max(c.efConstruct, c.ef));
    this.ensureCapacity(c.initialCapacity);
  }

  /** Number of slots in use (deleted ones included). */
  get size(): number {
    return this.arena.get(H.COUNT);
  }
  /** Number of slots marked deleted. */
  get deletedCount(): number {
    return this.arena.get(H.DELETED_COUNT);
  }
  /** Linear memory bytes used by this index. */
  get memoryBytes(): number {
    return this.arena.usedBytes;
  }
  /**
   * Bytes per vector held in memory: vector, graph links, per-slot bookkeeping and quantized code. An index
   * without vectors holds neither the vector nor the build lock.
   */
  get bytesPerVector(): number {
    const n = Math.max(1, this.size);
    // (vector + lock) + links + norm + level + upper offset + visited + deleted and allowed bits
    const vectorBytes = this.vectorsInMemory ? this.vecStride + 4 : 0;
    const perSlot =
      vectorBytes +
      this.recordBytes +
      (this.normed ? 4 : 0) +
      1 +
      4 +
      2 +
      0.25 +
      (this.quantizer ? this.quantizer.stride + (this.quantizer.aux ? 4 : 0) : 0);
    return perSlot + (this.arena.get(H.UPPER_USED) * (1 + this.config.m) * 4) / n;
  }
  /** False for an index loaded from save({ vectors: false }): it holds no original vectors in memory. */
  get hasVectors(): boolean {
    return this.vectorsInMemory;
  }
  /**
   * Bytes of one stored row (engine form: Cosine normalized, encoded as the datatype, zero padded to the
   * dimension rounded up to 16 elements).
   */
  get rowBytes(): number {
    return this.vecStride;
  }
  /** The trained quantizer's config, if any. */
  get quantization(): QuantizationConfig | undefined {
    return this.quantizer?.config;
  }

  /**
   * Adds a batch of vectors to slots size..size+n-1 (slots are dense and assigned in order) and links them
   * into the graph. Returns the first slot. `firstSlot`, when given, must equal `size` (a guard for callers
   * that track slots themselves). Validates dimension and finiteness before touching WASM.
   */
  add(batch: VectorBatch, firstSlot?: number): number {
    this.requireVectors('add');
    const { dim } = this.config;
    const start = this.size;
    if (firstSlot !== undefined && firstSlot !== start) {
      throw new EngineInputError(
        `add: expected first slot ${start}, got ${firstSlot} (slots are dense and assigned in order)`,
      );
    }
    const { data, count } = flattenBatch(batch, dim);
    if (count === 0) return start;
    this.ensureCapacity(start + count);
    this.writeVectors(start, data, count);
    // levels and upper-level records
    const levels = new Uint8Array(count);
    let upperNeed = 0;
    for (let i = 0; i < count; i++) {
      levels[i] = randomLevel(this.rng, this.config.m);
      upperNeed += levels[i];
    }
    const used = this.arena.get(H.UPPER_USED);
    this.ensureUpper(used + upperNeed);
    const a = this.arena;
    a.views.u8.set(levels, a.offset('LEVEL') + start);
    const upOff = a.views.u32;
    let at = used;
    const upBase = (a.offset('UP_OFF') >>> 2) + start;
    for (let i = 0; i < count; i++) {
      upOff[upBase + i] = at;
      at += levels[i];
    }
    a.set(H.UPPER_USED, at);
    a.set(H.COUNT, start + count);
    if (this.quantizer) this.wasm.encodeRange(start, count);
    this.insert(start, count);
    return start;
  }

  /**
   * Adds exactly one vector and returns its slot. Unlike `add(Float32Array)`, which reads a flat batch, a
   * vector of the wrong length is rejected ("vector 0: expected dimension 128, got 256").
   */
  addVector(vector: ArrayLike<number>): number {
    this.requireVectors('addVector');
    if (vector == null || vector.length !== this.config.dim) {
      throw new EngineInputError(`vector 0: expected dimension ${this.config.dim}, got ${vector?.length}`);
    }
    return this.add([vector]);
  }

  /** Links slots into the graph (the single-threaded build path). */
  protected insert(start: number, count: number): void {
    const chunk = 4096;
    for (let s = start; s < start + count; s += chunk) this.wasm.insertBatch(s, Math.min(chunk, start + count - s));
  }

  /** Marks slots deleted: they stay in the graph for connectivity but are never returned. */
  delete(slots: number | ArrayLike<number>): void {
    const list = typeof slots === 'number' ? [slots] : slots;
    const n = this.size;
    const a = this.arena;
    const base = a.offset('DELETED');
    for (let i = 0; i < list.length; i++) {
      const s = list[i];
      if (!Number.isInteger(s) || s < 0 || s >= n)
        throw new EngineInputError(`delete: slot ${s} is out of range 0..${n - 1}`);
    }
    let deleted = a.get(H.DELETED_COUNT);
    const u8 = a.views.u8;
    for (let i = 0; i < list.length; i++) {
      const s = list[i];
      const bit = 1 << (s & 7);
      if ((u8[base + (s >>> 3)] & bit) === 0) {
        u8[base + (s >>> 3)] |= bit;
        deleted++;
      }
    }
    a.set(H.DELETED_COUNT, deleted);
  }

  /** True when the slot is marked deleted. */
  isDeleted(slot: number): boolean {
    if (slot < 0 || slot >= this.size) return false;
    return (this.arena.views.u8[this.arena.offset('DELETED') + (slot >>> 3)] & (1 << (slot & 7))) !== 0;
  }

  /** The stored vector of a slot, decoded to f32 (Cosine vectors come back normalized). */
  getVector(slot: number): Float32Array {
    this.requireVectors('getVector');
    checkInt('slot', slot, 0, this.size - 1);
    const a = this.arena;
    const scale = this.normed ? a.views.f32[(a.offset('NORM') >>> 2) + slot] : 1;
    return decodeVector(this.config.datatype, this.config.dim, a.views.u8, a.views.f32, this.vecOffset(slot), scale);
  }

  /**
   * Trains the quantizer (config given here or at creation) on a sample of the stored vectors and
   * encodes every slot; later adds are encoded on insert.
   */
  quantize(config: QuantizationConfig | undefined = this.config.quantization): void {
    this.requireVectors('quantize');
    if (!config) throw new EngineInputError('quantize: no quantization config given');
    checkQuantizationConfig(config);
    const q = trainQuantizer(config, {
      dim: this.config.dim,
      dimPad: this.dimPad,
      metric: this.metric,
      count: this.size,
      seed: this.config.seed,
      vector: (s) => this.decodedForKernels(s),
    });
    this.installQuantizer(q);
    if (this.size > 0) this.wasm.encodeRange(0, this.size);
  }

  protected installQuantizer(q: QuantizerState): void {
    this.quantizer = q;
    const a = this.arena;
    a.resize({
      Q_PARAM: q.params.length,
      Q_QUERY: q.queryBytes,
      Q_CODE: this.capacity * q.stride,
      Q_AUX: q.aux ? this.capacity * 4 : 0,
    });
    a.writeRegion('Q_PARAM', q.params);
    a.set(H.Q_KIND, q.kind);
    a.set(H.Q_STRIDE, q.stride);
    a.set(H.Q_BITS, q.bits);
    a.set(H.Q_SUB_DIM, q.subDim);
    a.setF32(H.Q_LO, q.lo);
    a.setF32(H.Q_SCALE, q.scale);
    a.set(H.Q_QUERY_MODE, q.queryMode);
  }

  /** k nearest slots to the query, best first, honouring deletes, the filter and quantization params. */
  search(query: ArrayLike<number>, params: SearchParams): SearchResult {
    this.requireVectors('search', '; use searchCandidates and scoreRows');
    const a = this.arena;
    const plan = this.plan(query, params, () => a.offset('ALLOWED'));
    if (!plan) return { slots: new Uint32Array(0), scores: new Float32Array(0) };
    const useAllowed = params.allowed ? 1 : 0;
    this.writeQuery(plan.query, a.offset('QUERY'));
    let n = plan.exact
      ? this.wasm.searchExact(plan.kq, plan.traversal, useAllowed)
      : this.wasm.searchKnn(plan.kq, plan.ef, plan.traversal, useAllowed);
    if (plan.traversal !== TR.ORIGINAL) n = this.wasm.rescore(n, plan.k);
    return this.readOut(n, a.offset('OUT'));
  }

  /**
   * k candidates best first by the traversal representation (quantized codes when a quantizer is trained
   * and not params.quantization.ignore, original vectors otherwise), not rescored: the first step of a
   * search whose originals live outside the index (rescore them with scoreRows). Graph or exact scan, filter
   * and full_scan_threshold as in search(); oversampling and rescore are not used (ask for k * oversampling
   * candidates). Scores follow search()'s convention: exact on originals, approximate on int8 and PQ codes
   * (converted to real units), on binary codes only ordered (Hamming counts or bit-plane sums). An index
   * without vectors always traverses its quantized codes (ignore is overridden).
   */
  searchCandidates(query: ArrayLike<number>, params: SearchParams): SearchResult {
    const a = this.arena;
    const plan = this.plan(query, params, () => a.offset('ALLOWED'), true);
    if (!plan) return { slots: new Uint32Array(0), scores: new Float32Array(0) };
    const useAllowed = params.allowed ? 1 : 0;
    this.writeQuery(plan.query, a.offset('QUERY'));
    const n = plan.exact
      ? this.wasm.searchExact(plan.kq, plan.traversal, useAllowed)
      : this.wasm.searchKnn(plan.kq, plan.ef, plan.traversal, useAllowed);
    const out = this.readOut(n, a.offset('OUT'));
    if (plan.traversal === TR.INT8) this.int8ScoresToReal(out.scores);
    return out;
  }

  /**
   * Validates a search and decides how to run it (graph or exact, which representation, how many); writes
   * the allowed bitmap, if any, at allowedAt() (asked after the heap is sized). `candidates`: plan for searchCandidates (k candidates, no
   * oversampling; an index without vectors traverses its codes whatever params say).
   */
  protected plan(
    query: ArrayLike<number>,
    params: SearchParams,
    allowedAt: () => number,
    candidates = false,
  ): SearchPlan | undefined {
    const { dim } = this.config;
    const k = checkInt('k', params.k, 1, 1 << 24);
    const ef = checkInt('ef', params.ef ?? this.config.ef, 1, 1 << 24);
    const q = checkQuery(query, dim);
    const qp = params.quantization ?? {};
    const oversampling = qp.oversampling ?? 1;
    if (!(oversampling >= 1) || !Number.isFinite(oversampling))
      throw new EngineInputError(`oversampling: expected a number >= 1, got ${oversampling}`);
    if (this.size === 0) return undefined;
    const ignore = (qp.ignore ?? false) && this.vectorsInMemory;
    // Trained at the first search that uses it, unless that would move memory worker threads are reading:
    // then this search runs on the original vectors (exact scores, as without quantization).
    if (!this.quantizer && this.config.quantization && !ignore && this.canTrainQuantizer()) this.quantize();
    const traversal = this.quantizer && !ignore ? this.quantizer.kind : TR.ORIGINAL;
    const rescore = traversal !== TR.ORIGINAL && (qp.rescore ?? true);
    // without rescoring the k candidates are still re-ranked on originals, so scores are always exact
    // Neither the candidate count nor the beam can usefully exceed the slots there are; bounding them
    // keeps a huge ef or oversampling from allocating gigabytes of heap.
    const kq = Math.min(
      this.size,
      candidates || traversal === TR.ORIGINAL ? k : rescore ? Math.ceil(k * oversampling) : k,
    );
    const beam = Math.min(ef, Math.max(kq, this.size));
    this.ensureHeap(Math.max(beam, kq));
    let exact = params.exact ?? false;
    if (params.allowed) {
      // Read the bitmap's place only now: ensureHeap above may have moved the arena's regions.
      const allowedCount = this.fillAllowed(params.allowed, allowedAt());
      // Qdrant's full_scan_threshold (KB of vectors): small filtered sets are scanned exactly
      const threshold = params.fullScanThreshold ?? this.config.fullScanThreshold;
      if ((allowedCount * dim * 4) / 1024 < threshold) exact = true;
      else if (!exact && allowedCount > 0 && this.canGrowHeap()) this.growHeapForFilter(beam, kq, allowedCount);
    }
    return { query: q, k, kq, ef: beam, traversal, exact };
  }

  /** Whether a lazy quantizer training may run now (ThreadedIndex: not beside worker searches). */
  protected canTrainQuantizer(): boolean {
    return true;
  }

  /**
   * A filtered walk queues about size ÷ allowed candidates per result it keeps: a heap sized for the beam
   * alone fills, compacts over and over and drops candidates (recall falls as ef grows). So the heap grows
   * toward beam × size ÷ allowed units (ensureHeap keeps 8 entries per unit), in powers of two because
   * growing moves every region after the heaps (the whole index), and at most to the units worker searches
   * size theirs for (ASYNC_HEAP) or one entry per slot of capacity (which only changes by doubling). Best
   * effort: where memory cannot grow, the walk keeps the heap it has. The allowed bitmap moves with its region.
   */
  private growHeapForFilter(beam: number, kq: number, allowedCount: number): void {
    const wanted = 2 ** Math.ceil(Math.log2((Math.max(beam, kq) * this.size) / allowedCount));
    try {
      this.ensureHeap(Math.min(wanted, ASYNC_HEAP, Math.ceil(this.capacity / 8)));
    } catch (error) {
      if (!String(error).includes('cannot grow WebAssembly memory')) throw error;
    }
  }

  /** Whether the search heap may grow for a filtered walk now (ThreadedIndex: not beside worker searches). */
  protected canGrowHeap(): boolean {
    return true;
  }

  /** Exact (brute-force) k nearest on the original vectors; the slow twin of `search`. */
  exactSearch(query: ArrayLike<number>, k: number, allowed?: AllowedSlots): SearchResult {
    this.requireVectors('exactSearch', '; use scoreRows over the rows');
    return this.search(query, { k, exact: true, allowed, quantization: { ignore: true } });
  }

  /** Scores of the query against given slots on the original vectors (Qdrant convention). */
  scoreSlots(query: ArrayLike<number>, slots: ArrayLike<number>): Float32Array {
    this.requireVectors('scoreSlots', '; use scoreRows');
    const q = checkQuery(query, this.config.dim);
    const n = slots.length;
    for (let i = 0; i < n; i++) checkInt('slot', slots[i], 0, this.size - 1);
    this.ensureHeap(n);
    const a = this.arena;
    this.writeQuery(q, a.offset('QUERY'));
    const ids = a.offset('BUF');
    const out = a.offset('OUT');
    const u32 = a.views.u32;
    for (let i = 0; i < n; i++) u32[(ids >>> 2) + i] = slots[i];
    this.wasm.distances(ids, n, out);
    const f32 = a.views.f32;
    const scores = new Float32Array(n);
    for (let i = 0; i < n; i++) scores[i] = toScore(this.config.distance, f32[(out >>> 2) + i]);
    return scores;
  }

  /** Copy of the stored rows of slots start..start+count-1 (default: all), rowBytes each, back to back. */
  exportRows(start = 0, count = this.size - start): Uint8Array {
    this.requireVectors('exportRows');
    checkInt('start', start, 0, this.size);
    checkInt('count', count, 0, this.size - start);
    const at = this.vecOffset(start);
    return this.arena.views.u8.slice(at, at + count * this.vecStride);
  }

  /**
   * Exact scores of the query against rows kept outside the index (Qdrant convention, the same values
   * scoreSlots gives on an index holding the rows): `rows` holds slots.length rows of rowBytes as produced
   * by exportRows; slots[i] is row i's slot (for per-slot data: the norms of uint8 Cosine rows). Rows are
   * copied into WASM memory in chunks and scored with the SIMD kernels.
   */
  scoreRows(query: ArrayLike<number>, slots: ArrayLike<number>, rows: Uint8Array): Float32Array {
    const q = checkQuery(query, this.config.dim);
    const n = slots?.length;
    if (typeof n !== 'number') throw new EngineInputError('slots: not an array of numbers');
    for (let i = 0; i < n; i++) checkInt('slot', slots[i], 0, this.size - 1);
    const rb = this.vecStride;
    if (!(rows instanceof Uint8Array) || rows.length !== n * rb) {
      throw new EngineInputError(
        `rows: expected ${n} rows of ${rb} bytes (${n * rb} bytes), got ${rows instanceof Uint8Array ? rows.length + ' bytes' : 'no Uint8Array'}`,
      );
    }
    const scores = new Float32Array(n);
    if (n === 0) return scores;
    const chunk = Math.min(n, Math.max(1, Math.floor(ROW_CHUNK_BYTES / rb)));
    const a = this.arena;
    a.resize({ ROWS: 2 * align64(chunk * 4) + chunk * rb });
    const ids = a.offset('ROWS');
    const out = ids + align64(chunk * 4);
    const data = out + align64(chunk * 4);
    this.writeQuery(q, a.offset('QUERY'));
    const { u8, u32, f32 } = a.views; // no growth below
    const { dim, distance } = this.config;
    // f32 kernels read whole padded rows: clear the padding in case the caller's rows carry other bytes
    const clearPad = this.config.datatype === 'float32' && dim < this.dimPad;
    for (let s = 0; s < n; s += chunk) {
      const c = Math.min(chunk, n - s);
      u8.set(rows.subarray(s * rb, (s + c) * rb), data);
      for (let i = 0; i < c; i++) u32[(ids >>> 2) + i] = slots[s + i];
      if (clearPad) for (let i = 0; i < c; i++) f32.fill(0, ((data + i * rb) >>> 2) + dim, (data + (i + 1) * rb) >>> 2);
      this.wasm.rowDistances(data, ids, c, out);
      for (let i = 0; i < c; i++) scores[s + i] = toScore(distance, f32[(out >>> 2) + i]);
    }
    return scores;
  }

  /** The vector of one row (as exportRows gives it) as getVector(slot) returns it on an index holding it. */
  decodeRow(slot: number, row: Uint8Array): Float32Array {
    checkInt('slot', slot, 0, this.size - 1);
    const rb = this.vecStride;
    if (!(row instanceof Uint8Array) || row.length !== rb) {
      throw new EngineInputError(
        `row: expected ${rb} bytes, got ${row instanceof Uint8Array ? row.length + ' bytes' : 'no Uint8Array'}`,
      );
    }
    const copy = row.slice(); // own, aligned buffer
    const a = this.arena;
    const scale = this.normed ? a.views.f32[(a.offset('NORM') >>> 2) + slot] : 1;
    return decodeVector(this.config.datatype, this.config.dim, copy, new Float32Array(copy.buffer), 0, scale);
  }

  // ---------------------------------------------------------------- internals

  /** Throws for operations that need the original vectors in memory on an index that keeps them outside. */
  protected requireVectors(what: string, hint = ''): void {
    if (!this.vectorsInMemory) {
      throw new EngineInputError(
        `${what}: this index keeps its vectors outside memory (loaded from save({ vectors: false }))${hint}`,
      );
    }
  }

  /**
   * Converts int8 code distances (already turned into scores) to approximate real scores in place: with
   * x ~ lo + step * code, squared L2 ~ step^2 * codeL2, L1 ~ step * codeL1, and dot ~ step^2 * (codeDot +
   * aux) + dim * lo^2 + lo * step * (sum of the query's codes); aux is the stored per-vector correction.
   */
  private int8ScoresToReal(scores: Float32Array): void {
    const q = this.quantizer!;
    const step = q.scale;
    const { dim, distance } = this.config;
    if (distance === 'Euclid') {
      for (let i = 0; i < scores.length; i++) scores[i] *= step; // sqrt(step^2 * d) = step * sqrt(d)
    } else if (distance === 'Manhattan') {
      for (let i = 0; i < scores.length; i++) scores[i] *= step;
    } else {
      const a = this.arena;
      const u8 = a.views.u8;
      const at = a.offset('Q_QUERY');
      let codeSum = 0;
      for (let j = 0; j < dim; j++) codeSum += u8[at + j];
      const offset = dim * q.lo * q.lo + q.lo * step * codeSum;
      for (let i = 0; i < scores.length; i++) scores[i] = step * step * scores[i] + offset;
    }
  }

  private vecOffset(slot: number): number {
    return this.arena.offset('VEC') + slot * this.vecStride;
  }

  /** Writes the query at an address, zero padded to dimPad (the kernels read whole 16-float blocks). */
  protected writeQuery(q: Float32Array, at: number): void {
    const f32 = this.arena.views.f32;
    f32.set(q, at >>> 2);
    f32.fill(0, (at >>> 2) + this.config.dim, (at >>> 2) + this.dimPad);
    if (this.config.distance === 'Cosine') normalizeInPlace(f32.subarray(at >>> 2, (at >>> 2) + this.config.dim));
  }

  protected readOut(n: number, at: number): SearchResult {
    const u32 = this.arena.views.u32;
    const f32 = this.arena.views.f32;
    const base = at >>> 2;
    const slots = new Uint32Array(n);
    const scores = new Float32Array(n);
    for (let i = 0; i < n; i++) {
      slots[i] = u32[base + 2 * i];
      scores[i] = toScore(this.config.distance, f32[base + 2 * i + 1]);
    }
    return { slots, scores };
  }

  /** Writes the allowed-slot bitmap for the current slots at a memory address; returns how many pass. */
  protected fillAllowed(allowed: AllowedSlots, base: number): number {
    return writeAllowedBitmap(this.arena.views.u8, base, this.size, allowed);
  }

  /** The vector exactly as the kernels see it (normalized for Cosine, decoded from f16/u8). */
  private decodedForKernels(slot: number): Float32Array {
    return this.getVector(slot);
  }

  private writeVectors(start: number, data: Float32Array, count: number): void {
    const { dim, datatype, distance } = this.config;
    const a = this.arena;
    const row = new Float32Array(dim);
    for (let i = 0; i < count; i++) {
      row.set(data.subarray(i * dim, (i + 1) * dim));
      if (distance === 'Cosine' && datatype !== 'uint8') normalizeInPlace(row);
      const invNorm = encodeVector(row, datatype, a.views.u8, a.views.f32, this.vecOffset(start + i));
      if (this.normed) a.views.f32[(a.offset('NORM') >>> 2) + start + i] = invNorm;
    }
  }

  protected ensureCapacity(n: number): void {
    if (n <= this.capacity) return;
    let cap = Math.max(this.capacity, 16);
    while (cap < n) cap *= 2;
    const q = this.quantizer;
    const sizes: Partial<RegionSizes> = {
      NORM: this.normed ? cap * 4 : 0,
      VEC: this.vectorsInMemory ? cap * this.vecStride : 0,
      L0: cap * this.recordBytes,
      LEVEL: cap,
      UP_OFF: cap * 4,
      DELETED: Math.ceil(cap / 8),
      ALLOWED: Math.ceil(cap / 8),
      VISITED: cap * 2,
      LOCKS: this.vectorsInMemory ? cap * 4 : 0, // taken by parallel inserts only
      Q_CODE: q ? cap * q.stride : 0,
      Q_AUX: q?.aux ? cap * 4 : 0,
    };
    this.arena.resize(sizes);
    this.capacity = cap;
    this.arena.set(H.CAPACITY, cap);
    if (this.upperCap === 0) this.ensureUpper(Math.ceil(cap / Math.max(2, this.config.m - 1)) + 16);
  }

  protected ensureUpper(records: number): void {
    if (records <= this.upperCap) return;
    let cap = Math.max(this.upperCap, 16);
    while (cap < records) cap *= 2;
    this.arena.resize({ UPPER: cap * (1 + this.config.m) * 4 });
    this.upperCap = cap;
    this.arena.set(H.UPPER_CAP, cap);
  }

  protected ensureHeap(n: number): void {
    // candidates can outnumber ef many times over; a roomy heap keeps compaction (see heap.ts) rare
    const need = Math.max(MIN_HEAP, 8 * n + this.m0 + 2);
    if (need <= this.heapCap) return;
    const dimBytes = this.dimPad * 4;
    this.arena.resize({
      QUERY: dimBytes,
      TMP_A: 2 * dimBytes,
      TMP_B: dimBytes,
      HEAP_C: need * 8,
      HEAP_R: need * 8,
      OUT: need * 8,
      BUF: need * 8,
      SEL: (this.m0 + 2) * 4,
      REP: (this.m0 + 2) * 8,
    });
    this.heapCap = need;
    this.arena.set(H.HEAP_CAP, need);
  }
}
