import { Logger } from '@nestjs/common';
import * as path from 'node:path';
import { Filter } from '../../model/filter.model';
import { UpdateOperation } from '../../model/operations.model';
import { PointId } from '../../model/point-id.model';
import { SearchParams } from '../../model/query.model';
import { PointsSelector } from '../../model/selectors.model';
import { Vector } from '../../model/vectors.model';
import { FileChecksum, verifyFile } from '../file-checksum';
import { Segment } from '../segment';
import { OpenShardLog, ShardLog, ShardLogOptions } from '../shard-log';
import { VectorSpace } from '../vector-space';
import { SparseSegmentVectors } from '../vectors/sparse-vectors';
import { BuildReservations } from './build-reservations';
import { FieldIndexSchema } from './field-index-schema';
import { DamagedFileError, DomainError } from '@vectorstore/common';
import { applyOperation } from './operation-dispatch';
import { OptimizationStatus } from './optimization-status';
import { FlushSource, OpenedShard, ShardManifest } from './shard-manifest';
import { findPoint, indexedVectorCount, livePointCount, PointRef, selectPoints } from './shard-points';
import { searchSegments, searchSegmentsAsync, SettledHits, ShardHit } from './shard-search';
import { SIDE_FILE_EXTENSIONS } from './segment-files';
import { ShardSegments } from './shard-segments';
import { AppliedListener, ShardWal } from './shard-wal';
import { ClockTag, COPY_ORIGIN, deltaPlan, RecoveryPoint, walDelta } from './shard-clocks';
import { exportPoints, livePointIds, ShardChecksum, shardChecksum } from './shard-export';
import { PointStruct } from '../../model/point.model';

export interface LocalShardOptions {
  dir: string;
  spaces: Map<string, VectorSpace>;
  log: Omit<ShardLogOptions, 'dir'>;
  openLog: OpenShardLog;
  /**
   * `prevent_unoptimized`: the slot from which an appendable segment defers its points (hides them from
   * reads until optimized), read when such a segment is created or loaded; undefined defers nothing.
   */
  deferredPointsFrom?: () => number | undefined;
}

/**
 * One shard on this node: a write-ahead log (shard-wal) in front of segments (shard-segments),
 * persisted under a manifest (shard-manifest). A write is logged and fsynced, then applied in
 * op-number order (operation-dispatch); a flush persists segments and lets the log drop what they
 * hold; opening replays the log past the last flush, so an acknowledged write survives any crash.
 */
export class LocalShard {
  private readonly fieldIndexSchemas: Map<string, FieldIndexSchema>;
  private readonly segmentSet: ShardSegments;
  private readonly wal: ShardWal;
  private readonly builds: BuildReservations;
  private readonly flushSource: FlushSource;
  private currentSpaces: Map<string, VectorSpace>;
  private readonly deferredPointsFrom: () => number | undefined;
  private closed = false;
  /** Set when close() starts; closed is set once it finished. */
  private closing = false;
  /** What the optimizer is doing here; read for the collection status. */
  readonly optimization = new OptimizationStatus();

  private constructor(
    options: LocalShardOptions,
    private readonly manifest: ShardManifest,
    loaded: { segments: Segment[]; fieldIndexes: Map<string, FieldIndexSchema>; clocks: RecoveryPoint },
    log: ShardLog,
  ) {
    this.currentSpaces = options.spaces;
    this.deferredPointsFrom = options.deferredPointsFrom ?? (() => undefined);
    this.fieldIndexSchemas = loaded.fieldIndexes;
    this.segmentSet = new ShardSegments(loaded.segments, () => this.newAppendableSegment());
    this.applyDeferral();
    this.builds = new BuildReservations(manifest.segmentsDir);
    const target = { segments: this.segmentSet, fieldIndexes: this.fieldIndexSchemas };
    this.wal = new ShardWal(
      log,
      (opNum, operation) => applyOperation(target, opNum, operation),
      manifest.persistedOpNum,
      loaded.clocks,
    );
    this.flushSource = {
      lastApplied: () => this.wal.lastApplied,
      segments: () => this.segmentSet.all,
      fieldIndexes: () => this.fieldIndexSchemas,
      buildsInProgress: () => this.builds.ids(),
      ackLog: (opNum) => this.wal.ack(opNum),
      clocks: () => this.wal.clocks.snapshot(),
      clocksVersion: () => this.wal.clocks.version,
    };
  }

