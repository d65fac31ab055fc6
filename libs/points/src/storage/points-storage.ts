import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { CatalogState, CollectionCatalog, CollectionRecord, isShardOf, PEER_ID } from '@vectorstore/collections';
import { insufficientStorageOf } from '@vectorstore/common';
import { durableFs } from '@vectorstore/persistence';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { CollectionStorage } from './collection-storage';
import { discardShardFolder } from './collection-storage/shard-replacement';
import { OpenShardLog } from './shard-log';

export const POINTS_DATA_DIR = Symbol('POINTS_DATA_DIR');
/** How often a collection that failed to load for want of disk space is tried again. */
const FULL_DISK_RETRY_MS = 2000;
export const OPEN_SHARD_LOG = Symbol('OPEN_SHARD_LOG');

/**
 * Owns the stored points of every collection. It follows the catalog: a new collection (or shard)
 * gets storage, a deleted one has its data removed; data with no catalog entry (a crash between the
 * two) is removed at start. It also flushes each collection on its `flush_interval_sec`.
 */
@Injectable()
export class PointsStorage implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(PointsStorage.name);
  private readonly storages = new Map<string, CollectionStorage>();
  private readonly lastFlush = new Map<string, number>();
  private flushTimer: NodeJS.Timeout | undefined;
  private closing = false;
  private retrying = false;
  private nextRetryAt = 0;

  constructor(
    private readonly catalog: CollectionCatalog,
    @Inject(POINTS_DATA_DIR) private readonly dataDir: string,
    @Inject(OPEN_SHARD_LOG) private readonly openLog: OpenShardLog,
    @Inject(PEER_ID) private readonly peerId: string,
  ) {}

  private get collectionsDir(): string {
    return path.join(this.dataDir, 'collections');
  }

  /** Where each collection's folder (named by its id) lives. */
  get collectionsDirectory(): string {
    return this.collectionsDir;
  }

  async onModuleInit(): Promise<void> {
    await durableFs.mkdir(this.collectionsDir, { recursive: true, mode: 0o700 });
    await this.catalog.subscribe((state) => this.reconcile(state));
    this.flushTimer = setInterval(() => {
      void this.flushDue();
      if (Date.now() >= this.nextRetryAt) {
        this.nextRetryAt = Date.now() + FULL_DISK_RETRY_MS;
        void this.loadAgainAfterFullDisk();
      }
    }, 1000);
    this.flushTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    if (this.flushTimer) clearInterval(this.flushTimer);
    for (const storage of this.storages.values()) {
      await storage
        .close()
        .catch((error: unknown) => this.logger.error({ err: error }, `closing ${storage.record.name} failed`));
    }
    this.storages.clear();
  }

  /** Every open collection storage. */
  openStorages(): CollectionStorage[] {
    return [...this.storages.values()];
  }

  /** The storage of a collection record (opened by the last reconcile). */
  storageOf(record: CollectionRecord): CollectionStorage {
    const storage = this.storages.get(record.id);
    if (!storage) throw new Error(`storage of collection ${record.name} is not open`);
    return storage;
  }

  /** The storage of a collection record, or undefined while the catalog names it and no reconcile has opened it. */
  findStorage(record: CollectionRecord): CollectionStorage | undefined {
    return this.storages.get(record.id);
  }

  private async reconcile(state: Readonly<CatalogState>): Promise<void> {
    if (this.closing) return;
    // This peer stores only the shards placed on it (every shard, standalone).
    const wanted = new Map(
      [...state.collections.values()].map((record) => [
        record.id,
        { ...record, shards: record.shards.filter((shard) => isShardOf(shard, this.peerId)) },
      ]),
    );
    for (const [id, storage] of this.storages) {
      if (!wanted.has(id)) {
        // The collection is gone from the catalog: its data goes even if closing it fails.
        this.storages.delete(id);
        await storage
          .close()
          .catch((error: unknown) => this.logger.error({ err: error }, `closing ${storage.record.name} failed`));
        await durableFs.rm(storage.dir, { recursive: true, force: true });
      }
    }
    for (const record of wanted.values()) {
      let storage = this.storages.get(record.id);
      if (!storage) {
        storage = new CollectionStorage(record, path.join(this.collectionsDir, record.id), this.openLog);
        this.storages.set(record.id, storage);
      }
      try {
        const dropped = await storage.reconcile(record, state.collections.get(record.name)?.shards);
        for (const handle of dropped) await discardShardFolder(storage.shardDir(handle.shardId));
        storage.markLoaded();
      } catch (error) {
        // One collection that cannot load must not keep the server (and every other collection) down.
        storage.markFailed(error instanceof Error ? error : new Error(String(error)));
        this.logger.error({ err: error }, `collection ${record.name} could not be loaded`);
      }
    }
    // Folders of collections the catalog no longer has (deleted just before a crash).
    const folders = await fs.readdir(this.collectionsDir).catch(() => [] as string[]);
    for (const folder of folders) {
      if (!wanted.has(folder))
        await durableFs.rm(path.join(this.collectionsDir, folder), { recursive: true, force: true });
    }
  }

  /**
   * Collections that failed to load because the disk was full (at start, at a create, in a failed restore) are
   * loaded again every few seconds (from the flush timer), so that they serve once space is freed, without a
   * restart. Other failures (damaged files) wait for an operator: opening them again would only read the same damage.
   */
  async loadAgainAfterFullDisk(): Promise<void> {
    if (this.retrying || this.closing) return;
    this.retrying = true;
    try {
      for (const storage of [...this.storages.values()]) {
        if (!storage.failure || insufficientStorageOf(storage.failure) === undefined) continue;
        const known = this.catalog.snapshot.collections.get(storage.record.name)?.shards;
        try {
          await storage.retryLoad(known ?? storage.record.shards);
          if (this.storages.get(storage.record.id) !== storage) {
            // Deleted while it opened: what the retry opened (and any folder it made again) goes too.
            await storage.close().catch(() => undefined);
            await durableFs.rm(storage.dir, { recursive: true, force: true });
            continue;
          }
          this.logger.log(`collection ${storage.record.name} loaded again: disk space is back`);
        } catch (error) {
          storage.markFailed(error instanceof Error ? error : new Error(String(error)));
        }
      }
    } finally {
      this.retrying = false;
    }
  }

  private async flushDue(): Promise<void> {
    const now = Date.now();
    for (const [id, storage] of this.storages) {
      const interval = (storage.record.config.optimizerConfig.flushIntervalSec ?? 5) * 1000;
      if (now - (this.lastFlush.get(id) ?? 0) < interval) continue;
      this.lastFlush.set(id, now);
      await storage
        .flush()
        .catch((error: unknown) => this.logger.error({ err: error }, `flushing ${storage.record.name} failed`));
    }
  }
}
