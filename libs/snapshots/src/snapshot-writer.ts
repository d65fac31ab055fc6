// Writes a snapshot archive: hash every source file, then stream the manifest and the files into `<name>.tmp`
// through one fixed buffer, fsync, move it to `<name>` without replacing anything, and write `<name>.sha256`.
import { DomainError, isDomainError } from '@vectorstore/common';
import { durableFs, fsyncDirectory, writeFileAtomic } from '@vectorstore/persistence';
import { createHash, type Hash } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { Header, Pax } from 'tar';
import { checksumPathFor, formatChecksumFile, sha256OfHandle, STREAM_CHUNK_BYTES } from './snapshot-checksum';
import { messageOf } from './snapshot-errors';
import {
  archivePathProblem,
  encodeManifest,
  MANIFEST_ENTRY,
  SNAPSHOT_FORMAT,
  SNAPSHOT_FORMAT_VERSION,
  type SnapshotFileEntry,
  type SnapshotKind,
  type SnapshotManifest,
  validateManifest,
} from './snapshot-manifest';
import { snapshotNameProblem } from './snapshot-names';

const TAR_BLOCK = 512;
const ZEROS = Buffer.alloc(2 * TAR_BLOCK);
const ENTRY_MODE = 0o644;
const ARCHIVE_MODE = 0o600;

export interface SnapshotSourceFile {
  /** Where the file goes inside the archive (relative, `/`-separated). */
  readonly archivePath: string;
  /** The file on disk. It must not change while the snapshot is written. */
  readonly sourcePath: string;
}

export interface SnapshotSourceDirectory {
  /** Every regular file under this folder is taken (recursively; empty folders are not kept). */
  readonly root: string;
  /** Archive folder to put them under; the archive's top when empty or absent. */
  readonly prefix?: string;
}

export interface WriteSnapshotRequest {
  /** Folder the archive goes into (created when missing). */
  readonly dir: string;
  /**
   * The archive's file name, e.g. from SnapshotStore.reserveName, which owns `<name>.tmp` until the write ends.
   * An existing `<name>` is never replaced.
   */
  readonly name: string;
  readonly kind: SnapshotKind;
  readonly peerId: string;
  readonly collections: readonly string[];
  readonly shardId?: number;
  /** Defaults to now. */
  readonly createdAt?: Date;
  readonly files?: readonly SnapshotSourceFile[];
  readonly directories?: readonly SnapshotSourceDirectory[];
}

export interface WrittenSnapshot {
  readonly name: string;
  readonly path: string;
  readonly checksumPath: string;
  /** The archive's size in bytes. */
  readonly size: number;
  /** sha256 hex of the whole archive, as in the `.sha256` file. */
  readonly sha256: string;
  readonly manifest: SnapshotManifest;
}

/**
 * Writes `<dir>/<name>` and `<dir>/<name>.sha256`. Memory stays at one 1 MiB buffer whatever the sizes: each file
 * is read twice in chunks (once for the manifest's sha256, which must come first in the archive, then into the
 * archive), and a file whose bytes differ between the two reads fails the snapshot instead of giving one whose
 * manifest lies. On failure the temporary file is removed and nothing else is left behind.
 */
