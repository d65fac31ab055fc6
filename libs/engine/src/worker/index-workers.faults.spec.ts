import type { Worker } from 'node:worker_threads';
import { VectorIndex } from '../hnsw/vector-index';
import { EngineBusyError } from '../errors';
import { engineModule } from '../wasm/loader';
import { H } from '../wasm/layout';
import { IndexWorkers } from './index-workers';
import { COOL_DOWN_MS, EngineWorkersError, START_ATTEMPTS, WorkerStarts } from './worker-starts';

// Issue 28, item 6: a worker that fails at every start gives a clear error that is not retryable and one
// warning; a worker that fails or hangs in a parallel build fails that build instead of hanging it or leaving it
// half done.

/** `(module (import "env" "f" (func)))`: instantiating it with only `env.memory` throws a LinkError. */
const UNLINKABLE = new WebAssembly.Module(
  Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x04, 0x01, 0x60, 0x00, 0x00, 0x02, 0x09, 0x01, 0x03, 0x65,
    0x6e, 0x76, 0x01, 0x66, 0x00, 0x00,
  ]),
);
const TASK = { scratch: 0, k: 1, ef: 1, traversal: 0, useAllowed: 0, exact: 1, rescoreK: 0 };

async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe(WorkerStarts.name, () => {
  let now = 1_000;
  let warnings: string[];
  let starts: WorkerStarts;
  beforeEach(() => {
    warnings = [];
    starts = new WorkerStarts(
      () => now,
      (message) => warnings.push(message),
    );
  });

  it('should refuse starts after repeated failures, warn once, and try again after the cool-down', () => {
    for (let i = 1; i < START_ATTEMPTS; i++) expect(starts.failed('no threads')).toBe(false);
    expect(starts.refusing).toBe(false);
    expect(starts.failed('no threads')).toBe(true);
    expect(() => starts.check()).toThrow(EngineWorkersError);
    expect(() => starts.check()).toThrow(/failed to start 3 times in a row \(last: no threads\)/);
    expect(warnings).toHaveLength(1);

    now += COOL_DOWN_MS;
    expect(starts.refusing).toBe(false); // one more start may be tried
    expect(starts.failed('still no threads')).toBe(true);
    expect(starts.refusing).toBe(true);
    expect(warnings).toHaveLength(1); // not again while it goes on failing

    starts.succeeded();
    expect(starts.refusing).toBe(false);
    expect(warnings).toEqual([expect.stringContaining('failed to start'), 'engine worker threads start again']);
  });

  it('should count only failures in a row', () => {
    starts.failed('a');
    starts.failed('b');
    starts.succeeded();
    expect(starts.failed('c')).toBe(false);
    expect(warnings).toEqual([]);
  });
});

