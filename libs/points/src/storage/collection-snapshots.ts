import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { CollectionCatalog, CollectionRecord } from '@vectorstore/collections';
import { DomainError, insufficientStorageOf, integersToNumbers, parseJson, stringifyJson } from '@vectorstore/common';
import { durableFs } from '@vectorstore/persistence';
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import {
  buildRestoredCollection,
  checkpointCollection,
  snapshotShardFolders,
} from './collection-storage/collection-snapshot';
import { OPEN_SHARD_LOG, POINTS_DATA_DIR, PointsStorage } from './points-storage';
import { OpenShardLog } from './shard-log';
import { vectorSpacesOf } from './vector-space';

/** `collection/config.json` of a collection snapshot. */
interface SnapshotCollectionConfig {
  record: CollectionRecord;
  aliases: string[];
}

/** Where restores build a collection before it is swapped in (beside `collections/`, so a rename moves it). */
const RESTORING_DIR = 'restoring';

/**
 * The storage side of collection snapshots: a point-in-time copy of a collection's files, and a
 * restore that builds a collection in a new folder and swaps it in (catalog record and storage in
 * one catalog change) only once it is complete and opens.
 */
@Injectable()
export class CollectionSnapshots implements OnModuleInit {
  private readonly logger = new Logger(CollectionSnapshots.name);

  constructor(
    private readonly catalog: CollectionCatalog,
    private readonly storage: PointsStorage,
    @Inject(POINTS_DATA_DIR) private readonly dataDir: string,
    @Inject(OPEN_SHARD_LOG) private readonly openLog: OpenShardLog,
  ) {}

  private get restoringDir(): string {
    return path.join(this.dataDir, RESTORING_DIR);
  }

  /** Restores cut short by a crash leave a folder here; nothing refers to it. */
  async onModuleInit(): Promise<void> {
    await durableFs.rm(this.restoringDir, { recursive: true, force: true });
  }

  /**
   * Writes into `intoDir` the tree of a collection snapshot: `config.json` (the catalog record and
   * the collection's aliases) and `shards/<id>/` (each shard's manifest and segment files). Returns
   * the collection's real name (`nameOrAlias` may be an alias).
   */
  async checkpoint(nameOrAlias: string, intoDir: string): Promise<string> {
    const record = this.catalog.require(nameOrAlias);
    const aliases = [...this.catalog.snapshot.aliases].filter(([, target]) => target === record.name).map(([a]) => a);
    await durableFs.mkdir(intoDir, { recursive: true, mode: 0o700 });
    const config: SnapshotCollectionConfig = { record, aliases };
    await durableFs.writeFile(path.join(intoDir, 'config.json'), stringifyJson(config, 2));
    await checkpointCollection(this.storage.storageOf(record), intoDir);
    return record.name;
  }

  /** Refuses (400) a collection snapshot tree whose config.json does not hold a collection record. */
  async checkRestorable(sourceDir: string): Promise<void> {
    await readSnapshotConfig(sourceDir);
  }

  /**
   * Makes collection `name` what the snapshot tree in `sourceDir` holds (see {@link checkpoint}):
   * built in a new folder, and swapped in by one catalog change only once it opens. An existing
   * collection of that name is replaced then, and stays untouched if anything fails before. The
   * collection's aliases are kept; the snapshot's are not restored (a collection snapshot).
   */
  async restore(name: string, sourceDir: string): Promise<void> {
    const archived = await readSnapshotConfig(sourceDir);
    const id = randomUUID();
    const record: CollectionRecord = { ...archived.record, id, name };
    const staging = path.join(this.restoringDir, id);
    try {
      await buildRestoredCollection(record, await snapshotShardFolders(record, sourceDir), staging, this.openLog);
    } catch (error) {
      await durableFs.rm(staging, { recursive: true, force: true });
      if (error instanceof DomainError) throw error;
      // A full disk is no fault of the archive: 507, and the same restore works once space is freed.
      throw (
        insufficientStorageOf(error) ??
        DomainError.invalidArgument(
          `Bad request: invalid snapshot archive: ${error instanceof Error ? error.message : String(error)}`,
        )
      );
    }
    const target = path.join(this.storage.collectionsDirectory, id);
    try {
      await this.catalog.mutateAfter(
        async () => {
          await durableFs.rename(staging, target);
          // Durable before the catalog names it: a power cut must not leave a record pointing at no folder.
          await durableFs.syncDirectory(this.storage.collectionsDirectory);
        },
        (draft) => {
          draft.collections.set(name, record);
        },
      );
    } catch (error) {
      await durableFs.rm(staging, { recursive: true, force: true });
      throw error;
    }
    this.logger.log(`collection ${name} restored from a snapshot`);
  }

