// Where snapshots live and what a client sees of them. Qdrant's layout under the snapshots folder:
//   <snapshots dir>/<name>                                  full snapshots (full-snapshot-<time>.snapshot)
//   <snapshots dir>/<name>                                  cluster backups (cluster-backup-<time>.snapshot, ours)
//   <snapshots dir>/<collection>/<name>                     collection snapshots (<collection>-<peer>-<time>.snapshot)
//   <snapshots dir>/<collection>/shards/<shard id>/<name>   shard snapshots (<collection>-shard-<id>-<time>.snapshot)
//   <snapshots dir>/tmp/                                    work folders (extractions, downloads)
// Each archive has its `<name>.sha256` beside it. Snapshots stay until deleted.
import { DomainError } from '@vectorstore/common';
import { durableFs, fsyncDirectory, removeStaleTemporaryFiles } from '@vectorstore/persistence';
import { constants, promises as fs, type Stats } from 'node:fs';
import type { Readable } from 'node:stream';
import * as path from 'node:path';
import { CHECKSUM_SUFFIX, checksumPathFor, readSidecarChecksum } from './snapshot-checksum';
import { snapshotNotFound } from './snapshot-errors';
import { DOWNLOAD_PREFIX, DOWNLOAD_SUFFIX, EXTRACTION_PREFIX } from './snapshot-work-names';
import { collectionNameProblem, peerIdProblem } from './snapshot-manifest';
import {
  clusterBackupStem,
  collectionSnapshotStem,
  formatCreationTime,
  fullSnapshotStem,
  isClusterBackupName,
  shardSnapshotStem,
  SNAPSHOT_SUFFIX,
  snapshotNameCandidate,
  snapshotNameProblem,
} from './snapshot-names';

/** The environment variable that moves the snapshots folder away from `<data dir>/snapshots`. */
export const SNAPSHOTS_DIR_ENV = 'VECTORSTORE_SNAPSHOTS_DIR';
/** Qdrant's work folder under the snapshots folder (`TEMP_SUBDIR_NAME`). */
export const SNAPSHOTS_TEMP_SUBDIR = 'tmp';
const TMP_SUFFIX = '.tmp';
const MAX_NAME_ATTEMPTS = 1000;
const MAX_U32 = 4294967295;

/** `VECTORSTORE_SNAPSHOTS_DIR` when set (resolved), else `<data dir>/snapshots`. */
export function resolveSnapshotsDir(dataDir: string, configured?: string): string {
  return configured !== undefined && configured.trim() !== ''
    ? path.resolve(configured)
    : path.join(path.resolve(dataDir), 'snapshots');
}

export type SnapshotScope =
  | { readonly kind: 'full' }
  /** Cluster backups: in the root folder beside full snapshots, told apart by their name's prefix. */
  | { readonly kind: 'cluster' }
  | { readonly kind: 'collection'; readonly collection: string }
  | { readonly kind: 'shard'; readonly collection: string; readonly shardId: number };

/** Qdrant's `SnapshotDescription` as REST shows it (gRPC turns creation_time into a Timestamp). */
export interface SnapshotDescription {
  readonly name: string;
  /** `YYYY-MM-DDTHH:MM:SS` in UTC. */
  readonly creation_time: string | null;
  readonly size: number;
  /** sha256 hex from the `.sha256` sidecar; absent when there is none (as in Qdrant). */
  readonly checksum?: string;
}

/** A name held for one snapshot being written: `<dir>/<name>.tmp` exists and belongs to its writer. */
export interface SnapshotReservation {
  readonly name: string;
  readonly dir: string;
  /** `<dir>/<name>`, where the finished archive goes. */
  readonly path: string;
  /** Gives the name back when no snapshot was written (removes `<name>.tmp`). */
  release(): Promise<void>;
}

export interface OpenedSnapshot {
  readonly description: SnapshotDescription;
  /** The archive's bytes, read in chunks; the file closes when the stream ends or is destroyed. */
  readonly stream: Readable;
}

export interface SnapshotStoreOptions {
  /** This node's peer id (decimal u64), used in collection snapshot names. */
  readonly peerId: string;
  /** Clock for names; defaults to the system's. */
  readonly now?: () => Date;
  /** Work folder; defaults to `<snapshots dir>/tmp` (Qdrant's). */
  readonly tempDir?: string;
}

export class SnapshotStore {
  readonly root: string;
  readonly tempDir: string;
  private readonly peerId: string;
  private readonly now: () => Date;

  constructor(root: string, options: SnapshotStoreOptions) {
    if (peerIdProblem(options.peerId) !== undefined) {
      throw DomainError.internal(`Service internal error: peer id ${JSON.stringify(options.peerId)} is not a u64`);
    }
    this.root = path.resolve(root);
    this.tempDir = path.resolve(options.tempDir ?? path.join(this.root, SNAPSHOTS_TEMP_SUBDIR));
    this.peerId = options.peerId;
    this.now = options.now ?? (() => new Date());
  }

