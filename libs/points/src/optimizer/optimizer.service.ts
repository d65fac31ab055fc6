import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { CollectionConfig } from '@vectorstore/collections';
import { DamagedFileError } from '@vectorstore/common';
import { randomUUID } from 'node:crypto';
import { LocalShard } from '../storage/local-shard';
import { PointsStorage } from '../storage/points-storage';
import { Segment } from '../storage/segment';
import { collectColumns, denseDimsOf } from '../storage/segment-columns';
import {
  OptimizationKind,
  OptimizationPlan,
  maxConcurrentJobs,
  planOptimizations,
  storageOptionsOf,
} from './optimization-planner';
import { runSegmentBuild } from './segment-build-runner';
import { readVerified } from './source-verification';

const SCAN_INTERVAL_MS = 200;

/**
 * Reopens a shard in which a job found a damaged file, as a start would (CollectionStorage.reopenDamagedShard:
 * rebuilt from its log, set aside in a cluster, or its collection refused); says what became of it.
 */
type ReopenDamaged = () => Promise<string>;

/**
 * Background optimization: merges the smallest segments down to `default_segment_number`, indexes
 * appendable segments that crossed `indexing_threshold`, vacuums segments with too many deletes and
 * rebuilds those built with another config, started in that order (Qdrant's) as far as the job limit
 * allows: merges first, so that under sustained writes indexing cannot take every free slot while
 * segments pile up. A job copies the live points of its source segments, builds the new segment on a
 * worker thread, then swaps it in, dropping points that were deleted or moved meanwhile. Searches keep
 * using the sources until the swap. The files the sources were read from are checked against their checksums
 * first (source-verification.ts): a damaged one fails the job and has its shard reopened, as the scrub does.
 */