describe(`${IndexWorkers.name} faults`, () => {
  it('should stop starting workers that fail at every start, and answer with a non-retryable error', async () => {
    const warnings: string[] = [];
    const starts = new WorkerStarts(Date.now, (message) => warnings.push(message));
    const memory = new WebAssembly.Memory({ initial: 1, maximum: 1, shared: true });
    const pool = new IndexWorkers(UNLINKABLE, memory, 0, 2, { starts });
    try {
      await until(() => starts.refusing && pool.isDead(0) && pool.isDead(1), 'starts to be refused');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/engine worker threads failed to start \d+ times in a row \(last: .*import/i);
      await expect(pool.search(0, TASK)).rejects.toBeInstanceOf(EngineWorkersError);
      expect(() => pool.startBuild(() => 0)).toThrow(EngineWorkersError);
      expect(() => new IndexWorkers(UNLINKABLE, memory, 0, 2, { starts })).toThrow(EngineWorkersError);
      // no more starts are tried meanwhile: the slots stay down, and nothing more is logged
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(pool.isDead(0) && pool.isDead(1)).toBe(true);
      expect(warnings).toHaveLength(1);
    } finally {
      await pool.terminate();
    }
  });

  describe('in a parallel build', () => {
    const DIM = 8;
    const index = new VectorIndex({ dim: DIM, distance: 'Euclid', m: 8, efConstruct: 16, maxIndexingThreads: 1 });
    const rows = Array.from({ length: 64 }, (_, i) => Float32Array.from({ length: DIM }, (_, j) => (i * 7 + j) % 13));
    beforeAll(() => index.add(rows));
    afterAll(() => index.dispose());

    /** The index's shared memory and header (private: reached here to drive workers by hand). */
    const internals = () => {
      const core = index as unknown as {
        wasm: { memory: WebAssembly.Memory };
        arena: { headerPtr: number };
      };
      return { memory: core.wasm.memory, header: core.arena.headerPtr };
    };
    const header = () => new Int32Array(internals().memory.buffer, internals().header, 64);

    it('should fail the build with the worker error when a worker fails in it, and keep the worker', async () => {
      const { memory, header: at } = internals();
      const pool = new IndexWorkers(engineModule(), memory, at, 1);
      try {
        // one slot left to insert, with a scratch block past the end of memory: the worker traps on it
        header()[H.NEXT_SLOT] = 10;
        header()[H.END_SLOT] = 11;
        pool.startBuild(() => memory.buffer.byteLength + 4096);
        expect(() => pool.waitBuild()).toThrow(/parallel build worker 0 failed: .*out of bounds.*; the build failed/);
        expect(pool.isDead(0)).toBe(false);
      } finally {
        await pool.terminate();
      }
    });

    it('should fail the build, not hang, when a worker never finishes its part', async () => {
      const { memory, header: at } = internals();
      const pool = new IndexWorkers(engineModule(), memory, at, 1, { buildStallMs: 300 });
      const locks = new Int32Array(memory.buffer, header()[H.LOCKS], 64);
      try {
        // slot 20's lock is held by no one (as by a thread that died holding it): the worker spins on it
        Atomics.store(locks, 20, 1);
        header()[H.NEXT_SLOT] = 20;
        header()[H.END_SLOT] = 21;
        // worker 0's own scratch block (block 1), as a real build gives it
        const threaded = index as unknown as { threadBlocks(n: number): number; arena: { offset(r: string): number } };
        const block = threaded.threadBlocks(2);
        pool.startBuild((i) => threaded.arena.offset('THREADS') + (i + 1) * block);
        const started = Date.now();
        expect(() => pool.waitBuild()).toThrow(/1 of 1 parallel build workers did not finish within 300 ms/);
        expect(Date.now() - started).toBeLessThan(5_000);
      } finally {
        await pool.terminate(); // stops the spinning thread too
        Atomics.store(locks, 20, 0);
      }
    });
  });

  it('should answer a search on a worker that just died with a retryable error while starts are allowed', async () => {
    const index = new VectorIndex({ dim: 4, distance: 'Dot', m: 8, efConstruct: 16, maxIndexingThreads: 2 });
    try {
      index.add([Float32Array.from([1, 0, 0, 0]), Float32Array.from([0, 1, 0, 0])]);
      await index.searchAsync([1, 0, 0, 0], { k: 1, exact: true });
      const pool = (index as unknown as { workers: IndexWorkers }).workers;
      const [worker] = (pool as unknown as { workers: Worker[] }).workers;
      const pending = index.searchAsync([1, 0, 0, 0], { k: 1, exact: true });
      await worker.terminate();
      const outcome = await pending.then(
        (result) => result,
        (error: unknown) => error,
      );
      if (outcome instanceof Error) expect(outcome).toBeInstanceOf(EngineBusyError);
      expect(pool.isDead(0)).toBe(false); // replaced
      expect(Array.from((await index.searchAsync([1, 0, 0, 0], { k: 1, exact: true })).slots)).toEqual([0]);
    } finally {
      await index.dispose();
    }
  });
});
