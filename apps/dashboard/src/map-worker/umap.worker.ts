// The map's UMAP worker, built apart as dist/dashboard/map-worker.js and started only when UMAP is chosen. One
// request per worker: the page terminates it to cancel, or when a new request or leaving the page makes it stale.
import { projectUmap } from './project-umap';
import type { UmapReply, UmapRequest } from './protocol';

/** The part of a dedicated worker's global scope used here (the dashboard compiles against the DOM library). */
interface WorkerScope {
  onmessage: ((event: MessageEvent<UmapRequest>) => void) | null;
  postMessage(message: UmapReply, transfer?: Transferable[]): void;
}

/** About a hundred progress messages per run, however many epochs. */
const PROGRESS_STEPS = 100;

const scope = self as unknown as WorkerScope;

scope.onmessage = ({ data }) => {
  try {
    scope.postMessage({ kind: 'neighbours' });
    let reported = 0;
    const xy = projectUmap(data.vectors, data.dims, data.n, data, (done, total) => {
      if (done === total || done - reported >= total / PROGRESS_STEPS) {
        reported = done;
        scope.postMessage({ kind: 'progress', done, total });
      }
    });
    scope.postMessage({ kind: 'done', xy }, [xy.buffer]);
  } catch (error) {
    scope.postMessage({ kind: 'error', message: error instanceof Error ? error.message : String(error) });
  }
};