@Injectable()
export class OptimizerService implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(OptimizerService.name);
  private readonly busy = new WeakMap<LocalShard, Set<Segment>>();
  /** After a failed job a shard waits before the next try, doubling up to 5 minutes. */
  private readonly backoff = new WeakMap<LocalShard, { until: number; delayMs: number }>();
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly storage: PointsStorage) {}

  onModuleInit(): void {
    this.timer = setInterval(() => this.scan(), SCAN_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.allSettled([...this.running]);
  }

  /** Segments being rebuilt in a shard. */
  busySegments(shard: LocalShard): ReadonlySet<Segment> {
    return this.busy.get(shard) ?? new Set();
  }

  /** Looks at every shard and starts the jobs it needs and may run. */
  scan(): void {
    if (this.stopped) return;
    for (const storage of this.storage.openStorages()) {
      for (const [shardId, handle] of storage.shards) {
        const shard = handle.shard;
        // Only the shard the job ran on: a restore may have put another in its place meanwhile.
        const reopen = async () => (handle.shard === shard ? storage.reopenDamagedShard(shardId) : 'not open');
        this.scanShard(shard, storage.record.config, reopen);
      }
    }
  }

  private scanShard(shard: LocalShard, collection: CollectionConfig, reopen: ReopenDamaged): void {
    const config = collection.optimizerConfig;
    if (shard.isClosed || shard.failure || !shard.optimization.triggered) return;
    if ((this.backoff.get(shard)?.until ?? 0) > Date.now()) return;
    const limit = maxConcurrentJobs(config);
    if (limit <= 0) return;
    const busy = this.busy.get(shard) ?? new Set<Segment>();
    this.busy.set(shard, busy);
    for (const plan of planOptimizations(shard, collection, busy)) {
      if (shard.optimization.running >= limit) break;
      if (plan.sources.some((s) => busy.has(s))) continue;
      this.start(shard, plan, busy, collection, reopen);
    }
  }

  private start(
    shard: LocalShard,
    plan: OptimizationPlan,
    busy: Set<Segment>,
    collection: CollectionConfig,
    reopen: ReopenDamaged,
  ): void {
    for (const source of plan.sources) busy.add(source);
    const points = plan.sources.reduce((sum, source) => sum + source.pointCount, 0);
    const started = process.hrtime.bigint();
    const id = randomUUID();
    shard.optimization.jobStarted({
      uuid: id,
      optimizer: optimizerName(plan.kind),
      segments: plan.sources.map((source) => ({ uuid: source.id, pointsCount: source.pointCount })),
    });
    const job = this.run(shard, plan, collection, id)
      .then(() => {
        shard.optimization.jobSucceeded(points, id);
        this.backoff.delete(shard);
      })
      .catch(async (error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        // The shard was closed under the build (collection deleted or restored): nothing failed.
        if (shard.isClosed) {
          this.logger.debug({ kind: plan.kind, reason: message }, 'optimization abandoned: the shard closed');
          return;
        }
        shard.optimization.jobFailed(`${plan.kind} optimization failed: ${message}`, id);
        const delayMs = Math.min(300_000, (this.backoff.get(shard)?.delayMs ?? 2_500) * 2);
        this.backoff.set(shard, { until: Date.now() + delayMs, delayMs });
        this.logger.error({ err: error, retryInMs: delayMs }, shard.optimization.error);
        if (error instanceof DamagedFileError) await this.reopenDamaged(reopen, error);
      })
      .finally(() => {
        shard.optimization.jobEnded(Number(process.hrtime.bigint() - started) / 1e3, id);
        for (const source of plan.sources) busy.delete(source);
        this.running.delete(job);
      });
    this.running.add(job);
  }

  private async run(
    shard: LocalShard,
    plan: OptimizationPlan,
    collection: CollectionConfig,
    id: string,
  ): Promise<void> {
    shard.reserveBuild(id);
    let swappedIn = false;
    try {
      swappedIn = await this.build(shard, plan, collection, id);
    } finally {
      await shard.releaseBuild(id, swappedIn);
    }
  }

  /** Nothing more is served from a damaged file: its shard is opened again, as the scrub would. */
  private async reopenDamaged(reopen: ReopenDamaged, damage: DamagedFileError): Promise<void> {
    try {
      const outcome = await reopen();
      this.logger.error(`optimizer: ${damage.message}; the shard was opened again as a start would: ${outcome}`);
    } catch (error) {
      this.logger.error({ err: error }, `optimizer: reopening the shard after ${damage.message} failed`);
    }
  }

  /** Builds the replacement segment and swaps it in; false when nothing was swapped in. */
  private async build(
    shard: LocalShard,
    plan: OptimizationPlan,
    collection: CollectionConfig,
    id: string,
  ): Promise<boolean> {
    // Writes must not land in a segment being rebuilt: give them a fresh one.
    if (plan.sources.includes(shard.active)) shard.rollActiveSegment();
    const { value: columns, check } = await readVerified(shard, plan.sources, () =>
      collectColumns(plan.sources, denseDimsOf(shard.spaces)),
    );
    const fieldIndexes = [...shard.fieldIndexes].map(([field, schema]) => ({ field, ...schema }));
    const storage = storageOptionsOf(collection);
    const bytes = await runSegmentBuild({
      id,
      spaces: [...shard.spaces],
      columns,
      fieldIndexes,
      dir: shard.segmentsDir,
      storage,
    });
    if (this.stopped || shard.isClosed) return false;
    const built = Segment.load(bytes, shard.spaces, shard.segmentsDir);
    // Points deleted or moved (changed) while building are gone from their sources: drop them here too.
    for (let slot = 0; slot < built.size; slot++) {
      const id = built.pointId(slot);
      if (!plan.sources.some((source) => source.slotOf(id) !== undefined)) built.delete(shard.lastApplied, slot);
    }
    // Payload indexes created, changed or dropped while building.
    for (const [field, schema] of shard.fieldIndexes) {
      const used = fieldIndexes.find((f) => f.field === field);
      if (!used || used.type !== schema.type || JSON.stringify(used.params) !== JSON.stringify(schema.params)) {
        built.createFieldIndex(field, schema.type, schema.params);
      }
    }
    for (const { field } of fieldIndexes) if (!shard.fieldIndexes.has(field)) built.deleteFieldIndex(field);
    const keep = built.pointCount > 0;
    try {
      await shard.swapSegments(plan.sources, keep ? built : undefined);
    } finally {
      // not swapped in (empty, or the shard closed meanwhile): nothing else will release its files
      if (!shard.segments.includes(built)) built.dispose();
    }
    this.logger.log(
      { kind: plan.kind, points: built.pointCount, sources: plan.sources.length, verified: check },
      'optimization finished',
    );
    return built.pointCount > 0;
  }
}

/** Qdrant's name for the optimizer that makes a kind of plan. */
export function optimizerName(kind: OptimizationKind): string {
  return kind === 'config' ? 'config mismatch' : kind;
}
