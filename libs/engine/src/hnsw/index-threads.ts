// ThreadedIndex: IndexCore plus worker threads on the same shared memory, for parallel graph construction
// (maxIndexingThreads) and searches that run off the event loop (searchAsync).
import { EngineBusyError } from '../errors';
import { IndexWorkers } from '../worker/index-workers';
import { engineModule } from '../wasm/loader';
import { H, TR } from '../wasm/layout';
import { QuantizationConfig } from '../quantization/config';
import { VectorBatch } from '../validate';
import { ASYNC_HEAP, IndexCore, SearchParams, SearchResult } from './index-core';

/** Below this many new vectors a batch is inserted on the calling thread only. */
const PARALLEL_MIN = 2048;
/** Nodes inserted single-threaded before workers join, so they start on a connected graph. */
const BOOTSTRAP = 1024;
/** Search workers idle this long are stopped (a server holds one pool per indexed segment); restarted on use. */
const IDLE_STOP_MS = 30_000;

export class ThreadedIndex extends IndexCore {
  private workers: IndexWorkers | undefined;
  private chains: Promise<unknown>[] = [];
  private queued: number[] = [];
  private asyncPending = 0; // running on a worker
  private asyncQueued = 0; // accepted by searchAsync and not yet settled
  private drained: (() => void)[] = [];
  private idleTimer: NodeJS.Timeout | undefined;

  override add(batch: VectorBatch, firstSlot?: number): number {
    this.assertQuiet('add');
    return super.add(batch, firstSlot);
  }

  /**
   * Deletes are allowed while async searches run: they only set bits of the delete bitmap, which never
   * moves. A search already running may still return a slot deleted after it started (callers that need
   * more check their own live set when it settles); one started after the delete never does.
   */
  override delete(slots: number | ArrayLike<number>): void {
    super.delete(slots);
  }

  /** searchAsync calls accepted and not yet settled. */
  get pendingSearches(): number {
    return this.asyncQueued;
  }

  /** Beside running async searches, scored in heap-sized batches so that no layout change moves their memory. */
  override scoreSlots(query: ArrayLike<number>, slots: ArrayLike<number>): Float32Array {
    const room = Math.floor((this.heapCap - this.m0 - 2) / 8);
    if (this.asyncPending === 0 || slots.length <= room) return super.scoreSlots(query, slots);
    const out = new Float32Array(slots.length);
    for (let i = 0; i < slots.length; i += room) {
      out.set(super.scoreSlots(query, Array.prototype.slice.call(slots, i, i + room) as number[]), i);
    }
    return out;
  }

  /** A layout change while workers search would move the memory they read: refused loudly instead. */
  protected override ensureHeap(n: number): void {
    if (this.asyncPending > 0 && 8 * n + this.m0 + 2 > this.heapCap)
      throw new EngineBusyError(
        `engine: a search for ${n} candidates would grow the search heap while ${this.asyncPending} searches run on worker threads; retry`,
      );
    super.ensureHeap(n);
  }

  protected override canTrainQuantizer(): boolean {
    return this.asyncQueued === 0;
  }

  protected override canGrowHeap(): boolean {
    return this.asyncPending === 0;
  }

  override quantize(config?: QuantizationConfig): void {
    this.assertQuiet('quantize');
    super.quantize(config);
  }

  /** Parallel insertion: the caller and maxIndexingThreads - 1 workers take slots from a shared counter. */
  protected override insert(start: number, count: number): void {
    const threads = this.config.maxIndexingThreads;
    if (threads <= 1 || count < PARALLEL_MIN) {
      super.insert(start, count);
      return;
    }
    const boot = Math.min(count, Math.max(0, BOOTSTRAP - start));
    if (boot > 0) super.insert(start, boot);
    if (boot === count) return;
    const pool = this.pool(threads - 1);
    const block = this.threadBlocks(threads);
    const base = this.arena.offset('THREADS');
    this.arena.set(H.NEXT_SLOT, start + boot);
    this.arena.set(H.END_SLOT, start + count);
    pool.startBuild((i) => base + (i + 1) * block);
    this.wasm.insertParallel(base);
    pool.waitBuild();
  }

