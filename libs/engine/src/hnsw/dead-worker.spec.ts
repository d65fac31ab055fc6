import type { Worker } from 'node:worker_threads';
import { EngineBusyError } from '../errors';
import { IndexWorkers } from '../worker/index-workers';
import { VectorIndex } from './vector-index';

// A search worker that dies (an uncaught error, out of memory) must not leave searches waiting forever:
// its searches fail with EngineBusyError (UNAVAILABLE, retry), the pool's other worker goes on, and the dead
// one is replaced in its slot at once (the pool never stays short). maxIndexingThreads 3: a pool of two
// search workers.

const DIM = 32;
const N = 2000;

function vectors(n: number, seed: number): Float32Array {
  let state = seed;
  const out = new Float32Array(n * DIM);
  for (let i = 0; i < out.length; i++) out[i] = (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  return out;
}

/** The index's current worker threads (private: reached here only to kill one). */
function workersOf(index: VectorIndex): Worker[] {
  const pool = (index as unknown as { workers?: { workers: Worker[] } }).workers;
  if (!pool) throw new Error('no worker pool yet');
  return pool.workers;
}

describe('searchAsync when a worker thread dies', () => {
  const index = new VectorIndex({ dim: DIM, distance: 'Euclid', m: 8, efConstruct: 32, maxIndexingThreads: 3 });
  const query = vectors(1, 99);
  beforeAll(() => index.add(vectors(N, 7)));
  afterAll(() => index.dispose());

  it('should fail the searches of the dead worker instead of hanging, then answer from a new pool', async () => {
    const expected = index.search(query, { k: 5, exact: true });
    expect(Array.from((await index.searchAsync(query, { k: 5, exact: true })).slots)).toEqual(
      Array.from(expected.slots),
    );
    const [worker] = workersOf(index);
    // searches sent while it dies either finished before (the right answer) or fail as retryable
    const during = Array.from({ length: 4 }, () => index.searchAsync(query, { k: 5, exact: true }));
    await worker.terminate();
    for (const outcome of await Promise.allSettled(during)) {
      if (outcome.status === 'fulfilled') expect(Array.from(outcome.value.slots)).toEqual(Array.from(expected.slots));
      else expect(outcome.reason).toBeInstanceOf(EngineBusyError);
    }
    const again = await index.searchAsync(query, { k: 5, exact: true });
    expect(Array.from(again.slots)).toEqual(Array.from(expected.slots));
    expect(workersOf(index)[0]).not.toBe(worker);
  });

  it('should keep the other worker answering while one is dead', async () => {
    const expected = index.search(query, { k: 5, exact: true });
    await index.searchAsync(query, { k: 5, exact: true }); // a pool with two live workers
    const pool = (index as unknown as { workers: IndexWorkers }).workers;
    // equal queues: the first search goes to worker 0, the second to worker 1
    const [a, b] = [index.searchAsync(query, { k: 5, exact: true }), index.searchAsync(query, { k: 5, exact: true })];
    const killed = workersOf(index)[0];
    await killed.terminate();
    expect(workersOf(index)[0]).not.toBe(killed); // replaced in its slot
    expect(pool.isDead(0)).toBe(false);
    await expect(a).rejects.toBeInstanceOf(EngineBusyError);
    expect(Array.from((await b).slots)).toEqual(Array.from(expected.slots));
    // sent now: to worker 1 if the pool is still in use, else to a new pool; answered either way
    const c = await index.searchAsync(query, { k: 5, exact: true });
    expect(Array.from(c.slots)).toEqual(Array.from(expected.slots));
  });

  it('should keep the same pool, at full size, after a worker died', async () => {
    const expected = index.search(query, { k: 5, exact: true });
    await index.searchAsync(query, { k: 5, exact: true }); // a pool with a live worker
    const pool = (index as unknown as { workers: IndexWorkers }).workers;
    await workersOf(index)[0].terminate();
    expect(pool.broken).toBe(false);
    // both slots answer (equal queues: one search each), from the same pool
    const both = await Promise.all([0, 1].map(() => index.searchAsync(query, { k: 5, exact: true })));
    for (const found of both) expect(Array.from(found.slots)).toEqual(Array.from(expected.slots));
    expect((index as unknown as { workers: IndexWorkers }).workers).toBe(pool);
  });
});