export async function writeSnapshot(request: WriteSnapshotRequest): Promise<WrittenSnapshot> {
  const nameProblem = snapshotNameProblem(request.name);
  if (nameProblem !== undefined) {
    throw DomainError.invalidArgument(`Bad request: snapshot name ${JSON.stringify(request.name)} ${nameProblem}`);
  }
  const finalPath = path.join(request.dir, request.name);
  const tmpPath = `${finalPath}.tmp`;
  let output: FileHandle | undefined;
  try {
    const sources = await collectSources(request);
    const files: SnapshotFileEntry[] = [];
    for (const source of sources) {
      const { sha256, size } = await hashSource(source.sourcePath);
      files.push({ path: source.archivePath, size, sha256 });
    }
    const createdAt = request.createdAt ?? new Date();
    // The same checks a reader applies, so a writer bug cannot make an archive that restore refuses.
    const manifest = validateManifest({
      format: SNAPSHOT_FORMAT,
      version: SNAPSHOT_FORMAT_VERSION,
      kind: request.kind,
      created_at: createdAt.toISOString(),
      peer_id: request.peerId,
      collections: request.collections,
      ...(request.shardId === undefined ? {} : { shard_id: request.shardId }),
      files,
    });

    await durableFs.mkdir(request.dir, { recursive: true });
    output = await durableFs.open(tmpPath, 'w', ARCHIVE_MODE);
    const archive = new ArchiveOutput(output);
    const manifestBytes = encodeManifest(manifest);
    await archive.append(entryHeader(MANIFEST_ENTRY, manifestBytes.length, createdAt));
    await archive.append(manifestBytes);
    await archive.pad();
    for (let i = 0; i < sources.length; i++) {
      await archive.append(entryHeader(files[i].path, files[i].size, createdAt));
      await archive.copyFile(sources[i].sourcePath, files[i]);
      await archive.pad();
    }
    await archive.append(ZEROS); // end of archive: two zero blocks
    await archive.flush();
    await durableFs.sync(output);
    await output.close();
    output = undefined;

    await moveWithoutReplacing(tmpPath, finalPath, request.name);
    await fsyncDirectory(request.dir);
    const sha256 = archive.digest();
    const checksumPath = checksumPathFor(finalPath);
    await writeFileAtomic(checksumPath, formatChecksumFile(sha256, request.name), ARCHIVE_MODE);
    return { name: request.name, path: finalPath, checksumPath, size: archive.size, sha256, manifest };
  } catch (error) {
    await output?.close().catch(() => undefined);
    await durableFs.rm(tmpPath, { force: true }).catch(() => undefined);
    if (isDomainError(error)) throw error;
    throw DomainError.internal(
      `Service internal error: writing snapshot ${request.name} failed: ${messageOf(error)}`,
      error,
    );
  }
}

/** The explicit files, then each directory's regular files in name order; archive paths checked and unique. */
async function collectSources(request: WriteSnapshotRequest): Promise<SnapshotSourceFile[]> {
  const sources = [...(request.files ?? [])];
  for (const directory of request.directories ?? []) {
    const prefix = directory.prefix ?? '';
    for (const relative of await listRegularFiles(directory.root)) {
      sources.push({
        archivePath: prefix === '' ? relative : `${prefix}/${relative}`,
        sourcePath: path.join(directory.root, relative),
      });
    }
  }
  const seen = new Set<string>();
  for (const { archivePath } of sources) {
    const problem = archivePathProblem(archivePath);
    if (problem !== undefined) {
      throw DomainError.invalidArgument(`Bad request: snapshot entry path ${JSON.stringify(archivePath)} ${problem}`);
    }
    if (seen.has(archivePath)) {
      throw DomainError.invalidArgument(
        `Bad request: snapshot entry path ${JSON.stringify(archivePath)} is given twice`,
      );
    }
    seen.add(archivePath);
  }
  return sources;
}