  /**
   * Like `search`, but runs inside a worker thread so long scans do not block the event loop. Concurrent
   * calls are spread over the workers. add/quantize throw while such searches are pending; delete does not
   * (see delete).
   */
  async searchAsync(query: ArrayLike<number>, params: SearchParams): Promise<SearchResult> {
    this.requireVectors('searchAsync', '; use searchCandidates and scoreRows');
    const pool = this.pool(Math.max(1, this.config.maxIndexingThreads - 1));
    // the least busy live worker: a dead one answers at once with an error, so it would always look idle
    let i = -1;
    for (let j = 0; j < pool.size; j++) if (!pool.isDead(j) && (i < 0 || this.queued[j] < this.queued[i])) i = j;
    if (i < 0) throw pool.unavailable();
    this.queued[i]++;
    this.asyncQueued++;
    const run = this.chains[i].then(() => this.runAsync(pool, i, query, params));
    this.chains[i] = run.catch(() => undefined);
    try {
      return await run;
    } finally {
      this.queued[i]--;
      this.asyncQueued--;
      if (this.asyncQueued === 0) this.stopWhenIdle();
    }
  }

  private stopWhenIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.asyncQueued === 0) void this.dispose();
    }, IDLE_STOP_MS);
    this.idleTimer.unref();
  }

  /** Stops worker threads once running async searches settled (the index stays usable single-threaded). */
  async dispose(): Promise<void> {
    while (this.asyncQueued > 0) await this.quiet().then(() => new Promise((r) => setImmediate(r)));
    clearTimeout(this.idleTimer);
    const w = this.workers;
    this.workers = undefined;
    if (w) await w.terminate();
  }

  private async runAsync(
    pool: IndexWorkers,
    i: number,
    query: ArrayLike<number>,
    params: SearchParams,
  ): Promise<SearchResult> {
    // layout changes (heap or scratch growth) move memory, so they wait until no worker is searching
    const need = Math.min(
      this.size,
      Math.max(params.ef ?? this.config.ef, Math.ceil(params.k * (params.quantization?.oversampling ?? 1))),
    );
    const heap = Math.max(need, Math.min(this.size, ASYNC_HEAP));
    // another search may start between quiet() resolving and this continuation: check again after each wait
    while (this.needsQuiet(params) || this.layoutWouldChange(heap, pool.size + 1)) {
      await this.quiet();
      if (this.asyncPending > 0) continue;
      this.ensureHeap(heap);
      this.threadBlocks(pool.size + 1);
      // no worker runs now; this.quantize() would refuse because this very search is pending
      if (this.needsQuiet(params)) super.quantize();
    }
    const block = this.threadBlocks(pool.size + 1);
    const base = this.arena.offset('THREADS') + (i + 1) * block;
    this.asyncPending++;
    try {
      const plan = this.plan(query, params, () => base + this.wasm.threadAllowedOffset());
      if (!plan) return { slots: new Uint32Array(0), scores: new Float32Array(0) };
      this.writeQuery(plan.query, base);
      const n = await pool.search(i, {
        scratch: base,
        k: plan.kq,
        ef: plan.ef,
        traversal: plan.traversal,
        useAllowed: params.allowed ? 1 : 0,
        exact: plan.exact ? 1 : 0,
        rescoreK: plan.traversal !== TR.ORIGINAL ? plan.k : 0,
      });
      return this.readOut(n, base + this.wasm.threadOutOffset());
    } finally {
      this.asyncPending--;
      if (this.asyncPending === 0) for (const f of this.drained.splice(0)) f();
    }
  }

  /** The configured quantizer is trained at the first search that uses it, which moves memory. */
  private needsQuiet(params: SearchParams): boolean {
    return (
      this.size > 0 && !this.quantization && this.config.quantization !== undefined && !params.quantization?.ignore
    );
  }

  private layoutWouldChange(heapNeed: number, blocks: number): boolean {
    return 8 * heapNeed + this.m0 + 2 > this.heapCap || this.arena.size('THREADS') < blocks * this.blockBytes();
  }

  private quiet(): Promise<void> {
    if (this.asyncPending === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  private assertQuiet(what: string): void {
    if (this.asyncQueued > 0)
      throw new Error(`engine: ${what} while ${this.asyncQueued} async searches are pending; await them first`);
  }

  private pool(size: number): IndexWorkers {
    // a pool with a dead worker is replaced once no search is queued on it: its live workers may still be
    // reading their scratch blocks until then, and a new pool's workers would use the same blocks
    if (this.workers?.broken && this.asyncQueued === 0) {
      void this.workers.terminate();
      this.workers = undefined;
    }
    if (!this.workers) {
      this.workers = new IndexWorkers(engineModule(), this.wasm.memory, this.arena.headerPtr, size);
      this.chains = Array.from({ length: size }, () => Promise.resolve());
      this.queued = new Array<number>(size).fill(0);
    }
    return this.workers;
  }

  private blockBytes(): number {
    return Math.ceil(this.wasm.threadScratchBytes(this.capacity) / 64) * 64;
  }

  /** Sizes the THREADS region for n scratch blocks; returns the block size. */
  private threadBlocks(n: number): number {
    const block = this.blockBytes();
    this.arena.resize({ THREADS: n * block });
    return block;
  }
}
