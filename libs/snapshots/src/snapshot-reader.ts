// Reads an untrusted snapshot archive: checks its checksum, then extracts it into a fresh folder of its own,
// refusing anything the format does not allow before a byte of it is written. See docs/snapshots.md (Safety).
import { DomainError, isDomainError } from '@vectorstore/common';
import { durableFs, fsyncDirectory } from '@vectorstore/persistence';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { constants, mkdirSync, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { Header, Parser, type ReadEntry } from 'tar';
import { normalizeChecksum, readSidecarChecksum, sha256OfHandle, STREAM_CHUNK_BYTES } from './snapshot-checksum';
import { checksumMismatch, invalidSnapshot, messageOf } from './snapshot-errors';
import { EXTRACTION_PREFIX } from './snapshot-work-names';
import {
  archivePathProblem,
  MANIFEST_ENTRY,
  parseManifest,
  type SnapshotFileEntry,
  type SnapshotManifest,
} from './snapshot-manifest';

const TAR_BLOCK = 512;
/** Default cap on the manifest's size: about 100,000 listed files. */
export const DEFAULT_MAX_MANIFEST_BYTES = 16 * 1024 * 1024;
/** Cap on one pax extended header (long paths); node-tar's default is 1 MiB. */
const MAX_META_ENTRY_BYTES = 64 * 1024;

export interface ReadSnapshotOptions {
  /** The extraction folder is made inside this folder (created when missing); nothing is written elsewhere. */
  readonly extractParent: string;
  /** sha256 hex the archive must have (e.g. the `checksum` of an upload or recover request). */
  readonly checksum?: string;
  /**
   * Refuse an archive when there is neither `checksum` nor a `<archive>.sha256` beside it (default true).
   * Without one, the manifest's per-file sha256 and the tar structure still catch damage and truncation.
   */
  readonly requireChecksum?: boolean;
  /** Most bytes of files the snapshot may hold (the sum of the manifest's sizes). */
  readonly maxTotalBytes: number;
  /** Most bytes the manifest may have; default {@link DEFAULT_MAX_MANIFEST_BYTES}. */
  readonly maxManifestBytes?: number;
}

export interface ExtractedSnapshot {
  readonly manifest: SnapshotManifest;
  /** The fresh folder holding exactly the manifest's files (not the manifest itself); the caller removes it. */
  readonly dir: string;
  /** sha256 hex of the whole archive. */
  readonly sha256: string;
  readonly archiveSize: number;
}

/**
 * Verifies `archivePath` against the given checksum and its `.sha256` sidecar (when present), then extracts it
 * into a new folder inside `options.extractParent`. Refused, with INVALID_ARGUMENT naming the problem: a wrong
 * checksum; a manifest that is missing, not first, invalid or of an unknown version; files over the size limit;
 * entries with absolute paths or `..`, symbolic or hard links, devices, FIFOs, folders or other types; duplicate
 * entries, entries the manifest does not list, listed files that are missing, sizes or sha256 that differ from the
 * manifest; a damaged or truncated archive. On any refusal the new folder is removed, and nothing was ever written
 * outside it. Memory stays bounded (1 MiB reads with backpressure) whatever the archive's size.
 */
export async function readSnapshot(archivePath: string, options: ReadSnapshotOptions): Promise<ExtractedSnapshot> {
  let archive: FileHandle;
  try {
    archive = await fs.open(archivePath, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT')
      throw DomainError.invalidArgument(`Bad request: Snapshot file "${archivePath}" does not exist`);
    if (code === 'ELOOP') throw invalidSnapshot(`${archivePath} is a symbolic link`);
    throw error;
  }
  let dir: string | undefined;
  try {
    const stat = await archive.stat();
    if (!stat.isFile()) throw invalidSnapshot(`${archivePath} is not a regular file`);
    const expected = await expectedChecksums(archivePath, options);
    let verified: string | undefined;
    if (expected.length > 0) {
      verified = (await sha256OfHandle(archive)).sha256;
      for (const checksum of expected) if (checksum !== verified) throw checksumMismatch(checksum, verified);
    }
    await checkFirstBlock(archive);
    await durableFs.mkdir(options.extractParent, { recursive: true });
    dir = await durableFs.mkdtemp(path.join(options.extractParent, EXTRACTION_PREFIX));
    const extraction = new Extraction(
      dir,
      options.maxTotalBytes,
      options.maxManifestBytes ?? DEFAULT_MAX_MANIFEST_BYTES,
    );
    const { manifest, sha256, size } = await extraction.run(archive);
    // The bytes extracted are the bytes verified: the file did not change between the two reads.
    if (verified !== undefined && sha256 !== verified)
      throw invalidSnapshot('the archive changed while it was being read');
    return { manifest, dir, sha256, archiveSize: size };
  } catch (error) {
    if (dir !== undefined) await durableFs.rm(dir, { recursive: true, force: true });
    if (isDomainError(error)) throw error;
    throw DomainError.internal(
      `Service internal error: reading snapshot ${archivePath} failed: ${messageOf(error)}`,
      error,
    );
  } finally {
    await archive.close();
  }
}

/** The checksums the archive must match: the given one and the sidecar's, lowercased and de-duplicated. */
async function expectedChecksums(archivePath: string, options: ReadSnapshotOptions): Promise<string[]> {
  const given = options.checksum === undefined ? undefined : normalizeChecksum(options.checksum);
  const sidecar = await readSidecarChecksum(archivePath);
  const expected = [...new Set([given, sidecar].filter((value): value is string => value !== undefined))];
  if (expected.length === 0 && (options.requireChecksum ?? true)) {
    throw DomainError.invalidArgument(
      `Bad request: snapshot ${path.basename(archivePath)} has no checksum: give one or put ${path.basename(archivePath)}.sha256 beside it`,
    );
  }
  return expected;
}

/**
 * The first block must be the plain ustar header of `snapshot.json`. This also refuses compressed input before
 * the tar parser could decide to decompress it.
 */
async function checkFirstBlock(archive: FileHandle): Promise<void> {
  const block = Buffer.alloc(TAR_BLOCK);
  const { bytesRead } = await archive.read(block, 0, TAR_BLOCK, 0);
  if (bytesRead < TAR_BLOCK) throw invalidSnapshot('the archive is empty or truncated (less than one tar block)');
  const notTar = invalidSnapshot('not a tar archive (the first block is not a tar header)');
  let header: Header;
  try {
    header = new Header(block);
  } catch {
    throw notTar;
  }
  if (header.nullBlock || !header.cksumValid) throw notTar;
  if (header.path !== MANIFEST_ENTRY || header.type !== 'File') {
    throw invalidSnapshot(
      `the manifest ${MANIFEST_ENTRY} must be the first entry, found ${JSON.stringify(header.path)} (${header.type})`,
    );
  }
}

/** One pass over the archive through node-tar's parser, validating each entry before writing it. */
class Extraction {
  private manifest?: SnapshotManifest;
  private listed = new Map<string, SnapshotFileEntry>();
  private readonly seen = new Set<string>();
  private readonly dirs = new Set<string>();
  private readonly tasks: Promise<void>[] = [];
  private readonly active = new Set<ReadEntry>();
  private entries = 0;
  private sawEof = false;
  private failure?: Error;
  private stop!: () => void;
  private readonly stopped = new Promise<void>((resolve) => (this.stop = resolve));

  constructor(
    private readonly dir: string,
    private readonly maxTotalBytes: number,
    private readonly maxManifestBytes: number,
  ) {
    this.dirs.add(dir);
  }

  async run(archive: FileHandle): Promise<{ manifest: SnapshotManifest; sha256: string; size: number }> {
    const parser = new Parser({ strict: true, maxMetaEntrySize: MAX_META_ENTRY_BYTES });
    parser.on('entry', (entry: ReadEntry) => this.onEntry(entry));
    parser.on('ignoredEntry', (entry: ReadEntry) => {
      this.fail(invalidSnapshot(`entry ${JSON.stringify(entry.path)} has an unsupported type ${entry.type}`));
    });
    parser.on('eof', () => (this.sawEof = true));
    parser.on('error', (error: Error) => this.fail(parserError(error)));
    const ended = once(parser, 'end').catch(() => undefined);

    const hash = createHash('sha256');
    let size = 0;
    while (this.failure === undefined) {
      // A fresh buffer each time: the parser keeps slices of what it is given until the entry consumes them.
      const chunk = Buffer.allocUnsafe(STREAM_CHUNK_BYTES);
      const { bytesRead } = await archive.read(chunk, 0, chunk.length, size);
      if (bytesRead === 0) break;
      const data = chunk.subarray(0, bytesRead);
      hash.update(data);
      size += bytesRead;
      // Past the end-of-archive blocks tar reads nothing more, and neither do we: the rest is only hashed (the
      // parser would otherwise keep appending it to one growing buffer).
      if (this.sawEof) continue;
      if (!parser.write(data)) await Promise.race([once(parser, 'drain').catch(() => undefined), this.stopped]);
    }
    if (this.failure === undefined) parser.end();
    await Promise.race([ended, this.stopped]);
    // After a refusal the parser is fed no more: end the entries still being written so their tasks settle.
    if (this.failure !== undefined) for (const entry of this.active) entry.destroy();
    await Promise.all(this.tasks);

    if (this.failure !== undefined) throw this.failure;
    if (!this.sawEof) throw invalidSnapshot('the archive is truncated: it ends without the end-of-archive blocks');
    const manifest = this.manifest;
    if (manifest === undefined) throw invalidSnapshot(`the manifest ${MANIFEST_ENTRY} is missing`);
    for (const file of manifest.files) {
      if (!this.seen.has(file.path)) {
        throw invalidSnapshot(`file ${JSON.stringify(file.path)} is listed in the manifest but not in the archive`);
      }
    }
    for (const dir of this.dirs) await fsyncDirectory(dir);
    return { manifest, sha256: hash.digest('hex'), size };
  }

  private fail(error: unknown): void {
    if (this.failure !== undefined) return;
    this.failure = error instanceof Error ? error : new Error(String(error));
    this.stop();
  }

  private onEntry(entry: ReadEntry): void {
    if (this.failure !== undefined) {
      entry.resume();
      return;
    }
    const index = this.entries++;
    if (index === 0) return this.readManifest(entry);
    const problem = this.entryProblem(entry);
    if (problem !== undefined) {
      this.fail(invalidSnapshot(`entry ${JSON.stringify(entry.path)} ${problem}`));
      entry.resume();
      return;
    }
    const listed = this.listed.get(entry.path) as SnapshotFileEntry;
    this.seen.add(entry.path);
    const target = path.join(this.dir, ...entry.path.split('/'));
    this.makeParents(path.dirname(target));
    this.active.add(entry);
    this.tasks.push(
      this.writeEntry(entry, target, listed)
        .catch((error) => this.fail(error))
        .finally(() => this.active.delete(entry)),
    );
  }

  /** Why this entry (not the first) may not be extracted, checked in order: path, type, duplicate, listing, size. */
  private entryProblem(entry: ReadEntry): string | undefined {
    const entryPath = entry.path;
    if (entryPath === MANIFEST_ENTRY || this.seen.has(entryPath)) return 'appears twice in the archive';
    const pathProblem = archivePathProblem(entryPath);
    if (pathProblem !== undefined) return `path ${pathProblem}`;
    const onlyFiles = 'snapshots hold only regular files';
    switch (entry.type) {
      case 'File':
      case 'OldFile':
        break;
      case 'SymbolicLink':
        return `is a symbolic link (to ${JSON.stringify(entry.linkpath)}); ${onlyFiles}`;
      case 'Link':
        return `is a hard link (to ${JSON.stringify(entry.linkpath)}); ${onlyFiles}`;
      case 'CharacterDevice':
      case 'BlockDevice':
        return `is a device; ${onlyFiles}`;
      case 'FIFO':
        return `is a FIFO; ${onlyFiles}`;
      case 'Directory':
        return `is a directory; ${onlyFiles}`;
      default:
        return `has type ${entry.type}; ${onlyFiles}`;
    }
    const listed = this.listed.get(entryPath);
    if (listed === undefined) return 'is not listed in the manifest';
    if (entry.size !== listed.size) return `holds ${entry.size} bytes but the manifest says ${listed.size}`;
    return undefined;
  }

  /** Collects the first entry (already checked to be `snapshot.json`) and validates it when it ends. */
  private readManifest(entry: ReadEntry): void {
    if (entry.path !== MANIFEST_ENTRY || (entry.type !== 'File' && entry.type !== 'OldFile')) {
      this.fail(
        invalidSnapshot(`the manifest ${MANIFEST_ENTRY} must be the first entry, found ${JSON.stringify(entry.path)}`),
      );
      entry.resume();
      return;
    }
    if (entry.size > this.maxManifestBytes) {
      this.fail(invalidSnapshot(`the manifest is ${entry.size} bytes, over the limit of ${this.maxManifestBytes}`));
      entry.resume();
      return;
    }
    const chunks: Buffer[] = [];
    entry.on('data', (chunk: Buffer) => chunks.push(chunk));
    // Runs before the parser moves on to the next entry, so every later entry is checked against the manifest.
    entry.on('end', () => {
      if (this.failure !== undefined) return;
      try {
        const manifest = parseManifest(Buffer.concat(chunks));
        const total = manifest.files.reduce((sum, file) => sum + file.size, 0);
        if (total > this.maxTotalBytes) {
          throw invalidSnapshot(
            `the snapshot holds ${total} bytes of files, over the limit of ${this.maxTotalBytes} bytes`,
          );
        }
        this.manifest = manifest;
        this.listed = new Map(manifest.files.map((file) => [file.path, file]));
      } catch (error) {
        this.fail(error);
      }
    });
  }

  /** Creates the folders of an entry's path (all inside the extraction folder: the path was checked). */
  private makeParents(dir: string): void {
    if (this.dirs.has(dir)) return;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    for (let current = dir; !this.dirs.has(current); current = path.dirname(current)) this.dirs.add(current);
  }

  private async writeEntry(entry: ReadEntry, target: string, listed: SnapshotFileEntry): Promise<void> {
    // O_EXCL | O_NOFOLLOW: never through a link, never over something already there.
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
    const handle = await durableFs.open(target, flags, 0o600);
    try {
      const hash = createHash('sha256');
      for await (const chunk of entry as AsyncIterable<Buffer>) {
        hash.update(chunk);
        for (let offset = 0; offset < chunk.length;) {
          offset += (await durableFs.write(handle, chunk, offset, chunk.length - offset, null)).bytesWritten;
        }
      }
      const sha256 = hash.digest('hex');
      if (sha256 !== listed.sha256) {
        throw invalidSnapshot(
          `entry ${JSON.stringify(listed.path)} has sha256 ${sha256} but the manifest says ${listed.sha256}`,
        );
      }
      await durableFs.sync(handle);
    } finally {
      await handle.close();
    }
  }
}

/** node-tar's strict-mode errors, as refusals that say what is wrong with the archive. */
function parserError(error: Error): DomainError {
  if (/truncated/i.test(error.message)) return invalidSnapshot(`the archive is truncated (${error.message})`);
  return invalidSnapshot(`the archive is damaged (${error.message})`);
}
