// When a dense search leaves the event loop for an engine worker thread (see DenseSegmentVectors.searchAsync).
import { EventLoopUtilization, performance } from 'node:perf_hooks';

/**
 * 'auto': on a worker when the search is long (see MIN_OFFLOAD_MICROS) and the event loop busy (other
 * requests wait); inline otherwise, where a worker's round trip would only add work or latency; 'always':
 * every search of a graph-indexed segment on a worker; 'never': all inline (the synchronous path).
 */
export type SearchOffloadMode = 'auto' | 'always' | 'never';

/** The event loop counts as busy above this share of the last sample window. */
const BUSY_UTILIZATION = 0.75;
const SAMPLE_MS = 20;
/**
 * A worker's round trip adds 60-110 µs of CPU per search (planning stays on the event loop; postMessage, the
 * reply's message event and promise; `bench/engine/search-async.ts`) and saves the event loop only the walk
 * itself, 110-150 µs at ef 64 over 100k × 128-d: on 2 cores, shared with the clients, no measurable gain.
 * Searches estimated at several times the round trip (exact scans, filtered searches, large beams) pay.
 */
const MIN_OFFLOAD_MICROS = 300;

// A switch for tests and benches only (VECTORSTORE_TEST_* names are left alone by the config check).
let mode: SearchOffloadMode = modeOf(process.env.VECTORSTORE_TEST_SEARCH_OFFLOAD);
let busy = false;
let sampler: NodeJS.Timeout | undefined;

/** Whether searchAsync hands a search estimated at `micros` of engine time to a worker thread now. */
export function offloadSearch(micros: number): boolean {
  if (mode === 'auto') {
    if (micros < MIN_OFFLOAD_MICROS) return false;
    sampler ??= startSampler();
    return busy;
  }
  return mode === 'always';
}

/** Sets the mode (tests and benches compare the paths). */
export function setSearchOffload(next: SearchOffloadMode): void {
  mode = next;
}

function startSampler(): NodeJS.Timeout {
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    busy = performance.eventLoopUtilization(now, last).utilization > BUSY_UTILIZATION;
    last = now;
  }, SAMPLE_MS);
  timer.unref();
  return timer;
}

function modeOf(value: string | undefined): SearchOffloadMode {
  return value === 'always' || value === 'never' ? value : 'auto';
}
