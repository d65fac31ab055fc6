import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { CollectionCatalog, CollectionRecord } from '@vectorstore/collections';
import { DomainError, integersToNumbers, parseJson, stringifyJson } from '@vectorstore/common';
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { buildRestoredCollection, checkpointCollection } from './collection-storage/collection-snapshot';
import { OPEN_SHARD_LOG, POINTS_DATA_DIR, PointsStorage } from './points-storage';
import { OpenShardLog } from './shard-log';

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
    await fs.rm(this.restoringDir, { recursive: true, force: true });
  }

  /**
   * Writes into `intoDir` the tree of a collection snapshot: `config.json` (the catalog record and
   * the collection's aliases) and `shards/<id>/` (each shard's manifest and segment files). Returns
   * the collection's real name (`nameOrAlias` may be an alias).
   */
  async checkpoint(nameOrAlias: string, intoDir: string): Promise<string> {
    const record = this.catalog.require(nameOrAlias);
    const aliases = [...this.catalog.snapshot.aliases].filter(([, target]) => target === record.name).map(([a]) => a);
    await fs.mkdir(intoDir, { recursive: true, mode: 0o700 });
    const config: SnapshotCollectionConfig = { record, aliases };
    await fs.writeFile(path.join(intoDir, 'config.json'), stringifyJson(config, 2), { mode: 0o600 });
    await checkpointCollection(this.storage.storageOf(record), intoDir);
    return record.name;
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
      await buildRestoredCollection(record, sourceDir, staging, this.openLog);
    } catch (error) {
      await fs.rm(staging, { recursive: true, force: true });
      if (error instanceof DomainError) throw error;
      throw DomainError.invalidArgument(
        `Bad request: invalid snapshot archive: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const target = path.join(this.storage.collectionsDirectory, id);
    try {
      await this.catalog.mutateAfter(
        async () => fs.rename(staging, target),
        (draft) => {
          draft.collections.set(name, record);
        },
      );
    } catch (error) {
      await fs.rm(staging, { recursive: true, force: true });
      throw error;
    }
    this.logger.log(`collection ${name} restored from a snapshot`);
  }
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