  /**
   * Writes into `intoDir` the tree of a shard snapshot: the tree of a collection snapshot (see
   * {@link checkpoint}) holding only shard `shardId`. The record is there so that a restore can
   * check the shard fits the collection it goes into. Returns the collection's real name.
   */
  async checkpointShard(nameOrAlias: string, shardId: number, intoDir: string): Promise<string> {
    const record = this.requireShard(nameOrAlias, shardId);
    const storage = this.storage.storageOf(record);
    if (storage.failure) throw storage.failure;
    const handle = storage.shards.get(shardId);
    if (handle === undefined) throw shardNotFound(shardId);
    await durableFs.mkdir(intoDir, { recursive: true, mode: 0o700 });
    // The record as this one shard's: a restore checks the shard fits the collection it goes into.
    // One entry for the shard: in cluster mode the record lists each of its replicas, on several peers.
    const config: SnapshotCollectionConfig = {
      record: { ...record, shards: record.shards.filter((shard) => shard.shardId === shardId).slice(0, 1) },
      aliases: [],
    };
    await durableFs.writeFile(path.join(intoDir, 'config.json'), stringifyJson(config, 2));
    // The exclusive side: no write is half-way when the copy is taken (see checkpointCollection).
    await storage.schemaLock.exclusive(() => handle.shard.checkpoint(path.join(intoDir, 'shards', String(shardId))));
    return record.name;
  }

  /**
   * Makes shard `shardId` of collection `nameOrAlias` what the shard snapshot tree in `sourceDir`
   * holds (see {@link checkpointShard}; the archive's shard may have another id). The archive's
   * vectors must be the collection's (names, sizes, distances, datatypes), else 400. The shard is
   * built and opened in a new folder first; a refusal leaves the current shard untouched. The
   * collection's config, other shards and aliases are kept.
   */
  async restoreShard(nameOrAlias: string, shardId: number, sourceDir: string): Promise<void> {
    const record = this.requireShard(nameOrAlias, shardId);
    const archived = await readSnapshotConfig(sourceDir);
    const bad = (why: string): DomainError =>
      DomainError.invalidArgument(`Bad request: invalid snapshot archive: ${why}`);
    if (archived.record.shards.length !== 1) throw bad('a shard snapshot must hold exactly one shard');
    if (stringifyJson(vectorsOf(archived.record)) !== stringifyJson(vectorsOf(record))) {
      throw bad(`the snapshot's vectors config differs from collection ${record.name}'s`);
    }
    const archivedId = String(archived.record.shards[0].shardId);
    const staging = path.join(this.restoringDir, randomUUID());
    const shard = record.shards.find((s) => s.shardId === shardId)!;
    try {
      try {
        // The archive's shard folder under the target's id, built and opened like a restore.
        const from = path.join(sourceDir, 'shards', archivedId);
        if (!(await fs.stat(from).catch(() => undefined))?.isDirectory()) throw bad(`shard ${archivedId} is missing`);
        const folders = new Map([[String(shardId), from]]);
        await buildRestoredCollection({ ...record, shards: [shard] }, folders, staging, this.openLog);
      } catch (error) {
        if (error instanceof DomainError) throw error;
        throw insufficientStorageOf(error) ?? bad(error instanceof Error ? error.message : String(error));
      }
      await this.storage.storageOf(record).replaceShard(shardId, path.join(staging, 'shards', String(shardId)));
    } finally {
      await durableFs.rm(staging, { recursive: true, force: true });
    }
    this.logger.log(`shard ${shardId} of collection ${record.name} restored from a snapshot`);
  }