  static async open(options: LocalShardOptions): Promise<LocalShard> {
    const opened = await ShardManifest.open(options.dir, options.spaces).catch(damageOrThrow);
    const log = await options.openLog({ ...options.log, dir: path.join(options.dir, 'wal') });
    // A damaged segment file or manifest: rebuilt from the log when it still holds every operation (shard-manifest).
    const damage = opened instanceof DamagedFileError ? opened : undefined;
    const { manifest, ...loaded } = damage ? await openForRebuild(options.dir, damage, log) : (opened as OpenedShard);
    const shard = new LocalShard(options, manifest, loaded, log);
    try {
      await shard.wal.replay();
    } catch (error) {
      // Replay closed the log; the segments' files go too (the collection may try to open the shard again).
      for (const segment of shard.segmentSet.all) segment.dispose();
      throw damage ? rebuildFailed(damage, error) : error;
    }
    if (damage) await shard.settleRebuild(damage);
    return shard;
  }

  get spaces(): Map<string, VectorSpace> {
    return this.currentSpaces;
  }

  /** Segments, the active appendable one first. */
  get segments(): readonly Segment[] {
    return this.segmentSet.all;
  }

  /** The appendable segment writes go to. */
  get active(): Segment {
    return this.segmentSet.active;
  }

  /** The payload indexes every segment keeps, by field. */
  get fieldIndexes(): ReadonlyMap<string, FieldIndexSchema> {
    return this.fieldIndexSchemas;
  }

  /** The op number every operation up to has been applied. */
  get lastApplied(): number {
    return this.wal.lastApplied;
  }

  /** Set when an operation failed to apply: the shard reports Red and refuses writes. */
  get failure(): Error | undefined {
    return this.wal.failure;
  }

  /** See {@link ShardWal.observeApplied}: each operation a write applies, in order, in the tick it is applied. */
  observeApplied(listener: AppliedListener): () => void {
    return this.wal.observeApplied(listener);
  }

  /** Whether anything (a transfer forwarding this replica's writes) observes the writes it applies. */
  get observed(): boolean {
    return this.wal.observed;
  }

  /**
   * Writes every segment's body (and so its deletes) again from memory, then flushes: a body or delete file damaged
   * on disk is replaced by the copy verified when the shard opened, which searches were served from all along.
   * Vector and payload files a segment reads from disk (`.vec`, `.pay`) are not rewritten: a body lists them by the
   * checksums they were written with.
   */
  async rewriteFromMemory(): Promise<void> {
    // A segment written before bodies listed their side files would lose their checksums: left to the reopen.
    const rewritable = this.segmentSet.all.filter(
      (segment) => segment.sideFiles.length > 0 || this.diskFilesOf(segment).length === 0,
    );
    this.manifest.rewriteAfterRunningFlush(rewritable.map((segment) => segment.id));
    await this.flush();
  }

  /** Ids of the live points (matching `filter`), deferred ones included: what a copy of the shard must hold. */
  livePointIds(filter?: Filter): PointId[] {
    return livePointIds(this.segments, filter);
  }

  /** The points of `ids` whole, as they are now (see shard-export.ts). Synchronous: no write comes in between. */
  exportPoints(ids: readonly PointId[], filter?: Filter): PointStruct[] {
    return exportPoints(this.segments, ids, filter);
  }

  /** Live points and an order-free digest of them, to compare replicas. */
  checksum(): ShardChecksum {
    return shardChecksum(this.segments);
  }

  /** True from the moment close() starts. */
  get isClosed(): boolean {
    return this.closing;
  }

  /** Where segment files live; the optimizer writes a new segment's vector and payload files here. */
  get segmentsDir(): string {
    return this.manifest.segmentsDir;
  }

