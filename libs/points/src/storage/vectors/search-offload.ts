// When a dense search leaves the event loop for an engine worker thread (see DenseSegmentVectors.searchAsync).

/** 'always': every search of a graph-indexed segment on a worker; 'never': all inline (the synchronous path). */
export type SearchOffloadMode = 'always' | 'never';

let mode: SearchOffloadMode = process.env.VS_SEARCH_OFFLOAD === 'never' ? 'never' : 'always';

/** Whether searchAsync may hand searches to worker threads. */
export function searchOffload(): SearchOffloadMode {
  return mode;
}

/** Sets the mode (tests and benches compare both paths). */
export function setSearchOffload(next: SearchOffloadMode): void {
  mode = next;
}