  /** The folder a scope's snapshots live in (not created). Collection names `.`, `..` and those with `/` are refused. */
  dirOf(scope: SnapshotScope): string {
    if (scope.kind === 'full' || scope.kind === 'cluster') return this.root;
    const problem = collectionNameProblem(scope.collection);
    if (problem !== undefined) {
      throw DomainError.invalidArgument(
        `Bad request: collection name ${JSON.stringify(scope.collection)} ${problem}, so it cannot have snapshots`,
      );
    }
    const collectionDir = path.join(this.root, scope.collection);
    if (scope.kind === 'collection') return collectionDir;
    if (!Number.isInteger(scope.shardId) || scope.shardId < 0 || scope.shardId > MAX_U32) {
      throw DomainError.invalidArgument(`Bad request: shard id ${scope.shardId} is not a u32`);
    }
    return path.join(collectionDir, 'shards', String(scope.shardId));
  }

  /**
   * Picks Qdrant's name for a new snapshot of `scope` at the current second, and holds it by creating
   * `<name>.tmp` exclusively; further snapshots in the same second get `-2`, `-3`... before `.snapshot`.
   * Taking the `.tmp` first and then checking the final name is free makes two concurrent reservations, and a
   * reservation racing a writer that is just finishing, always end with different names.
   */
  async reserveName(scope: SnapshotScope): Promise<SnapshotReservation> {
    const dir = this.dirOf(scope);
    const stem = this.stemOf(scope, this.now());
    await durableFs.mkdir(dir, { recursive: true });
    for (let attempt = 1; attempt <= MAX_NAME_ATTEMPTS; attempt++) {
      const name = snapshotNameCandidate(stem, attempt);
      const problem = snapshotNameProblem(name);
      if (problem !== undefined) {
        throw DomainError.invalidArgument(`Bad request: the snapshot name ${JSON.stringify(name)} ${problem}`);
      }
      const finalPath = path.join(dir, name);
      const tmpPath = `${finalPath}${TMP_SUFFIX}`;
      try {
        await (await durableFs.open(tmpPath, 'wx', 0o600)).close();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
        throw error;
      }
      if (await exists(finalPath)) {
        await durableFs.rm(tmpPath, { force: true });
        continue;
      }
      return { name, dir, path: finalPath, release: () => durableFs.rm(tmpPath, { force: true }) };
    }
    throw DomainError.internal(
      `Service internal error: no free snapshot name for ${stem} after ${MAX_NAME_ATTEMPTS} tries`,
    );
  }

  /** The scope's snapshots (`*.snapshot` regular files), sorted by name; an absent folder has none. */
  async list(scope: SnapshotScope): Promise<SnapshotDescription[]> {
    const dir = this.dirOf(scope);
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const names = entries
      .filter((entry) => entry.isFile() && snapshotNameProblem(entry.name) === undefined)
      .map((entry) => entry.name)
      .filter((name) => inScope(scope, name))
      .sort();
    const descriptions: SnapshotDescription[] = [];
    for (const name of names) {
      // A snapshot deleted between readdir and here is simply not listed.
      const description = await this.describeFile(path.join(dir, name), name).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      if (description !== undefined) descriptions.push(description);
    }
    return descriptions;
  }

  /** The path of an existing snapshot: a plain `*.snapshot` name of a regular file; else NOT_FOUND. */
  async pathOf(scope: SnapshotScope, name: string): Promise<string> {
    const dir = this.dirOf(scope);
    if (snapshotNameProblem(name) !== undefined || !inScope(scope, name)) throw snapshotNotFound(name);
    const snapshotPath = path.join(dir, name);
    const stat = await fs.lstat(snapshotPath).catch(() => undefined);
    if (!stat?.isFile()) throw snapshotNotFound(name);
    return snapshotPath;
  }