  /**
   * The files `segment` reads vectors or payloads from while it serves (`<id>.vec`, `<id>.pay`: only immutable
   * segments kept on disk have them), each with the checksum the shard's manifest records for it (or, for a segment
   * the manifest does not list yet, the one its body took when it was built). Opening checked them; a reader that
   * copies from them (the optimizer) checks them again, as they may have changed on disk since.
   */
  diskFilesOf(segment: Segment): Array<{ path: string; checksum: FileChecksum }> {
    const recorded = this.manifest.recordedFiles(segment.id) ?? segment.sideFiles;
    const names = new Set(SIDE_FILE_EXTENSIONS.map((ext) => `${segment.id}${ext}`));
    return recorded
      .filter((checksum) => names.has(checksum.file))
      .map((checksum) => ({ path: path.join(this.segmentsDir, checksum.file), checksum }));
  }

  /**
   * Checks every file `segments` (default: all) read from disk (`.vec`, `.pay`) against the checksum recorded for it; throws
   * DamagedFileError naming the first that differs. What reads points out of the shard to copy them elsewhere (a
   * transfer's records) calls it after reading, so bytes changed on disk are never copied under a fresh checksum.
   */
  async verifyDiskFiles(segments: readonly Segment[] = this.segmentSet.all): Promise<{ files: number; bytes: number }> {
    const checked = { files: 0, bytes: 0 };
    for (const segment of segments)
      for (const file of this.diskFilesOf(segment)) {
        await verifyFile(file.path, file.checksum);
        checked.files++;
        checked.bytes += file.checksum.bytes;
      }
    return checked;
  }

  /**
   * Takes a changed collection config (HNSW, quantization): new and rebuilt segments use it;
   * existing segments keep what they were built with until the optimizer rebuilds them.
   *
   * Vector names in `dropped` (deleted from the collection) lose their store in every segment at
   * once, and those segments are written again, without it, by the next flush, so no file the
   * manifest lists keeps the old vectors. A name the active segment has no store for (one just
   * added) gets one by moving the active segment's live points into a new active segment with every
   * current space; other segments answer for it as having no such vectors until rebuilt.
   */
  updateSpaces(spaces: Map<string, VectorSpace>, dropped: readonly string[] = []): void {
    this.currentSpaces = spaces;
    // A sparse vector's modifier and a dense space's full_scan_threshold apply at search time, as in Qdrant:
    // existing segments follow a changed one.
    for (const [name, space] of spaces) {
      for (const segment of this.segmentSet.all) {
        const store = segment.vectorStore(name);
        if (space.kind === 'sparse') {
          if (store instanceof SparseSegmentVectors) store.useModifier(space.idf);
        } else store?.useFullScanThreshold?.(space.hnsw.fullScanThreshold);
      }
    }
    // A changed prevent_unoptimized, threshold or vector size moves the deferral cutoff, as a restart would.
    this.applyDeferral();
    const rewrite = this.segmentSet.all.filter((segment) =>
      dropped.map((name) => segment.dropVectorStore(name)).some(Boolean),
    );
    if (rewrite.length > 0) this.manifest.rewriteAfterRunningFlush(rewrite.map((segment) => segment.id));
    if ([...spaces.keys()].every((name) => this.active.vectorStore(name) !== undefined)) return;
    const previous = this.segmentSet.renewActive();
    this.manifest.forget(previous.id);
    previous.dispose();
  }

  /**
   * Logs the operation durably, applies it, and returns its op number. `tag` (cluster mode): the routed write's
   * clock tag; a write whose tag the shard holds already is not applied again.
   */
  async update(operation: UpdateOperation, tag?: ClockTag): Promise<number> {
    if (this.closed) throw new Error('shard is closed');
    if (this.failure) throw this.failure;
    this.optimization.trigger();
    return this.wal.write(operation, tag);
  }

  /** The routed writes this replica holds, by origin: its recovery point. */
  recoveryPoint(): RecoveryPoint {
    return this.wal.clocks.snapshot();
  }

  /**
   * This replica is being filled by a copy (a transfer's reset): until {@link finishCopy} its points may be newer
   * than its recovery point says, which it records (durably at the next flush) so that no WAL delta is replayed
   * over them.
   */
  beginCopy(): void {
    this.wal.clocks.merge({ [COPY_ORIGIN]: { upTo: 1, above: [] } });
  }

