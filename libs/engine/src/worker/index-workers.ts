// Worker threads attached to one index's shared memory: they run parallel builds (insertParallel) and
// searches off the event loop (searchIn). The worker body is plain JavaScript evaluated in the worker, so it
// runs the same way from ts-jest, tsx and the compiled dist tree.
import { Worker } from 'node:worker_threads';
import { EngineBusyError } from '../errors';
import { H } from '../wasm/layout';
import { EngineWorkersError, WorkerStarts, workerStarts } from './worker-starts';

// Per worker, two Int32 words shared with it (`state`): its life (STARTING → READY, or START_FAILED) and its
// part of the current parallel build (IDLE → BUILDING → BUILT or BUILD_FAILED); and ERROR_BYTES of `errors`
// for the text of its last failure. A thread blocked in waitBuild sees no events, only these.
const STARTING = 0;
const READY = 1;
const START_FAILED = 2;
const IDLE = 0;
const BUILT = 2;
const BUILD_FAILED = 3;
const ERROR_BYTES = 256;

/** A parallel build fails when no worker finished for this long after the caller's own part was done. */
export const BUILD_STALL_MS = 30_000;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { module, memory, header, doneIndex, state, errors, slot } = workerData;
const life = 2 * slot, build = life + 1;
const note = (e) => {
  const text = new TextEncoder().encode(String((e && e.message) || e)).subarray(0, ${ERROR_BYTES});
  errors.fill(0, slot * ${ERROR_BYTES}, (slot + 1) * ${ERROR_BYTES});
  errors.set(text, slot * ${ERROR_BYTES});
};
let wasm;
try {
  wasm = new WebAssembly.Instance(module, { env: { memory } }).exports;
  wasm.setHeader(header);
} catch (e) {
  note(e);
  Atomics.store(state, life, ${START_FAILED});
  Atomics.notify(state, life);
  throw e;
}
const sync = new Int32Array(memory.buffer, header, 64);
Atomics.store(state, life, ${READY});
Atomics.notify(state, life);
parentPort.postMessage('ready');
parentPort.on('message', (msg) => {
  if (msg.op === 'build') {
    Atomics.store(state, build, 1);
    try {
      wasm.insertParallel(msg.scratch);
      Atomics.store(state, build, ${BUILT});
    } catch (e) {
      // the build fails (waitBuild throws); this worker stays up for searches
      note(e);
      Atomics.store(state, build, ${BUILD_FAILED});
    } finally {
      Atomics.add(sync, doneIndex, 1);
      Atomics.notify(sync, doneIndex);
    }
  } else if (Array.isArray(msg)) {
    // a search: [id, scratch, k, ef, traversal, useAllowed, exact, rescoreK]
    const [id, scratch, k, ef, traversal, useAllowed, exact, rescoreK] = msg;
    try {
      let n = wasm.searchIn(scratch, k, ef, traversal, useAllowed, exact);
      if (rescoreK > 0) n = wasm.rescoreIn(scratch, n, rescoreK);
      parentPort.postMessage([id, n]);
    } catch (e) {
      parentPort.postMessage({ id, error: String(e && e.message || e) });
    }
  }
});
`;

export interface SearchTask {
  readonly scratch: number;
  readonly k: number;
  readonly ef: number;
  readonly traversal: number;
  readonly useAllowed: number;
  readonly exact: number;
  readonly rescoreK: number;
}

export interface IndexWorkersOptions {
  /** The record of starts that refuses them after repeated failures (the process's own by default). */
  starts?: WorkerStarts;
  /** See {@link BUILD_STALL_MS}. */
  buildStallMs?: number;
}

interface Pending {
  worker: number;
  resolve: (n: number) => void;
  reject: (e: Error) => void;
}

/**
 * A fixed number of workers for one index. Worker i owns thread scratch block i + 1 (block 0 is the caller's).
 * A worker that dies is replaced in its slot at once, so the pool never stays short; a worker that fails to start
 * is retried until `starts` refuses (then what needs it fails with EngineWorkersError, not retryable).
 */
export class IndexWorkers {
  private readonly workers: Worker[];
  private readonly pending = new Map<number, Pending>();
  /** Searches running on each worker: a worker is ref'd (keeps the process alive) only while it has some. */
  private readonly running: number[];
  /** Slots without a live worker: between its death and its replacement, or for good once starts are refused. */
  private readonly dead: boolean[];
  private readonly state: Int32Array;
  private readonly errors: Uint8Array;
  private readonly starts: WorkerStarts;
  private readonly buildStallMs: number;
  private stopping = false;
  private nextId = 1;

  constructor(
    private readonly module: WebAssembly.Module,
    private readonly memory: WebAssembly.Memory,
    private readonly header: number,
    readonly size: number,
    options: IndexWorkersOptions = {},
  ) {
    this.starts = options.starts ?? workerStarts;
    this.buildStallMs = options.buildStallMs ?? BUILD_STALL_MS;
    this.starts.check();
    this.running = new Array<number>(size).fill(0);
    this.dead = new Array<boolean>(size).fill(false);
    this.state = new Int32Array(new SharedArrayBuffer(8 * size));
    this.errors = new Uint8Array(new SharedArrayBuffer(ERROR_BYTES * size));
    this.workers = new Array<Worker>(size);
    for (let i = 0; i < size; i++) this.spawn(i);
  }

  /** Starts insertParallel on every worker with its scratch block; pair with waitBuild(). */
  startBuild(scratch: (i: number) => number): void {
    this.awaitStarted();
    this.sync()[H.DONE] = 0;
    for (let i = 0; i < this.size; i++) Atomics.store(this.state, 2 * i + 1, IDLE);
    this.workers.forEach((w, i) => w.postMessage({ op: 'build', scratch: scratch(i) }));
  }

  /**
   * Blocks the calling thread until every worker finished its build loop. Throws when one failed (its error), or
   * when none finished for `buildStallMs` (a worker died mid-build): the build fails instead of hanging or
   * leaving the nodes of a failed worker half inserted.
   */
  waitBuild(): void {
    const sync = this.sync();
    let seen = -1;
    let since = Date.now();
    for (;;) {
      const done = Atomics.load(sync, H.DONE);
      if (done >= this.size) break;
      const now = Date.now();
      if (done !== seen) [seen, since] = [done, now];
      else if (now - since >= this.buildStallMs) {
        throw new Error(
          `engine: ${this.size - done} of ${this.size} parallel build workers did not finish within ` +
            `${this.buildStallMs} ms of the others (a worker thread died or hung mid-build); the build failed`,
        );
      }
      Atomics.wait(sync, H.DONE, done, Math.max(1, Math.min(1000, this.buildStallMs - (now - since))));
    }
    for (let i = 0; i < this.size; i++) {
      if (Atomics.load(this.state, 2 * i + 1) === BUILD_FAILED) {
        throw new Error(`engine: parallel build worker ${i} failed: ${this.errorText(i)}; the build failed`);
      }
    }
  }

  /** Whether a slot has no live worker (for good only once starts are refused): the owner may replace the pool. */
  get broken(): boolean {
    return this.dead.includes(true);
  }

  /** Whether worker i is down (searches go to the others meanwhile). */
  isDead(i: number): boolean {
    return this.dead[i];
  }

  /** Why a search cannot run on a worker that is down: retry (EngineBusyError), or not while starts are refused. */
  unavailable(): Error {
    return this.starts.refusing ? this.starts.error() : new EngineBusyError('an engine worker thread stopped; retry');
  }

  /**
   * Runs one search on worker i; resolves to the result count in that worker's scratch output. On a worker
   * that is down it fails at once (see `unavailable`) rather than waiting forever.
   */
  search(i: number, task: SearchTask): Promise<number> {
    if (this.dead[i]) return Promise.reject(this.unavailable());
    const id = this.nextId++;
    const worker = this.workers[i];
    if (this.running[i]++ === 0) worker.ref();
    const settled = (): void => {
      if (--this.running[i] === 0) worker.unref();
    };
    return new Promise<number>((resolve, reject) => {
      this.pending.set(id, {
        worker: i,
        resolve: (n) => {
          settled();
          resolve(n);
        },
        reject: (e) => {
          settled();
          reject(e);
        },
      });
      // a flat array of small integers: cheaper to serialize than an object with named fields (measured
      // 6.7-8.4 µs vs 9.2-13.4 µs of main-thread time per round trip on this machine)
      const t = task;
      worker.postMessage([id, t.scratch, t.k, t.ef, t.traversal, t.useAllowed, t.exact, t.rescoreK]);
    });
  }

  /** Stops the workers. */
  async terminate(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.workers.map((w) => w?.terminate()));
    // a search still pending now would never be answered (callers wait for theirs first; this is a backstop)
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p.reject(new EngineBusyError('engine worker threads stopped; retry'));
    }
  }

  /** Starts the worker of slot i (again). */
  private spawn(i: number): void {
    if (this.starts.refusing) {
      // other pools' workers fail at every start: this slot stays down until the owner starts a new pool
      this.dead[i] = true;
      return;
    }
    Atomics.store(this.state, 2 * i, STARTING);
    Atomics.store(this.state, 2 * i + 1, IDLE);
    const { module, memory, header, state, errors } = this;
    let w: Worker;
    try {
      w = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { module, memory, header, doneIndex: H.DONE, state, errors, slot: i },
      });
    } catch (error) {
      this.dead[i] = true;
      if (!this.starts.failed(messageOf(error))) this.spawn(i);
      return;
    }
    this.workers[i] = w;
    this.dead[i] = false;
    let failure: string | undefined;
    w.on('message', (m: 'ready' | [id: number, n: number] | { id: number; error: string }) => {
      if (m === 'ready') {
        this.starts.succeeded();
        return;
      }
      const id = Array.isArray(m) ? m[0] : m.id;
      const p = this.pending.get(id);
      if (!p) return;
      this.pending.delete(id);
      if (Array.isArray(m)) p.resolve(m[1]);
      else p.reject(new Error(`engine worker: ${m.error}`));
    });
    w.on('error', (e: unknown) => {
      failure = messageOf(e);
      this.lost(i, w, `engine worker failed: ${failure}`);
    });
    w.on('exit', (code) => {
      if (this.stopping || this.workers[i] !== w) return;
      const cameUp = Atomics.load(this.state, 2 * i) === READY;
      // a start that failed counts towards refusing starts; a worker that ran and died is replaced at once
      const refused = !cameUp && this.starts.failed(failure ?? this.errorText(i) ?? `exited with code ${code}`);
      this.lost(i, w, `engine worker exited (code ${code})`);
      if (!refused && !this.stopping) this.spawn(i);
    });
    // after the listeners (adding a 'message' listener refs the worker again): an idle pool must not keep
    // the process alive (an index built in parallel, never disposed, did); search() refs it meanwhile
    w.unref();
  }

  /**
   * Blocks until every worker is up, so that a build never waits on one that will not come; throws when one
   * failed to start or is down (the build fails and is tried again later).
   */
  private awaitStarted(): void {
    const deadline = Date.now() + this.buildStallMs;
    for (let i = 0; i < this.size; i++) {
      if (this.dead[i]) throw this.unavailable();
      let life = Atomics.load(this.state, 2 * i);
      while (life === STARTING) {
        const left = deadline - Date.now();
        if (left <= 0)
          throw new EngineBusyError(`engine worker ${i} did not start within ${this.buildStallMs} ms; retry`);
        Atomics.wait(this.state, 2 * i, STARTING, left);
        life = Atomics.load(this.state, 2 * i);
      }
      if (life === START_FAILED) {
        if (this.starts.refusing) throw this.starts.error();
        throw new EngineBusyError(`engine worker ${i} failed to start: ${this.errorText(i)}; retry`);
      }
    }
  }

  /** Worker i is gone: its pending searches fail (the others' go on), and so will new ones until it is replaced. */
  private lost(i: number, w: Worker, why: string): void {
    if (this.workers[i] !== w) return;
    this.dead[i] = true;
    const error = this.starts.refusing ? this.starts.error() : new EngineBusyError(`${why}; retry`);
    for (const [id, p] of this.pending) {
      if (p.worker !== i) continue;
      this.pending.delete(id);
      p.reject(error);
    }
  }

  /** The text worker i left of its last failure. */
  private errorText(i: number): string | undefined {
    const bytes = this.errors.slice(i * ERROR_BYTES, (i + 1) * ERROR_BYTES);
    const end = bytes.indexOf(0);
    const text = new TextDecoder().decode(end < 0 ? bytes : bytes.subarray(0, end));
    return text === '' ? undefined : text;
  }

  private sync(): Int32Array {
    return new Int32Array(this.memory.buffer, this.header, 64);
  }
}

function messageOf(error: unknown): string {
  return String((error as Error)?.message ?? error);
}

export { EngineWorkersError };