  async describe(scope: SnapshotScope, name: string): Promise<SnapshotDescription> {
    const snapshotPath = await this.pathOf(scope, name);
    return this.describeFile(snapshotPath, name).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') throw snapshotNotFound(name);
      throw error;
    });
  }

  /** Deletes a snapshot and its `.sha256`. A name that is not a plain `*.snapshot` file name is NOT_FOUND. */
  async delete(scope: SnapshotScope, name: string): Promise<void> {
    const snapshotPath = await this.pathOf(scope, name);
    try {
      await durableFs.unlink(snapshotPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw snapshotNotFound(name);
      throw error;
    }
    await durableFs.rm(checksumPathFor(snapshotPath), { force: true });
    await fsyncDirectory(path.dirname(snapshotPath));
  }

  /**
   * Opens a snapshot for download: a stream of its bytes (never the whole file in memory) and its description.
   * The file is opened once (without following links), so a delete during the download does not cut it short.
   */
  async openForDownload(scope: SnapshotScope, name: string): Promise<OpenedSnapshot> {
    const snapshotPath = await this.pathOf(scope, name);
    let handle;
    try {
      handle = await fs.open(snapshotPath, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch {
      throw snapshotNotFound(name);
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw snapshotNotFound(name);
      const checksum = await readSidecarChecksum(snapshotPath).catch(() => undefined);
      const description = describeStat(name, stat, checksum);
      return { description, stream: handle.createReadStream({ highWaterMark: 256 * 1024 }) };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  /**
   * Removes what interrupted work left: `*.snapshot.tmp` files of writers and reservations, the temporary files of
   * sidecar writes and the sidecars of deleted snapshots (a delete cut short) in every snapshot folder, and extraction folders (`extract-*`) and partial downloads
   * (`*.part`) in the work folder. Nothing else: a collection named `tmp` keeps its snapshots in the work folder's
   * place, and they stay. Only for startup, before any snapshot work begins.
   */
  async removeLeftovers(): Promise<void> {
    await removeTmpFiles(this.root, 4);
    let entries;
    try {
      entries = await fs.readdir(this.tempDir, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    for (const entry of entries) {
      const isWork =
        (entry.isDirectory() && entry.name.startsWith(EXTRACTION_PREFIX)) ||
        (entry.isFile() && entry.name.startsWith(DOWNLOAD_PREFIX) && entry.name.endsWith(DOWNLOAD_SUFFIX));
      if (isWork) await durableFs.rm(path.join(this.tempDir, entry.name), { recursive: true, force: true });
    }
  }

  private stemOf(scope: SnapshotScope, date: Date): string {
    switch (scope.kind) {
      case 'full':
        return fullSnapshotStem(date);
      case 'cluster':
        return clusterBackupStem(date);
      case 'collection':
        return collectionSnapshotStem(scope.collection, this.peerId, date);
      case 'shard':
        return shardSnapshotStem(scope.collection, scope.shardId, date);
    }
  }

  private async describeFile(snapshotPath: string, name: string): Promise<SnapshotDescription> {
    const stat = await fs.lstat(snapshotPath);
    // A sidecar that cannot be read or parsed shows as no checksum, as in Qdrant.
    const checksum = await readSidecarChecksum(snapshotPath).catch(() => undefined);
    return describeStat(name, stat, checksum);
  }
}

/** Full snapshots and cluster backups share the root folder: each scope sees its own names only. */
function inScope(scope: SnapshotScope, name: string): boolean {
  if (scope.kind === 'cluster') return isClusterBackupName(name);
  if (scope.kind === 'full') return !isClusterBackupName(name);
  return true;
}

/** Qdrant's description: the file's birth time (its mtime where the file system keeps none), size, checksum. */
function describeStat(name: string, stat: Stats, checksum: string | undefined): SnapshotDescription {
  const created = stat.birthtimeMs > 0 ? stat.birthtime : stat.mtime;
  return {
    name,
    creation_time: formatCreationTime(created),
    size: stat.size,
    ...(checksum === undefined ? {} : { checksum }),
  };
}

async function exists(filePath: string): Promise<boolean> {
  try {
    await fs.lstat(filePath);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/**
 * Removes `*.snapshot.tmp` files, hidden `.*.tmp` files and the `.sha256` of snapshots that are gone in `dir` and its
 * folders, `depth` levels down (root, collection, shards, <id>).
 */
async function removeTmpFiles(dir: string, depth: number): Promise<void> {
  let entries;
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  // the temporary files of writeFileAtomic (`.<name>.<pid>.<random>.tmp`), left by a crash during a sidecar write
  await removeStaleTemporaryFiles(dir);
  const files = new Set(entries.filter((entry) => entry.isFile()).map((entry) => entry.name));
  for (const entry of entries) {
    const entryPath = path.join(dir, entry.name);
    if (entry.isFile() && entry.name.endsWith(`${SNAPSHOT_SUFFIX}${TMP_SUFFIX}`))
      await durableFs.rm(entryPath, { force: true });
    // the checksum of a snapshot whose delete a crash cut short (the archive goes first)
    else if (
      entry.isFile() &&
      entry.name.endsWith(`${SNAPSHOT_SUFFIX}${CHECKSUM_SUFFIX}`) &&
      !files.has(entry.name.slice(0, -CHECKSUM_SUFFIX.length))
    )
      await durableFs.rm(entryPath, { force: true });
    else if (entry.isDirectory() && depth > 1) await removeTmpFiles(entryPath, depth - 1);
  }
}