  /** The copy is whole: the replica holds the copy source's writes up to `point` (its recovery point then). */
  finishCopy(point: RecoveryPoint): void {
    this.wal.clocks.forget(COPY_ORIGIN);
    this.wal.clocks.merge(point);
  }

  /** Takes in `point`: per origin, the union of what this replica holds and what `point` holds. */
  mergeRecoveryPoint(point: RecoveryPoint): void {
    this.wal.clocks.merge(point);
  }

  /**
   * The writes a replica at recovery point `target` lacks, from this shard's log, in log order; or why a delta
   * cannot bring it up to date (see shard-clocks.ts `walDelta`).
   */
  async walDelta(
    target: RecoveryPoint,
  ): Promise<{ send: Array<{ operation: UpdateOperation; tag: ClockTag }> } | { refused: string }> {
    // Refused from the recovery points alone before the log is read (it may be large).
    const plan = deltaPlan(this.wal.clocks.snapshot(), target);
    if ('refused' in plan) return plan;
    const { point, records } = await this.wal.retained();
    return walDelta(
      point,
      target,
      records.map((record) => ({ tag: record.tag, item: { operation: record.item.operation, tag: record.tag! } })),
    );
  }

  // ---- reads ----

  /** Where a live point is, if anywhere, deferred or not (whether a write has a point to act on). */
  find(id: PointId): PointRef | undefined {
    return findPoint(this.segmentSet.all, id);
  }

  /** Where a live point that reads may see is (not deferred by `prevent_unoptimized`). */
  findVisible(id: PointId): PointRef | undefined {
    return findPoint(this.segmentSet.all, id, 'visible');
  }

  /** Live points chosen by ids or a filter. */
  select(selector: PointsSelector): PointRef[] {
    return selectPoints(this.segmentSet.all, selector);
  }

  get pointCount(): number {
    return livePointCount(this.segmentSet.all);
  }

  /** Number of vectors held in indexed (graph-searched) segments. */
  get indexedVectorCount(): number {
    return indexedVectorCount(this.segmentSet.all);
  }

  /**
   * The `k` best hits for a query on vector space `name` among points passing `filter`, best
   * first. `higherIsBetter` orders scores (false for distances).
   */
  search(
    name: string,
    query: Vector,
    k: number,
    filter: Filter | undefined,
    params: SearchParams | undefined,
    higherIsBetter: boolean,
  ): ShardHit[] {
    return searchSegments(this.segmentSet.all, name, query, k, filter, params, higherIsBetter);
  }

  /**
   * `search` with graph-indexed segments searched on engine worker threads, off the event loop. Writes go on
   * meanwhile (they never wait for searches); `current()` on the result checks the hits against the shard
   * as it is then (see SettledHits).
   */
  searchAsync(
    name: string,
    query: Vector,
    k: number,
    filter: Filter | undefined,
    params: SearchParams | undefined,
    higherIsBetter: boolean,
  ): Promise<SettledHits> {
    return searchSegmentsAsync(
      this.segmentSet.all,
      () => {
        // Closed meanwhile (its collection dropped, the server stopping): its segments are gone.
        if (this.closing) throw DomainError.unavailable('Service unavailable: the shard closed while the search ran');
        return this.segmentSet.all;
      },
      name,
      query,
      k,
      filter,
      params,
      higherIsBetter,
    );
  }

  // ---- persistence ----

  /** Persists the segments changed since the last flush under a new manifest (see {@link ShardManifest.flush}). */
  flush(): Promise<void> {
    return this.manifest.flush(this.flushSource);
  }