  /**
   * What a shard holds now, as Qdrant's partial snapshot manifest: for each segment, its parts and
   * the last op number that changed them. Our segment files hold every part of a segment, so each
   * logical part (`vector_storage/<name>`, `payload_storage`, `id_tracker`) carries the segment's
   * version; a partial snapshot made from it is a whole shard snapshot (see docs/snapshots.md).
   */
  partialManifest(nameOrAlias: string, shardId: number): Record<string, PartialSegmentManifest> {
    const record = this.requireShard(nameOrAlias, shardId);
    const handle = this.storage.storageOf(record).shards.get(shardId);
    if (handle === undefined) throw shardNotFound(shardId);
    const manifest: Record<string, PartialSegmentManifest> = {};
    for (const segment of handle.shard.segments) {
      const version = segment.version;
      const parts = ['id_tracker', 'payload_storage', ...segment.vectorNames().map((name) => `vector_storage/${name}`)];
      manifest[segment.id] = {
        segment_id: segment.id,
        segment_version: version,
        file_versions: Object.fromEntries(parts.map((part) => [part, version])),
      };
    }
    return manifest;
  }

  /** The record of a collection that has shard `shardId`, else Qdrant's 404s. */
  private requireShard(nameOrAlias: string, shardId: number): CollectionRecord {
    const record = this.catalog.require(nameOrAlias);
    if (!record.shards.some((s) => s.shardId === shardId)) throw shardNotFound(shardId);
    return record;
  }
}

/** One segment of a partial snapshot manifest (Qdrant's `SegmentManifest`). */
export interface PartialSegmentManifest {
  segment_id: string;
  segment_version: number;
  file_versions: Record<string, number>;
}

function shardNotFound(shardId: number): DomainError {
  return DomainError.notFound(`Not found: shard ${shardId}`);
}

/** What of a record a shard's data depends on: each vector's name, kind, size, distance and datatype. */
function vectorsOf(record: CollectionRecord): unknown {
  return [...vectorSpacesOf(record.config).values()]
    .map((space) =>
      space.kind === 'sparse'
        ? { name: space.name, kind: space.kind }
        : { name: space.name, kind: space.kind, dim: space.dim, distance: space.distance, datatype: space.datatype },
    )
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

async function readSnapshotConfig(dir: string): Promise<SnapshotCollectionConfig> {
  const bad = (why: string): DomainError =>
    DomainError.invalidArgument(`Bad request: invalid snapshot archive: ${why}`);
  const text = await fs.readFile(path.join(dir, 'config.json'), 'utf8').catch(() => undefined);
  if (text === undefined) throw bad('collection/config.json is missing');
  let parsed: unknown;
  try {
    parsed = integersToNumbers(parseJson(text), (key) => key === 'metadata');
  } catch {
    throw bad('collection/config.json is not JSON');
  }
  const config = parsed as Partial<SnapshotCollectionConfig>;
  const record = config.record as Partial<CollectionRecord> | undefined;
  if (
    typeof record !== 'object' ||
    record === null ||
    typeof record.config !== 'object' ||
    record.config === null ||
    !Array.isArray(record.shards) ||
    !record.shards.every((s) => typeof s === 'object' && s !== null && Number.isSafeInteger(Number(s.shardId))) ||
    !Array.isArray(record.shardKeys)
  ) {
    throw bad('collection/config.json does not hold a collection record');
  }
  return { record: record as CollectionRecord, aliases: Array.isArray(config.aliases) ? config.aliases : [] };
}
