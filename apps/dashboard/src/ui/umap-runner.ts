import type { UmapReply, UmapRequest } from '../map-worker/protocol';
import type { UmapOptions } from '../map-worker/umap-options';

/** Where scripts/build-dashboard.mjs puts the worker, beside app.js. */
export const MAP_WORKER_PATH = '/dashboard/map-worker.js';

/**
 * The one Trusted Types policy the dashboard's CSP allows (apps/server/src/dashboard/dashboard-headers.ts): under
 * `require-trusted-types-for 'script'` a Worker takes only a TrustedScriptURL, and this policy makes one for the
 * map's worker and for nothing else.
 */
export const WORKER_POLICY = 'vectorstore-worker';

/** The slice of the Trusted Types API used here (TypeScript's DOM library does not declare it). */
interface TrustedTypes {
  createPolicy(
    name: string,
    rules: { createScriptURL(input: string): string },
  ): { createScriptURL(input: string): unknown };
}

let policy: ReturnType<TrustedTypes['createPolicy']> | undefined;

/** The worker's URL, as a TrustedScriptURL where the browser enforces Trusted Types. */
function workerScriptUrl(): string | URL {
  const url = new URL(MAP_WORKER_PATH, location.origin).href;
  const trustedTypes = (globalThis as { trustedTypes?: TrustedTypes }).trustedTypes;
  // A browser without Trusted Types: the CSP's worker-src 'self' still confines the worker to this origin.
  if (!trustedTypes) return url;
  // A policy name can be created once per page: keep it.
  policy ??= trustedTypes.createPolicy(WORKER_POLICY, {
    createScriptURL(input) {
      if (input !== new URL(MAP_WORKER_PATH, location.origin).href)
        throw new TypeError(`The ${WORKER_POLICY} policy only loads ${MAP_WORKER_PATH}`);
      return input;
    },
  });
  // A TrustedScriptURL: the Worker constructor accepts it where TypeScript expects a string.
  return policy.createScriptURL(url) as string;
}

export interface UmapListener {
  /** The nearest-neighbour search began (no progress inside it), then each reported epoch. */
  onProgress(progress: { done: number; total: number } | 'neighbours'): void;
  /** The 2-D coordinates, one pair per vector, in the order given. */
  onDone(xy: [number, number][]): void;
  onError(message: string): void;
}

/**
 * Projects `vectors` by UMAP in a new worker and returns the function that cancels it (terminates the worker; no
 * listener call follows). Every failure, the worker's start included, reaches `onError`, never the page.
 */
export function startUmap(vectors: number[][], options: UmapOptions, listener: UmapListener): () => void {
  const n = vectors.length;
  const dims = n === 0 ? 1 : vectors[0].length;
  const flat = new Float32Array(n * dims);
  vectors.forEach((vector, i) => flat.set(vector, i * dims));
  let worker: Worker;
  try {
    worker = new Worker(workerScriptUrl(), { name: 'umap' });
  } catch (error) {
    listener.onError(`The UMAP worker could not start: ${error instanceof Error ? error.message : String(error)}`);
    return () => undefined;
  }
  let over = false;
  const finish = (): void => {
    over = true;
    worker.terminate();
  };
  worker.onmessage = ({ data }: MessageEvent<UmapReply>) => {
    if (over) return;
    if (data.kind === 'neighbours') listener.onProgress('neighbours');
    else if (data.kind === 'progress') listener.onProgress({ done: data.done, total: data.total });
    else {
      finish();
      if (data.kind === 'error') listener.onError(data.message);
      else listener.onDone(Array.from({ length: n }, (_, i) => [data.xy[2 * i], data.xy[2 * i + 1]]));
    }
  };
  worker.onerror = (event) => {
    // Handled here: a worker that fails to load or throws must not surface as the page's uncaught error.
    event.preventDefault();
    if (over) return;
    finish();
    listener.onError(`The UMAP worker failed: ${event.message || 'it could not be loaded'}`);
  };
  const request: UmapRequest = { ...options, vectors: flat, dims, n };
  worker.postMessage(request, [flat.buffer]);
  return () => {
    if (!over) finish();
  };
}