  /**
   * A point-in-time copy of the shard's files in `intoDir` (manifest.json and segments/), for a
   * snapshot. It first waits until every operation the log had handed out when it was called is
   * applied (an acknowledged write may wait for an earlier one to be applied), then flushes and links
   * the files under the flush lock. Writes are never blocked; the copy holds at least every write
   * acknowledged before the call, and no partly applied operation (ops apply synchronously).
   */
  async checkpoint(intoDir: string, maxWaitMs = 60_000): Promise<void> {
    if (this.closing) throw new Error('shard is closed');
    const target = this.wal.lastLogged;
    const deadline = Date.now() + maxWaitMs;
    while (this.wal.lastApplied < target) {
      if (this.failure) throw this.failure;
      if (Date.now() > deadline) throw new Error(`op ${target} was not applied within ${maxWaitMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await this.manifest.checkpoint(this.flushSource, intoDir);
  }

  async close(): Promise<void> {
    if (this.closing) return;
    // From here no optimization may swap segments in: the folder may be about to go.
    this.closing = true;
    try {
      await this.flush();
    } finally {
      this.closed = true;
      await this.wal.close();
      for (const segment of this.segmentSet.all) segment.dispose();
    }
  }

  // ---- segment swaps and the builds that produce them ----

  /**
   * Replaces `sources` with `replacement` (an optimized segment) and persists the change. The
   * sources' files are closed afterwards: every read of a segment runs synchronously, so none can
   * still be using them.
   */
  async swapSegments(sources: readonly Segment[], replacement: Segment | undefined): Promise<void> {
    if (this.closing) throw new Error('shard is closed');
    this.segmentSet.replace(sources, replacement);
    for (const source of sources) {
      this.manifest.forget(source.id);
    }
    try {
      await this.flush();
    } finally {
      for (const source of sources) source.dispose();
    }
  }

  /** Seals the active segment (for the optimizer) and starts a fresh one for writes. */
  rollActiveSegment(): Segment {
    return this.segmentSet.roll();
  }

  /**
   * Keeps the files of a segment being built (its id) from being removed as unlisted until
   * {@link releaseBuild}; a build that fails removes them then.
   */
  reserveBuild(id: string): void {
    this.builds.reserve(id);
  }

  /** Ids of the segments being built now. */
  buildsInProgress(): string[] {
    return this.builds.ids();
  }

  isBuilding(id: string): boolean {
    return this.builds.has(id);
  }

  async releaseBuild(id: string, built: boolean): Promise<void> {
    await this.builds.release(id, built || this.segmentSet.all.some((s) => s.id === id));
  }

  /**
   * After the log was replayed into empty segments in place of damaged files: an operation that failed to apply
   * leaves the shard unusable (the damage is reported and nothing is flushed over the files); otherwise the rebuild
   * is logged and flushed at once, so the damaged files are replaced on disk.
   */
  private async settleRebuild(damage: DamagedFileError): Promise<void> {
    if (this.failure) {
      this.closing = this.closed = true;
      await this.wal.close();
      for (const segment of this.segmentSet.all) segment.dispose();
      throw rebuildFailed(damage, this.failure);
    }
    new Logger(LocalShard.name).warn(
      `${damage.message}; the shard was rebuilt from its write-ahead log (ops 1 to ${this.lastApplied})`,
    );
    await this.flush();
  }

  /** Puts every segment at the collection's current deferral cutoff (only appendable ones take it). */
  private applyDeferral(): void {
    const cutoff = this.deferredPointsFrom();
    for (const segment of this.segmentSet.all) segment.deferPointsFrom(cutoff);
  }

  private newAppendableSegment(): Segment {
    const segment = Segment.create(this.currentSpaces, { appendable: true, indexed: false });
    segment.deferPointsFrom(this.deferredPointsFrom());
    for (const [field, schema] of this.fieldIndexSchemas) segment.createFieldIndex(field, schema.type, schema.params);
    return segment;
  }
}

/** Damage found while opening is handed on (the shard may be rebuilt); any other failure is thrown. */
function damageOrThrow(error: unknown): DamagedFileError {
  if (error instanceof DamagedFileError) return error;
  throw error;
}

/** {@link ShardManifest.openForRebuild}, closing the log when the shard cannot be rebuilt. */
async function openForRebuild(dir: string, damage: DamagedFileError, log: ShardLog): Promise<OpenedShard> {
  try {
    return await ShardManifest.openForRebuild(dir, damage, log);
  } catch (error) {
    await log.close();
    throw error;
  }
}

function rebuildFailed(damage: DamagedFileError, error: unknown): DamagedFileError {
  const reason = error instanceof Error ? error.message : String(error);
  return damage.withAdvice(
    `replaying the write-ahead log to rebuild the shard failed (${reason}); restore the collection from a snapshot`,
  );
}
