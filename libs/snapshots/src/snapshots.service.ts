import { Inject, Injectable, Logger, OnModuleInit, Optional } from '@nestjs/common';
import {
  AliasesService,
  CLUSTER_MEMBERSHIP,
  ClusterMembership,
  CollectionCatalog,
  PEER_ID,
} from '@vectorstore/collections';
import { DomainError } from '@vectorstore/common';
import { APP_CONFIG, AppConfig } from '@vectorstore/config';
import { CollectionSnapshots, type PartialSegmentManifest } from '@vectorstore/points';
import { downloadSnapshot, resolveSnapshotLocation } from './snapshot-location';
import { readSnapshot } from './snapshot-reader';
import { SnapshotStore, type OpenedSnapshot, type SnapshotDescription, type SnapshotScope } from './snapshot-store';
import { writeSnapshot } from './snapshot-writer';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** Qdrant's `SnapshotPriority`. On a single node each one restores the snapshot's data (see docs/snapshots.md). */
export const SNAPSHOT_PRIORITIES = ['snapshot', 'replica', 'no_sync'] as const;
export type SnapshotPriority = (typeof SNAPSHOT_PRIORITIES)[number];

/** Most bytes a snapshot to restore may hold, and may be downloaded. */
export const MAX_SNAPSHOT_BYTES = 1024 ** 4;
/** Limit for downloading a snapshot to recover from. */
const DOWNLOAD_TIMEOUT_MS = 60 * 60 * 1000;
/** Work folders of snapshots being written (links to shard files), under the data folder so links work. */
const WORK_DIR = 'snapshot-work';

export interface RecoverRequest {
  collection: string;
  location: string;
  priority?: string;
  checksum?: string;
  apiKey?: string;
}

/**
 * Collection snapshots: the storage's point-in-time copy written as an archive into the snapshot
 * store, and restores from an archive validated by the snapshot reader. Composes @vectorstore/points
 * with this library's archives.
 */
