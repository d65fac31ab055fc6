// Worker threads attached to one index's shared memory: they run parallel builds (insertParallel) and
// searches off the event loop (searchIn). The worker body is plain JavaScript evaluated in the worker, so it
// runs the same way from ts-jest, tsx and the compiled dist tree.
import { Worker } from 'node:worker_threads';
import { H } from '../wasm/layout';

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { module, memory, header, doneIndex } = workerData;
const wasm = new WebAssembly.Instance(module, { env: { memory } }).exports;
wasm.setHeader(header);
const sync = new Int32Array(memory.buffer, header, 64);
parentPort.on('message', (msg) => {
  if (msg.op === 'build') {
    try {
      wasm.insertParallel(msg.scratch);
    } finally {
      Atomics.add(sync, doneIndex, 1);
      Atomics.notify(sync, doneIndex);
    }
  } else if (msg.op === 'search') {
    try {
      let n = wasm.searchIn(msg.scratch, msg.k, msg.ef, msg.traversal, msg.useAllowed, msg.exact);
      if (msg.rescoreK > 0) n = wasm.rescoreIn(msg.scratch, n, msg.rescoreK);
      parentPort.postMessage({ id: msg.id, n });
    } catch (e) {
      parentPort.postMessage({ id: msg.id, error: String(e && e.message || e) });
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

interface Pending {
  resolve: (n: number) => void;
  reject: (e: Error) => void;
}

/** A fixed set of workers for one index. Worker i owns thread scratch block i + 1 (block 0 is the caller's). */
export class IndexWorkers {
  private readonly workers: Worker[];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(
    module: WebAssembly.Module,
    private readonly memory: WebAssembly.Memory,
    private readonly header: number,
    readonly size: number,
  ) {
    this.workers = Array.from({ length: size }, () => {
      const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { module, memory, header, doneIndex: H.DONE } });
      w.unref();
      w.on('message', (m: { id: number; n?: number; error?: string }) => {
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (m.error !== undefined) p.reject(new Error(`engine worker: ${m.error}`));
        else p.resolve(m.n ?? 0);
      });
      w.on('error', (e) => {
        for (const p of this.pending.values()) p.reject(e);
        this.pending.clear();
      });
      return w;
    });
  }

  /** Starts insertParallel on every worker with its scratch block; pair with waitBuild(). */
  startBuild(scratch: (i: number) => number): void {
    this.sync()[H.DONE] = 0;
    this.workers.forEach((w, i) => w.postMessage({ op: 'build', scratch: scratch(i) }));
  }

  /** Blocks the calling thread until every worker finished its build loop. */
  waitBuild(): void {
    const sync = this.sync();
    for (;;) {
      const done = Atomics.load(sync, H.DONE);
      if (done >= this.size) return;
      Atomics.wait(sync, H.DONE, done, 1000);
    }
  }

  /** Runs one search on worker i; resolves to the result count in that worker's scratch output. */
  search(i: number, task: SearchTask): Promise<number> {
    const id = this.nextId++;
    return new Promise<number>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.workers[i].postMessage({ op: 'search', id, ...task });
    });
  }

  /** Stops the workers. */
  async terminate(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }

  private sync(): Int32Array {
    return new Int32Array(this.memory.buffer, this.header, 64);
  }
}
