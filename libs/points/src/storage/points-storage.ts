import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import {
  CatalogState,
  CollectionCatalog,
  CollectionRecord,
  CollectionRuntimeStats,
  CollectionStatsProvider,
  CollectionStatsRegistry,
  CollectionStatus,
  OptimizersConfig,
  PayloadSchemaInfo,
} from '@vectorstore/collections';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { CollectionStorage } from './collection-storage';
import { LocalShard } from './local-shard';
import { OpenShardLog } from './shard-log';

export const POINTS_DATA_DIR = Symbol('POINTS_DATA_DIR');
export const OPEN_SHARD_LOG = Symbol('OPEN_SHARD_LOG');

/**
 * Owns the stored points of every collection. It follows the catalog: a new collection (or shard)
 * gets storage, a deleted one has its data removed; data with no catalog entry (a crash between the
 * two) is removed at start. It also flushes each collection on its `flush_interval_sec`.
 */
@Injectable()
export class PointsStorage implements OnModuleInit, OnApplicationShutdown, CollectionStatsProvider {
  private readonly logger = new Logger(PointsStorage.name);
  private readonly storages = new Map<string, CollectionStorage>();
  private readonly lastFlush = new Map<string, number>();
  private flushTimer: NodeJS.Timeout | undefined;
  private closing = false;

  constructor(
    private readonly catalog: CollectionCatalog,
    private readonly statsRegistry: CollectionStatsRegistry,
    @Inject(POINTS_DATA_DIR) private readonly dataDir: string,
    @Inject(OPEN_SHARD_LOG) private readonly openLog: OpenShardLog,
  ) {}

  private get collectionsDir(): string {
    return path.join(this.dataDir, 'collections');
  }

  async onModuleInit(): Promise<void> {
    await fs.mkdir(this.collectionsDir, { recursive: true });
    await this.catalog.subscribe((state) => this.reconcile(state));
    this.statsRegistry.register(this);
    this.flushTimer = setInterval(() => void this.flushDue(), 1000);
    this.flushTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    if (this.flushTimer) clearInterval(this.flushTimer);
    for (const storage of this.storages.values()) {
      await storage.close().catch((error: unknown) => this.logger.error({ err: error }, `closing ${storage.record.name} failed`));
    }
    this.storages.clear();
  }

  /** Every open collection storage. */
  openStorages(): CollectionStorage[] {
    return [...this.storages.values()];
  }

  /** Set by the optimizer so status can tell running and pending work apart. */
  pendingWork: ((shard: LocalShard, config: OptimizersConfig) => boolean) | undefined;

  /** The storage of a collection record (opened by the last reconcile). */
  storageOf(record: CollectionRecord): CollectionStorage {
    const storage = this.storages.get(record.id);
    if (!storage) throw new Error(`storage of collection ${record.name} is not open`);
    return storage;
  }

  private async reconcile(state: Readonly<CatalogState>): Promise<void> {
    if (this.closing) return;
    const wanted = new Map([...state.collections.values()].map((record) => [record.id, record]));
    for (const [id, storage] of this.storages) {
      if (!wanted.has(id)) {
        await storage.close();
        this.storages.delete(id);
        await fs.rm(storage.dir, { recursive: true, force: true });
      }
    }
    for (const record of wanted.values()) {
      let storage = this.storages.get(record.id);
      if (!storage) {
        storage = new CollectionStorage(record, path.join(this.collectionsDir, record.id), this.openLog);
        this.storages.set(record.id, storage);
      }
      const dropped = await storage.reconcile(record);
      for (const handle of dropped) await fs.rm(storage.shardDir(handle.shardId), { recursive: true, force: true });
    }
    // Folders of collections the catalog no longer has (deleted just before a crash).
    const folders = await fs.readdir(this.collectionsDir).catch(() => [] as string[]);
    for (const folder of folders) {
      if (!wanted.has(folder)) await fs.rm(path.join(this.collectionsDir, folder), { recursive: true, force: true });
    }
  }

  private async flushDue(): Promise<void> {
    const now = Date.now();
    for (const [id, storage] of this.storages) {
      const interval = (storage.record.config.optimizerConfig.flushIntervalSec ?? 5) * 1000;
      if (now - (this.lastFlush.get(id) ?? 0) < interval) continue;
      this.lastFlush.set(id, now);
      await storage.flush().catch((error: unknown) => this.logger.error({ err: error }, `flushing ${storage.record.name} failed`));
    }
  }

  statsFor(record: CollectionRecord): CollectionRuntimeStats {
    const storage = this.storages.get(record.id);
    const stats: CollectionRuntimeStats = {
      status: 'Green',
      optimizerStatus: { ok: true, error: '' },
      segmentsCount: 0,
      pointsCount: 0,
      indexedVectorsCount: 0,
      payloadSchema: {},
      warnings: [],
      updateQueueLength: 0,
      shardPoints: {},
    };
    if (!storage) return stats;
    const schema: Record<string, PayloadSchemaInfo> = {};
    for (const handle of storage.shards.values()) {
      const shard = handle.shard;
      stats.segmentsCount += shard.segments.length;
      stats.pointsCount += shard.pointCount;
      stats.indexedVectorsCount += shard.indexedVectorCount;
      stats.shardPoints[handle.shardId] = shard.pointCount;
      stats.status = worse(stats.status, this.shardStatus(shard, storage.record.config.optimizerConfig));
      const error = shard.failure?.message ?? shard.optimization.error;
      if (error) stats.optimizerStatus = { ok: false, error };
      for (const [field, index] of shard.fieldIndexes) {
        let points = 0;
        for (const segment of shard.segments) points += segment.payloadIndexes.get(field)?.pointsCount() ?? 0;
        const entry = (schema[field] ??= { dataType: index.type, params: index.params, points: 0 });
        entry.points = (entry.points ?? 0) + points;
      }
    }
    stats.payloadSchema = schema;
    return stats;
  }

  /** Red on failure; Yellow while optimizing (or pending after a write); Grey when pending since start. */
  private shardStatus(shard: LocalShard, config: OptimizersConfig): CollectionStatus {
    if (shard.failure || shard.optimization.error) return 'Red';
    if (shard.optimization.running > 0) return 'Yellow';
    if (this.pendingWork?.(shard, config)) return shard.optimization.triggered ? 'Yellow' : 'Grey';
    return 'Green';
  }
}

const SEVERITY: Record<CollectionStatus, number> = { Green: 0, Yellow: 1, Grey: 2, Red: 3 };

/** The worse of two statuses, in Qdrant's order Green < Yellow < Grey < Red. */
function worse(a: CollectionStatus, b: CollectionStatus): CollectionStatus {
  return SEVERITY[a] >= SEVERITY[b] ? a : b;
}