@Injectable()
export class SnapshotsService implements OnModuleInit {
  private readonly logger = new Logger(SnapshotsService.name);
  readonly store: SnapshotStore;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly catalog: CollectionCatalog,
    private readonly collections: CollectionSnapshots,
    @Inject(PEER_ID) private readonly peerId: string,
    private readonly aliases: AliasesService,
    @Optional() @Inject(CLUSTER_MEMBERSHIP) private readonly membership?: ClusterMembership,
  ) {
    this.store = new SnapshotStore(config.snapshotsDir, { peerId });
  }

  /**
   * Snapshots copy and restore one peer's data: in cluster mode that is part of a collection, and a
   * restore would write a shared catalog entry for points only this peer has. Refused until snapshots
   * are cluster-aware (docs/cluster.md).
   */
  private assertStandalone(): void {
    if (this.membership)
      throw DomainError.unimplemented(
        "Cluster mode does not take or restore snapshots yet: they would hold one peer's part of the data (docs/cluster.md)",
      );
  }

  /** Where multer streams uploads (removed with the rest of the work folder at start). */
  static uploadsDir(config: AppConfig): string {
    return path.join(config.dataDir, WORK_DIR, 'uploads');
  }

  private get workDir(): string {
    return path.join(this.config.dataDir, WORK_DIR);
  }

  private get tempDir(): string {
    return path.join(this.config.snapshotsDir, 'tmp');
  }

  /** Removes what snapshots being written or restored left behind when the server stopped. */
  async onModuleInit(): Promise<void> {
    await fs.mkdir(this.config.snapshotsDir, { recursive: true, mode: 0o700 });
    await fs.rm(this.workDir, { recursive: true, force: true });
    await fs.mkdir(SnapshotsService.uploadsDir(this.config), { recursive: true, mode: 0o700 });
    await this.store.removeLeftovers();
  }

  async create(collectionName: string): Promise<SnapshotDescription> {
    this.assertStandalone();
    const name = this.catalog.require(collectionName).name;
    const scope: SnapshotScope = { kind: 'collection', collection: name };
    const reservation = await this.store.reserveName(scope);
    await fs.mkdir(this.workDir, { recursive: true, mode: 0o700 });
    const work = await fs.mkdtemp(path.join(this.workDir, 'collection-'));
    try {
      await this.collections.checkpoint(name, work);
      await writeSnapshot({
        dir: reservation.dir,
        name: reservation.name,
        kind: 'collection',
        peerId: this.peerId,
        collections: [name],
        directories: [{ root: work, prefix: 'collection' }],
      });
    } finally {
      await reservation.release();
      await fs.rm(work, { recursive: true, force: true });
    }
    return this.store.describe(scope, reservation.name);
  }

  /**
   * A full snapshot: each collection's tree (as in a collection snapshot) under
   * `collections/<name>/`, and every alias in `aliases.json`. Each collection is copied at its own
   * consistent cut, one after the other; a collection deleted meanwhile is left out.
   */
  async createFull(): Promise<SnapshotDescription> {
    this.assertStandalone();
    const scope: SnapshotScope = { kind: 'full' };
    const reservation = await this.store.reserveName(scope);
    await fs.mkdir(this.workDir, { recursive: true, mode: 0o700 });
    const work = await fs.mkdtemp(path.join(this.workDir, 'full-'));
    try {
      const names: string[] = [];
      for (const name of [...this.catalog.snapshot.collections.keys()].sort()) {
        if (this.catalog.resolve(name) === undefined) continue;
        await this.collections.checkpoint(name, path.join(work, 'collections', name));
        names.push(name);
      }
      const aliases = [...this.catalog.snapshot.aliases]
        .filter(([, collection]) => names.includes(collection))
        .map(([alias_name, collection_name]) => ({ alias_name, collection_name }));
      await fs.writeFile(path.join(work, 'aliases.json'), JSON.stringify(aliases, null, 2), { mode: 0o600 });
      await writeSnapshot({
        dir: reservation.dir,
        name: reservation.name,
        kind: 'full',
        peerId: this.peerId,
        collections: names,
        directories: [{ root: work }],
      });
    } finally {
      await reservation.release();
      await fs.rm(work, { recursive: true, force: true });
    }
    return this.store.describe(scope, reservation.name);
  }

  listFull(): Promise<SnapshotDescription[]> {
    this.assertStandalone();
    return this.store.list({ kind: 'full' });
  }

  deleteFull(snapshotName: string): Promise<void> {
    this.assertStandalone();
    return this.store.delete({ kind: 'full' }, snapshotName);
  }

  downloadFull(snapshotName: string): Promise<OpenedSnapshot> {
    this.assertStandalone();
    return this.store.openForDownload({ kind: 'full' }, snapshotName);
  }

  list(collectionName: string): Promise<SnapshotDescription[]> {
    this.assertStandalone();
    const name = this.catalog.require(collectionName).name;
    return this.store.list({ kind: 'collection', collection: name });
  }

  delete(collectionName: string, snapshotName: string): Promise<void> {
    this.assertStandalone();
    const name = this.catalog.require(collectionName).name;
    return this.store.delete({ kind: 'collection', collection: name }, snapshotName);
  }

  download(collectionName: string, snapshotName: string): Promise<OpenedSnapshot> {
    this.assertStandalone();
    const name = this.catalog.require(collectionName).name;
    return this.store.openForDownload({ kind: 'collection', collection: name }, snapshotName);
  }

  /** Restores every collection of a full snapshot, and its aliases, from `location` (as {@link recover}). */
  async recoverFull(request: Omit<RecoverRequest, 'collection'>): Promise<string[]> {
    this.assertStandalone();
    checkPriority(request.priority);
    let restored: string[] = [];
    await this.withLocalArchive({ ...request, collection: '' }, async (archive) => {
      restored = await this.restoreFullArchive(archive, request.checksum, false);
    });
    return restored;
  }

  /**
   * Restores a full snapshot: each collection it holds is made or replaced (one after the other, each
   * as a collection restore), then its aliases are pointed at them. Collections it does not hold are
   * left alone. Every collection's config is checked before the first one is replaced, so a damaged
   * archive changes nothing; a failure while swapping later collections in leaves the earlier ones
   * restored (see docs/snapshots.md). Returns the restored collections' names.
   */
  async restoreFullArchive(archive: string, checksum: string | undefined, requireChecksum: boolean): Promise<string[]> {
    this.assertStandalone();
    const extracted = await readSnapshot(archive, {
      extractParent: this.tempDir,
      checksum,
      requireChecksum,
      maxTotalBytes: MAX_SNAPSHOT_BYTES,
    });
    try {
      const { manifest, dir } = extracted;
      if (manifest.kind !== 'full') {
        throw DomainError.invalidArgument(
          `Bad request: invalid snapshot archive: a ${manifest.kind} snapshot is not a full snapshot`,
        );
      }
      const aliases = await readFullSnapshotAliases(dir, manifest.collections);
      for (const name of manifest.collections) await this.collections.checkRestorable(collectionTree(dir, name));
      for (const name of manifest.collections) await this.collections.restore(name, collectionTree(dir, name));
      if (aliases.length > 0) {
        await this.aliases.update(
          aliases.map(({ alias_name, collection_name }) => ({
            createAlias: { aliasName: alias_name, collectionName: collection_name },
          })),
        );
      }
      this.logger.log(
        `full snapshot ${path.basename(archive)} restored: ${manifest.collections.join(', ') || 'no collections'}`,
      );
      return [...manifest.collections];
    } finally {
      await fs.rm(extracted.dir, { recursive: true, force: true });
    }
  }

  // ---- shard snapshots ----

  /** A snapshot of one shard: the tree of a collection snapshot holding only that shard. */
  async createShard(collectionName: string, shardId: number): Promise<SnapshotDescription> {
    this.assertStandalone();
    const scope = this.shardScope(collectionName, shardId);
    const reservation = await this.store.reserveName(scope);
    await fs.mkdir(this.workDir, { recursive: true, mode: 0o700 });
    const work = await fs.mkdtemp(path.join(this.workDir, 'shard-'));
    try {
      await this.collections.checkpointShard(scope.collection, shardId, work);
      await writeSnapshot({
        dir: reservation.dir,
        name: reservation.name,
        kind: 'shard',
        peerId: this.peerId,
        collections: [scope.collection],
        shardId,
        directories: [{ root: work, prefix: 'collection' }],
      });
    } finally {
      await reservation.release();
      await fs.rm(work, { recursive: true, force: true });
    }
    return this.store.describe(scope, reservation.name);
  }

  listShard(collectionName: string, shardId: number): Promise<SnapshotDescription[]> {
    this.assertStandalone();
    return this.store.list(this.shardScope(collectionName, shardId));
  }

  deleteShard(collectionName: string, shardId: number, snapshotName: string): Promise<void> {
    this.assertStandalone();
    return this.store.delete(this.shardScope(collectionName, shardId), snapshotName);
  }

  downloadShard(collectionName: string, shardId: number, snapshotName: string): Promise<OpenedSnapshot> {
    this.assertStandalone();
    return this.store.openForDownload(this.shardScope(collectionName, shardId), snapshotName);
  }

  /** Restores shard `shardId` of a collection from `location` (as {@link recover}); the collection must exist. */
  async recoverShard(request: RecoverRequest & { shardId: number }): Promise<void> {
    this.assertStandalone();
    checkPriority(request.priority);
    this.shardScope(request.collection, request.shardId);
    await this.withLocalArchive(request, (archive) =>
      this.restoreShardArchive(request.collection, request.shardId, archive, request.checksum, false),
    );
  }

  /** Restores shard `shardId` of a collection from a shard snapshot archive on this node. */
  async restoreShardArchive(
    collection: string,
    shardId: number,
    archive: string,
    checksum: string | undefined,
    requireChecksum: boolean,
  ): Promise<void> {
    this.assertStandalone();
    this.shardScope(collection, shardId);
    const extracted = await readSnapshot(archive, {
      extractParent: this.tempDir,
      checksum,
      requireChecksum,
      maxTotalBytes: MAX_SNAPSHOT_BYTES,
    });
    try {
      if (extracted.manifest.kind !== 'shard') {
        throw DomainError.invalidArgument(
          `Bad request: invalid snapshot archive: a ${extracted.manifest.kind} snapshot cannot restore a shard`,
        );
      }
      await this.collections.restoreShard(collection, shardId, path.join(extracted.dir, 'collection'));
    } finally {
      await fs.rm(extracted.dir, { recursive: true, force: true });
    }
    this.logger.log(`shard ${shardId} of ${collection} recovered from snapshot ${path.basename(archive)}`);
  }

  /** Qdrant's partial snapshot manifest of a shard (see CollectionSnapshots.partialManifest). */
  partialManifest(collectionName: string, shardId: number): Record<string, PartialSegmentManifest> {
    this.assertStandalone();
    return this.collections.partialManifest(collectionName, shardId);
  }

  /** The scope of a shard's snapshots; 404 when the collection or the shard does not exist. */
  private shardScope(collectionName: string, shardId: number): SnapshotScope & { kind: 'shard' } {
    const record = this.catalog.require(collectionName);
    if (!record.shards.some((shard) => shard.shardId === shardId)) {
      throw DomainError.notFound(`Not found: shard ${shardId}`);
    }
    return { kind: 'shard', collection: record.name, shardId };
  }

  /** Runs `restore` on the archive at a recover location: a file in the snapshots folder, or a download removed after. */
  private async withLocalArchive(request: RecoverRequest, restore: (archive: string) => Promise<void>): Promise<void> {
    const location = await resolveSnapshotLocation(request.location, this.config.snapshotsDir);
    if (location.kind === 'file') return restore(location.path);
    const download = await downloadSnapshot(location.url, {
      targetDir: this.tempDir,
      maxBytes: MAX_SNAPSHOT_BYTES,
      timeoutMs: DOWNLOAD_TIMEOUT_MS,
      apiKey: request.apiKey,
    });
    try {
      await restore(download.path);
    } finally {
      await fs.rm(download.path, { force: true });
    }
  }

  /**
   * Restores collection `collection` (made when absent, replaced when present) from `location`: a
   * `file://` inside the snapshots folder or an http(s) URL. The archive is checked and extracted
   * into a fresh folder first; a refusal leaves the existing collection untouched.
   */
  async recover(request: RecoverRequest): Promise<void> {
    this.assertStandalone();
    checkPriority(request.priority);
    await this.withLocalArchive(request, (archive) =>
      this.restoreArchive(request.collection, archive, request.checksum, false),
    );
  }

  /** Restores collection `collection` from an archive file on this node (an upload's, or a recover's). */
  async restoreArchive(
    collection: string,
    archive: string,
    checksum: string | undefined,
    requireChecksum: boolean,
  ): Promise<void> {
    this.assertStandalone();
    const extracted = await readSnapshot(archive, {
      extractParent: this.tempDir,
      checksum,
      requireChecksum,
      maxTotalBytes: MAX_SNAPSHOT_BYTES,
    });
    try {
      if (extracted.manifest.kind !== 'collection') {
        throw DomainError.invalidArgument(
          `Bad request: invalid snapshot archive: a ${extracted.manifest.kind} snapshot cannot restore a collection`,
        );
      }
      await this.collections.restore(collection, path.join(extracted.dir, 'collection'));
    } finally {
      await fs.rm(extracted.dir, { recursive: true, force: true });
    }
    this.logger.log(`collection ${collection} recovered from snapshot ${path.basename(archive)}`);
  }
}

