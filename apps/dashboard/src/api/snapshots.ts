import { apiErrorOf, authHeaders, recoverAuth, request } from './http';

/**
 * Snapshots of a collection, of one of its shards, or of the whole node (Qdrant's snapshot routes). Downloads and
 * uploads go through `fetch` and `XMLHttpRequest` with the session's credential (a plain link could not send it),
 * reporting progress.
 */

export interface SnapshotInfo {
  name: string;
  creation_time?: string | null;
  size: number;
  checksum?: string | null;
}

/** Where snapshots live: the node, a collection, or one shard of a collection. */
export type SnapshotScope = { kind: 'full' } | { kind: 'collection'; collection: string; shard?: number };

/** The route of a scope's snapshots: `/snapshots`, `/collections/{c}/snapshots`, `…/shards/{id}/snapshots`. */
export function snapshotsPath(scope: SnapshotScope): string {
  if (scope.kind === 'full') return '/snapshots';
  const base = `/collections/${encodeURIComponent(scope.collection)}`;
  return scope.shard === undefined ? `${base}/snapshots` : `${base}/shards/${scope.shard}/snapshots`;
}

export const listSnapshots = (scope: SnapshotScope): Promise<SnapshotInfo[]> =>
  request<SnapshotInfo[]>('GET', snapshotsPath(scope));

export const createSnapshot = (scope: SnapshotScope): Promise<SnapshotInfo> =>
  request<SnapshotInfo>('POST', `${snapshotsPath(scope)}?wait=true`);

export const deleteSnapshot = (scope: SnapshotScope, name: string): Promise<unknown> =>
  request('DELETE', `${snapshotsPath(scope)}/${encodeURIComponent(name)}?wait=true`);

/** Restores from a URL the server fetches (`file:///…` under its snapshots folder, or `http(s)://…`). */
export const recoverSnapshot = (scope: SnapshotScope, location: string): Promise<unknown> =>
  request('PUT', `${snapshotsPath(scope)}/recover?wait=true`, { location });

/** `loaded` of `total` bytes; `total` undefined when the server did not say. */
export type Progress = (loaded: number, total: number | undefined) => void;

/** Reads a snapshot into memory, reporting progress. One silent refresh on a 401, as for every call. */
export async function downloadSnapshot(scope: SnapshotScope, name: string, progress: Progress): Promise<Blob> {
  const url = `${snapshotsPath(scope)}/${encodeURIComponent(name)}`;
  const get = (): Promise<Response> =>
    fetch(url, { headers: authHeaders(), credentials: 'same-origin', cache: 'no-store' });
  let response = await get();
  if (response.status === 401 && (await recoverAuth())) response = await get();
  if (!response.ok) throw apiErrorOf(response.status, await response.text());
  const total = Number(response.headers.get('content-length')) || undefined;
  const reader = response.body?.getReader();
  if (!reader) return await response.blob();
  const parts: Uint8Array[] = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    loaded += value.byteLength;
    progress(loaded, total);
  }
  return new Blob(parts as BlobPart[], { type: 'application/octet-stream' });
}

/** Hands a blob to the browser as a file download (a `blob:` link clicked once, then revoked). */
export function saveBlob(blob: Blob, fileName: string): void {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = fileName;
  link.rel = 'noopener';
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}

/**
 * Uploads a snapshot file and restores from it (`POST …/snapshots/upload?wait=true`, multipart field `snapshot`),
 * with upload progress (which `fetch` cannot report, hence XMLHttpRequest). One silent refresh on a 401.
 */
export async function uploadSnapshot(scope: SnapshotScope, file: Blob, fileName: string, progress: Progress) {
  const send = (): Promise<{ status: number; text: string }> =>
    new Promise((resolve) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', `${snapshotsPath(scope)}/upload?wait=true&priority=snapshot`);
      for (const [name, value] of Object.entries(authHeaders())) xhr.setRequestHeader(name, value);
      xhr.upload.onprogress = (event) => progress(event.loaded, event.lengthComputable ? event.total : undefined);
      xhr.onload = () => resolve({ status: xhr.status, text: xhr.responseText });
      xhr.onerror = () => resolve({ status: 0, text: 'The server cannot be reached.' });
      const form = new FormData();
      form.append('snapshot', file, fileName);
      xhr.send(form);
    });
  let answer = await send();
  if (answer.status === 401 && (await recoverAuth())) answer = await send();
  if (answer.status < 200 || answer.status >= 300) throw apiErrorOf(answer.status, answer.text);
}