/** Paths (relative, `/`-separated) of the regular files under `root`; anything else but a folder is refused. */
async function listRegularFiles(root: string, relative = ''): Promise<string[]> {
  const entries = await fs.readdir(path.join(root, relative), { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const found: string[] = [];
  for (const entry of entries) {
    const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) found.push(...(await listRegularFiles(root, child)));
    else if (entry.isFile()) found.push(child);
    else throw new Error(`${path.join(root, child)} is not a regular file or folder; snapshots take only those`);
  }
  return found;
}

/** Opens a source without following a symbolic link and insists on a regular file. */
async function openSource(sourcePath: string): Promise<FileHandle> {
  const handle = await fs.open(sourcePath, constants.O_RDONLY | constants.O_NOFOLLOW);
  const stat = await handle.stat();
  if (!stat.isFile()) {
    await handle.close();
    throw new Error(`${sourcePath} is not a regular file`);
  }
  return handle;
}

async function hashSource(sourcePath: string): Promise<{ sha256: string; size: number }> {
  const handle = await openSource(sourcePath);
  try {
    return await sha256OfHandle(handle);
  } finally {
    await handle.close();
  }
}

/** A ustar header block for a regular file, preceded by a pax header when the path or size needs one. */
function entryHeader(archivePath: string, size: number, mtime: Date): Buffer {
  const header = new Header({
    path: archivePath,
    mode: ENTRY_MODE,
    uid: 0,
    gid: 0,
    size,
    mtime,
    type: 'File',
    uname: '',
    gname: '',
  });
  const needPax = header.encode();
  const block = header.block as Buffer;
  return needPax ? Buffer.concat([new Pax({ path: archivePath, size, mtime }).encode(), block]) : block;
}

/** Renames `from` to `to` unless `to` exists (link + unlink: atomic and never replaces). */
async function moveWithoutReplacing(from: string, to: string, name: string): Promise<void> {
  try {
    await durableFs.link(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw DomainError.alreadyExists(`Snapshot ${name} already exists`);
    }
    throw error;
  }
  await durableFs.unlink(from);
}

/** The archive being written: one fixed buffer, flushed when full, hashed as it goes to disk. */
class ArchiveOutput {
  private readonly buffer = Buffer.allocUnsafe(STREAM_CHUNK_BYTES);
  private used = 0;
  private readonly hash: Hash = createHash('sha256');
  /** Bytes flushed so far (all of them after the final flush). */
  size = 0;

  constructor(private readonly handle: FileHandle) {}

  async append(bytes: Uint8Array): Promise<void> {
    for (let offset = 0; offset < bytes.length;) {
      if (this.used === this.buffer.length) await this.flush();
      const count = Math.min(bytes.length - offset, this.buffer.length - this.used);
      this.buffer.set(bytes.subarray(offset, offset + count), this.used);
      this.used += count;
      offset += count;
    }
  }

  /** Zero bytes up to the next 512-byte boundary (tar pads every entry's data to whole blocks). */
  async pad(): Promise<void> {
    const rest = (this.size + this.used) % TAR_BLOCK;
    if (rest !== 0) await this.append(ZEROS.subarray(0, TAR_BLOCK - rest));
  }

  /**
   * Reads exactly `file.size` bytes of the source straight into the buffer, and fails if they do not hash to
   * `file.sha256` or the file has grown: it changed since it was hashed.
   */
  async copyFile(sourcePath: string, file: SnapshotFileEntry): Promise<void> {
    const source = await openSource(sourcePath);
    try {
      const hash = createHash('sha256');
      for (let copied = 0; copied < file.size;) {
        if (this.used === this.buffer.length) await this.flush();
        const want = Math.min(file.size - copied, this.buffer.length - this.used);
        const { bytesRead } = await source.read(this.buffer, this.used, want, copied);
        if (bytesRead === 0) break;
        hash.update(this.buffer.subarray(this.used, this.used + bytesRead));
        this.used += bytesRead;
        copied += bytesRead;
      }
      const { bytesRead: beyond } = await source.read(Buffer.alloc(1), 0, 1, file.size);
      if (hash.digest('hex') !== file.sha256 || beyond !== 0) {
        throw new Error(`${sourcePath} changed while the snapshot was being written`);
      }
    } finally {
      await source.close();
    }
  }

  async flush(): Promise<void> {
    let offset = 0;
    while (offset < this.used) {
      const { bytesWritten } = await durableFs.write(this.handle, this.buffer, offset, this.used - offset, null);
      offset += bytesWritten;
    }
    this.hash.update(this.buffer.subarray(0, this.used));
    this.size += this.used;
    this.used = 0;
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}