/** Refuses a priority Qdrant does not know (the wire's `unknown variant`). */
export function checkPriority(priority: string | undefined): void {
  if (priority === undefined || (SNAPSHOT_PRIORITIES as readonly string[]).includes(priority)) return;
  throw DomainError.invalidArgument(
    `Bad request: unknown snapshot priority \`${priority}\`, expected one of ${SNAPSHOT_PRIORITIES.join(', ')}`,
  );
}

function collectionTree(extracted: string, name: string): string {
  return path.join(extracted, 'collections', name);
}

/** `aliases.json` of a full snapshot: `[{alias_name, collection_name}]`, each naming a collection it holds. */
async function readFullSnapshotAliases(
  extracted: string,
  collections: readonly string[],
): Promise<Array<{ alias_name: string; collection_name: string }>> {
  const bad = (why: string): DomainError =>
    DomainError.invalidArgument(`Bad request: invalid snapshot archive: ${why}`);
  const text = await fs.readFile(path.join(extracted, 'aliases.json'), 'utf8').catch(() => undefined);
  if (text === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw bad('aliases.json is not JSON');
  }
  const valid =
    Array.isArray(parsed) &&
    parsed.every(
      (entry: unknown) =>
        typeof entry === 'object' &&
        entry !== null &&
        typeof (entry as { alias_name?: unknown }).alias_name === 'string' &&
        typeof (entry as { collection_name?: unknown }).collection_name === 'string' &&
        collections.includes((entry as { collection_name: string }).collection_name),
    );
  if (!valid) throw bad('aliases.json must list {alias_name, collection_name} of collections the snapshot holds');
  return parsed as Array<{ alias_name: string; collection_name: string }>;
}
