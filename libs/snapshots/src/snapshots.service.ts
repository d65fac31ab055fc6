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
import { DOWNLOAD_TIMEOUT_MS, MAX_SNAPSHOT_BYTES, SNAPSHOT_WORK_DIR as WORK_DIR } from './snapshot-limits';
import { SNAPSHOT_PRIORITIES, type SnapshotPriority } from './cluster/recovery-priority';
import { ShardRecovery } from './cluster/shard-recovery';
import { CollectionRecovery } from './cluster/collection-recovery';
import { ClusterBackups } from './cluster/cluster-backups.service';
import { ClusterRestores } from './cluster/cluster-restores.service';
import { durableFs } from '@vectorstore/persistence';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

export { MAX_SNAPSHOT_BYTES } from './snapshot-limits';
export { SNAPSHOT_PRIORITIES, type SnapshotPriority } from './cluster/recovery-priority';

export interface RecoverRequest {
  collection: string;
  location: string;
  priority?: string;
  checksum?: string;
  apiKey?: string;
}

/**
 * Collection, full and shard snapshots: the storage's point-in-time copy written as an archive into the
 * snapshot store, and restores from an archive validated by the snapshot reader. Composes @vectorstore/points
 * with this library's archives. In cluster mode a peer's snapshots hold its own shards, and recoveries follow
 * Qdrant's `priority` rules for the other replicas (cluster/); cluster backups cover every shard of a cluster.
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
    private readonly shardRecovery: ShardRecovery,
    private readonly collectionRecovery: CollectionRecovery,
    private readonly backups: ClusterBackups,
    private readonly restores: ClusterRestores,
    @Optional() @Inject(CLUSTER_MEMBERSHIP) private readonly membership?: ClusterMembership,
  ) {
    this.store = new SnapshotStore(config.snapshotsDir, { peerId });
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
    await durableFs.mkdir(this.config.snapshotsDir, { recursive: true, mode: 0o700 });
    await durableFs.rm(this.workDir, { recursive: true, force: true });
    await durableFs.mkdir(SnapshotsService.uploadsDir(this.config), { recursive: true, mode: 0o700 });
    await this.store.removeLeftovers();
  }

  async create(collectionName: string): Promise<SnapshotDescription> {
    const name = this.catalog.require(collectionName).name;
    const scope: SnapshotScope = { kind: 'collection', collection: name };
    const reservation = await this.store.reserveName(scope);
    await durableFs.mkdir(this.workDir, { recursive: true, mode: 0o700 });
    const work = await durableFs.mkdtemp(path.join(this.workDir, 'collection-'));
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
      await durableFs.rm(work, { recursive: true, force: true });
    }
    return this.store.describe(scope, reservation.name);
  }

  /**
   * A full snapshot: each collection's tree (as in a collection snapshot) under
   * `collections/<name>/`, and every alias in `aliases.json`. Each collection is copied at its own
   * consistent cut, one after the other; a collection deleted meanwhile is left out.
   */
  async createFull(): Promise<SnapshotDescription> {
    const scope: SnapshotScope = { kind: 'full' };
    const reservation = await this.store.reserveName(scope);
    await durableFs.mkdir(this.workDir, { recursive: true, mode: 0o700 });
    const work = await durableFs.mkdtemp(path.join(this.workDir, 'full-'));
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
      await durableFs.writeFile(path.join(work, 'aliases.json'), JSON.stringify(aliases, null, 2));
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
      await durableFs.rm(work, { recursive: true, force: true });
    }
    return this.store.describe(scope, reservation.name);
  }

  listFull(): Promise<SnapshotDescription[]> {
    return this.store.list({ kind: 'full' });
  }

  deleteFull(snapshotName: string): Promise<void> {
    return this.store.delete({ kind: 'full' }, snapshotName);
  }

  downloadFull(snapshotName: string): Promise<OpenedSnapshot> {
    return this.store.openForDownload({ kind: 'full' }, snapshotName);
  }

  list(collectionName: string): Promise<SnapshotDescription[]> {
    const name = this.catalog.require(collectionName).name;
    return this.store.list({ kind: 'collection', collection: name });
  }

  delete(collectionName: string, snapshotName: string): Promise<void> {
    const name = this.catalog.require(collectionName).name;
    return this.store.delete({ kind: 'collection', collection: name }, snapshotName);
  }

  download(collectionName: string, snapshotName: string): Promise<OpenedSnapshot> {
    const name = this.catalog.require(collectionName).name;
    return this.store.openForDownload({ kind: 'collection', collection: name }, snapshotName);
  }

  /** Restores every collection of a full snapshot, and its aliases, from `location` (as {@link recover}). */
  async recoverFull(request: Omit<RecoverRequest, 'collection'>): Promise<string[]> {
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
      for (const name of manifest.collections) {
        // Cluster mode: each collection as a collection snapshot recovered on this peer (its own shards).
        if (this.membership) await this.collectionRecovery.recover(name, collectionTree(dir, name), undefined);
        else await this.collections.restore(name, collectionTree(dir, name));
      }
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
      await durableFs.rm(extracted.dir, { recursive: true, force: true });
    }
  }

  // ---- shard snapshots ----

  /** A snapshot of one shard: the tree of a collection snapshot holding only that shard. */
  async createShard(collectionName: string, shardId: number): Promise<SnapshotDescription> {
    const scope = this.shardScope(collectionName, shardId);
    const reservation = await this.store.reserveName(scope);
    await durableFs.mkdir(this.workDir, { recursive: true, mode: 0o700 });
    const work = await durableFs.mkdtemp(path.join(this.workDir, 'shard-'));
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
      await durableFs.rm(work, { recursive: true, force: true });
    }
    return this.store.describe(scope, reservation.name);
  }

  listShard(collectionName: string, shardId: number): Promise<SnapshotDescription[]> {
    return this.store.list(this.shardScope(collectionName, shardId));
  }

  deleteShard(collectionName: string, shardId: number, snapshotName: string): Promise<void> {
    return this.store.delete(this.shardScope(collectionName, shardId), snapshotName);
  }

  downloadShard(collectionName: string, shardId: number, snapshotName: string): Promise<OpenedSnapshot> {
    return this.store.openForDownload(this.shardScope(collectionName, shardId), snapshotName);
  }

  /**
   * Restores shard `shardId` of a collection from `location` (as {@link recover}); the collection must exist (and,
   * in cluster mode, have a replica of the shard here: the other replicas then follow `priority`).
   */
  async recoverShard(request: RecoverRequest & { shardId: number }): Promise<void> {
    checkPriority(request.priority);
    this.shardScope(request.collection, request.shardId);
    await this.withLocalArchive(request, (archive) =>
      this.restoreShardArchive(
        request.collection,
        request.shardId,
        archive,
        request.checksum,
        false,
        request.priority as SnapshotPriority | undefined,
      ),
    );
  }

  /** Restores shard `shardId` of a collection from a shard snapshot archive on this node (see ShardRecovery). */
  async restoreShardArchive(
    collection: string,
    shardId: number,
    archive: string,
    checksum: string | undefined,
    requireChecksum: boolean,
    priority?: SnapshotPriority,
  ): Promise<void> {
    checkPriority(priority);
    this.shardScope(collection, shardId);
    await this.shardRecovery.recoverFromArchive(collection, shardId, archive, { checksum, requireChecksum, priority });
  }

  /** Qdrant's partial snapshot manifest of a shard (see CollectionSnapshots.partialManifest). */
  partialManifest(collectionName: string, shardId: number): Record<string, PartialSegmentManifest> {
    this.shardScope(collectionName, shardId);
    return this.collections.partialManifest(collectionName, shardId);
  }

  /**
   * The scope of a shard's snapshots; 404 when the collection or the shard does not exist, and in cluster mode
   * Qdrant's 400 when this peer holds no replica of it.
   */
  private shardScope(collectionName: string, shardId: number): SnapshotScope & { kind: 'shard' } {
    const record = this.catalog.require(collectionName);
    if (!record.shards.some((shard) => shard.shardId === shardId)) {
      throw DomainError.notFound(`Not found: shard ${shardId}`);
    }
    this.shardRecovery.assertLocal(record, shardId);
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
      await durableFs.rm(download.path, { force: true });
    }
  }

  // ---- cluster backups (beyond Qdrant) ----

  /** Backs up `collections` (all when absent) over the whole cluster into one archive (see ClusterBackups). */
  createBackup(collections?: readonly string[]): Promise<SnapshotDescription> {
    return this.backups.create(this.store, collections);
  }

  listBackups(): Promise<SnapshotDescription[]> {
    return this.store.list({ kind: 'cluster' });
  }

  deleteBackup(name: string): Promise<void> {
    return this.store.delete({ kind: 'cluster' }, name);
  }

  downloadBackup(name: string): Promise<OpenedSnapshot> {
    return this.store.openForDownload({ kind: 'cluster' }, name);
  }

  /** Restores a cluster backup from `location` (as {@link recover}); the restored collections' names. */
  async recoverBackup(request: Omit<RecoverRequest, 'collection' | 'priority'>): Promise<string[]> {
    let restored: string[] = [];
    await this.withLocalArchive({ ...request, collection: '' }, async (archive) => {
      restored = await this.restores.restore(archive, request.checksum, false);
    });
    return restored;
  }

  /** Restores a cluster backup from an archive file on this node (an upload's). */
  restoreBackupArchive(archive: string, checksum: string | undefined): Promise<string[]> {
    return this.restores.restore(archive, checksum, false);
  }

  /**
   * Restores collection `collection` (made when absent, replaced when present) from `location`: a
   * `file://` inside the snapshots folder or an http(s) URL. The archive is checked and extracted
   * into a fresh folder first; a refusal leaves the existing collection untouched.
   */
  async recover(request: RecoverRequest): Promise<void> {
    checkPriority(request.priority);
    await this.withLocalArchive(request, (archive) =>
      this.restoreArchive(
        request.collection,
        archive,
        request.checksum,
        false,
        request.priority as SnapshotPriority | undefined,
      ),
    );
  }

  /**
   * Restores collection `collection` from an archive file on this node (an upload's, or a recover's). In cluster
   * mode the snapshot's shards that have a replica here are recovered with `priority` (see CollectionRecovery).
   */
  async restoreArchive(
    collection: string,
    archive: string,
    checksum: string | undefined,
    requireChecksum: boolean,
    priority?: SnapshotPriority,
  ): Promise<void> {
    checkPriority(priority);
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
      const tree = path.join(extracted.dir, 'collection');
      if (this.membership) await this.collectionRecovery.recover(collection, tree, priority);
      else await this.collections.restore(collection, tree);
    } finally {
      await durableFs.rm(extracted.dir, { recursive: true, force: true });
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
