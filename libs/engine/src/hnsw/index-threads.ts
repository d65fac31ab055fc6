// ThreadedIndex: IndexCore plus worker threads on the same shared memory, for parallel graph construction
// (maxIndexingThreads) and searches that run off the event loop (searchAsync).
import { IndexWorkers } from '../worker/index-workers';
import { engineModule } from '../wasm/loader';
import { H, TR } from '../wasm/layout';
import { QuantizationConfig } from '../quantization/config';
import { VectorBatch } from '../validate';
import { IndexCore, SearchParams, SearchResult } from './index-core';

/** Below this many new vectors a batch is inserted on the calling thread only. */
const PARALLEL_MIN = 2048;
/** Nodes inserted single-threaded before workers join, so they start on a connected graph. */
const BOOTSTRAP = 1024;

export class ThreadedIndex extends IndexCore {
  private workers: IndexWorkers | undefined;
  private chains: Promise<unknown>[] = [];
  private queued: number[] = [];
  private asyncPending = 0; // running on a worker
  private asyncQueued = 0; // accepted by searchAsync and not yet settled
  private drained: (() => void)[] = [];

  override add(batch: VectorBatch, firstSlot?: number): number {
    this.assertQuiet('add');
    return super.add(batch, firstSlot);
  }

  override delete(slots: number | ArrayLike<number>): void {
    this.assertQuiet('delete');
    super.delete(slots);
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
   * calls are spread over the workers. add/delete/quantize throw while such searches are pending.
   */
  async searchAsync(query: ArrayLike<number>, params: SearchParams): Promise<SearchResult> {
    this.requireVectors('searchAsync', '; use searchCandidates and scoreRows');
    const pool = this.pool(Math.max(1, this.config.maxIndexingThreads - 1));
    let i = 0;
    for (let j = 1; j < pool.size; j++) if (this.queued[j] < this.queued[i]) i = j;
    this.queued[i]++;
    this.asyncQueued++;
    const run = this.chains[i].then(() => this.runAsync(pool, i, query, params));
    this.chains[i] = run.catch(() => undefined);
    try {
      return await run;
    } finally {
      this.queued[i]--;
      this.asyncQueued--;
    }
  }

  /** Stops worker threads (the index stays usable single-threaded). */
  async dispose(): Promise<void> {
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
    const lazyTraining = !this.quantization && this.config.quantization !== undefined && !params.quantization?.ignore;
    if (lazyTraining || this.layoutWouldChange(need, pool.size + 1)) {
      await this.quiet();
      this.ensureHeap(need);
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
