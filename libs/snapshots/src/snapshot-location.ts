// Where a snapshot to recover from may come from: a file inside an allowed folder, or an http(s) URL, which is
// streamed to a work file with a size limit and a timeout. Messages follow Qdrant's
// (lib/storage/src/content_manager/snapshots/download.rs).
import { DomainError, isDomainError } from '@vectorstore/common';
import { durableFs } from '@vectorstore/persistence';
import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { messageOf } from './snapshot-errors';
import { DOWNLOAD_PREFIX, DOWNLOAD_SUFFIX } from './snapshot-work-names';

export type SnapshotLocation =
  /** A regular file, its real path (links and `..` resolved), inside the allowed folder. */
  | { readonly kind: 'file'; readonly path: string }
  /** An http: or https: URL, not fetched yet (see {@link downloadSnapshot}). */
  | { readonly kind: 'url'; readonly url: URL };

/**
 * Parses a recover request's `location`. `file://` URLs must name an existing regular file whose real path
 * (after `..` and symbolic links) is inside the real path of `allowedDir`, else PERMISSION_DENIED with Qdrant's
 * `Forbidden: Snapshot file path must be inside the snapshots directory …`. `http://` and `https://` URLs are
 * accepted as they are. Every other scheme is refused with Qdrant's `URL … with scheme … is not supported`.
 */
export async function resolveSnapshotLocation(location: string, allowedDir: string): Promise<SnapshotLocation> {
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    throw DomainError.invalidArgument(
      `Bad request: snapshot location ${JSON.stringify(location.slice(0, 200))} is not a URL (expected file:///<path> or http(s)://…)`,
    );
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (scheme === 'http' || scheme === 'https') return { kind: 'url', url };
  if (scheme !== 'file') {
    throw DomainError.invalidArgument(`Bad request: URL ${displayUrl(url)} with scheme ${scheme} is not supported`);
  }
  return { kind: 'file', path: await resolveFileLocation(url, allowedDir) };
}

async function resolveFileLocation(url: URL, allowedDir: string): Promise<string> {
  let filePath: string;
  try {
    if (url.hostname !== '' && url.hostname !== 'localhost') throw new Error('not on localhost');
    filePath = fileURLToPath(url);
  } catch {
    throw DomainError.invalidArgument('Bad request: Invalid snapshot URI, file path must be absolute or on localhost');
  }
  let realFile: string;
  try {
    realFile = await fs.realpath(filePath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw DomainError.invalidArgument(`Bad request: Snapshot file "${filePath}" does not exist`);
    }
    throw DomainError.invalidArgument(
      `Bad request: Failed to resolve snapshot path "${filePath}": ${messageOf(error)}`,
    );
  }
  let realAllowed: string;
  try {
    realAllowed = await fs.realpath(allowedDir);
  } catch (error) {
    throw DomainError.internal(
      `Service internal error: Failed to resolve snapshots directory "${allowedDir}": ${messageOf(error)}`,
      error,
    );
  }
  const relative = path.relative(realAllowed, realFile);
  if (relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative)) {
    throw DomainError.permissionDenied(
      `Forbidden: Snapshot file path must be inside the snapshots directory "${realAllowed}"`,
    );
  }
  const stat = await fs.stat(realFile);
  if (!stat.isFile())
    throw DomainError.invalidArgument(`Bad request: Snapshot file "${filePath}" is not a regular file`);
  return realFile;
}

export interface DownloadSnapshotOptions {
  /** Folder the work file `download-<random>.part` is made in (created when missing). */
  readonly targetDir: string;
  /** Most bytes accepted; a larger body is cut off and refused. */
  readonly maxBytes: number;
  /** Limit for the whole download, headers and body (ms). */
  readonly timeoutMs: number;
  /** Sent as the `api-key` header, as Qdrant does for `api_key` in a recover request. */
  readonly apiKey?: string;
}

export interface DownloadedSnapshot {
  /** The work file; the caller reads it (e.g. with readSnapshot) and removes it. */
  readonly path: string;
  readonly size: number;
  /** sha256 hex of the bytes received. */
  readonly sha256: string;
}

/**
 * Streams an http(s) URL into a new work file in `targetDir`, hashing as it goes; memory stays at one network
 * chunk. Refused with INVALID_ARGUMENT: another scheme, a non-2xx answer, a `Content-Length` or body over
 * `maxBytes`, a download that outlives `timeoutMs`, a network failure. On failure the work file is removed.
 */
export async function downloadSnapshot(url: URL, options: DownloadSnapshotOptions): Promise<DownloadedSnapshot> {
  const shown = displayUrl(url);
  const scheme = url.protocol.replace(/:$/, '');
  if (scheme !== 'http' && scheme !== 'https') {
    throw DomainError.invalidArgument(`Bad request: URL ${shown} with scheme ${scheme} is not supported`);
  }
  const refuse = (detail: string) =>
    DomainError.invalidArgument(`Bad request: downloading snapshot from ${shown} ${detail}`);
  await durableFs.mkdir(options.targetDir, { recursive: true });
  const target = path.join(options.targetDir, `${DOWNLOAD_PREFIX}${randomBytes(8).toString('hex')}${DOWNLOAD_SUFFIX}`);
  const signal = AbortSignal.timeout(options.timeoutMs);
  let handle: FileHandle | undefined;
  try {
    const response = await fetch(url, {
      signal,
      redirect: 'follow',
      headers: options.apiKey === undefined ? {} : { 'api-key': options.apiKey },
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw refuse(`failed: HTTP ${response.status} ${response.statusText}`.trim());
    }
    const declared = Number(response.headers.get('content-length') ?? NaN);
    if (Number.isFinite(declared) && declared > options.maxBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw refuse(`failed: it is ${declared} bytes, over the limit of ${options.maxBytes} bytes`);
    }
    handle = await durableFs.open(target, 'wx', 0o600);
    const hash = createHash('sha256');
    let size = 0;
    const reader = response.body?.getReader();
    for (;;) {
      const next = await reader?.read();
      if (next === undefined || next.done) break;
      size += next.value.byteLength;
      if (size > options.maxBytes) {
        await reader?.cancel().catch(() => undefined);
        throw refuse(`failed: it is larger than the limit of ${options.maxBytes} bytes`);
      }
      hash.update(next.value);
      for (let offset = 0; offset < next.value.byteLength;) {
        offset += (await durableFs.write(handle, next.value, offset, next.value.byteLength - offset, null))
          .bytesWritten;
      }
    }
    await durableFs.sync(handle);
    await handle.close();
    handle = undefined;
    return { path: target, size, sha256: hash.digest('hex') };
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await durableFs.rm(target, { force: true }).catch(() => undefined);
    if (isDomainError(error)) throw error;
    if (signal.aborted) throw refuse(`timed out after ${options.timeoutMs} ms`);
    const cause = (error as { cause?: unknown }).cause;
    throw refuse(`failed: ${messageOf(error)}${cause === undefined ? '' : ` (${messageOf(cause)})`}`);
  }
}

/** The URL for messages, without a password. */
function displayUrl(url: URL): string {
  if (url.password === '') return url.href;
  const shown = new URL(url.href);
  shown.password = '';
  return shown.href;
}
