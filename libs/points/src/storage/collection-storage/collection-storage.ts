import { Logger } from '@nestjs/common';
import { CollectionRecord } from '@vectorstore/collections';
import { DamagedFileError, ReadWriteLock, stringifyJson } from '@vectorstore/common';
import * as path from 'node:path';
import { PointId } from '../../model/point-id.model';
import { ShardKeySelector } from '../../model/selectors.model';
import { LocalShard } from '../local-shard';
import { OpenShardLog } from '../shard-log';
import { VectorSpace, vectorSpacesOf } from '../vector-space';
import { DroppedVectors, vectorsDroppedBy } from './dropped-vectors';
import { canSetAside } from './damaged-replicas';
import { ReadPacer, scrubShard } from '../scrub/shard-scrub';
import { readShards, routeWrite, ShardHandle, writeShardsForFilter } from './shard-routing';
import { deferredPointsFrom } from '../deferred-points';
import {
  discardShardFolder,
  dropReplaced,
  settleShardReplacement,
  ShardFolders,
  shardFolders,
  stageReplacement,
  swapInReplacement,
  undoReplacement,
} from './shard-replacement';

/**
 * The points of one collection on this node: one LocalShard per shard of the catalog record,
 * routing reads and writes to them (shard-routing) and keeping dropped vector names from coming
 * back (dropped-vectors).
 */
export class CollectionStorage {
  private readonly shardHandles = new Map<number, ShardHandle>();
  private currentRecord: CollectionRecord;
  /** Every shard (replica) of the collection, on any peer: shard keys are known by these. */
  private knownShards: CollectionRecord['shards'];
  private currentSpaces: Map<string, VectorSpace>;
  private loadFailure: Error | undefined;
  /**
   * Shards of this node whose files are damaged beyond a rebuild from the log, set aside (cluster mode, another
   * replica to copy from): not open, refused by name, until a transfer resets them (see damaged-replicas.ts).
   */
  private readonly damagedShards = new Map<number, DamagedFileError>();
  private reconciling: Promise<void> = Promise.resolve();
  /**
   * Writes hold the shared side from validation until applied; a change of the vector names takes
   * the exclusive side, so no write checked against the old names is applied after the change.
   */
  readonly schemaLock = new ReadWriteLock();
  private readonly droppedVectors = new DroppedVectors();
  private readonly logger = new Logger(CollectionStorage.name);

  constructor(
    record: CollectionRecord,
    readonly dir: string,
    private readonly openLog: OpenShardLog,
  ) {
    this.currentRecord = record;
    this.knownShards = record.shards;
    this.currentSpaces = vectorSpacesOf(record.config);
  }

  /** The catalog record of the last reconcile. */
  get record(): CollectionRecord {
    return this.currentRecord;
  }

  /** The vector spaces of the collection's config (without names being dropped). */
  get spaces(): Map<string, VectorSpace> {
    return this.currentSpaces;
  }

  /** The open shards, by shard id. */
  get shards(): ReadonlyMap<number, ShardHandle> {
    return this.shardHandles;
  }

  /** Set when a shard could not be opened: the collection reports Red and refuses requests. */
  get failure(): Error | undefined {
    return this.loadFailure;
  }

  /** Shards set aside as damaged (cluster mode), by shard id: each waits for a transfer to copy it again. */
  get damaged(): ReadonlyMap<number, DamagedFileError> {
    return this.damagedShards;
  }

  /** The last reconcile opened every shard (a shard a failed restore left closed keeps the failure: retryLoad). */
  markLoaded(): void {
    if ([...this.shardHandles.values()].some((handle) => handle.shard.isClosed)) return;
    this.loadFailure = undefined;
  }

  /** The last reconcile failed to open a shard. */
  markFailed(error: Error): void {
    this.loadFailure = error;
  }

  /**
   * Opens shards the record has and we don't; closes (and reports) shards it no longer has. `record`
   * lists the shards stored here; `known`, every shard of the collection (cluster mode: on any peer).
   */
  reconcile(record: CollectionRecord, known: CollectionRecord['shards'] = record.shards): Promise<ShardHandle[]> {
    // One at a time (a catalog change's and a full-disk retry's): two must never open the same shard.
    const run = this.reconciling.then(() => this.reconcileNow(record, known));
    this.reconciling = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  private async reconcileNow(record: CollectionRecord, known: CollectionRecord['shards']): Promise<ShardHandle[]> {
    this.knownShards = known;
    // A changed config may leave segments built with the old one: let the optimizer look again.
    const configChanged = stringifyJson(record.config) !== stringifyJson(this.record.config);
    this.currentRecord = record;
    const previous = this.currentSpaces;
    this.currentSpaces = vectorSpacesOf(record.config);
    // Names gone from the config, or whose vectors changed shape, lose their stored vectors.
    const droppedVectors = vectorsDroppedBy(previous, this.spaces);
    droppedVectors.forEach((name) => this.rememberDrop(name));
    const wanted = new Map(record.shards.map((s) => [s.shardId, s]));
    const dropped: ShardHandle[] = [];
    for (const [shardId, handle] of this.shards) {
      if (!wanted.has(shardId)) {
        await handle.shard.close();
        this.shardHandles.delete(shardId);
        dropped.push(handle);
      }
    }
    for (const handle of this.shards.values()) {
      handle.shard.updateSpaces(this.spaces, droppedVectors);
      if (configChanged) handle.shard.optimization.trigger();
    }
    for (const shardId of [...this.damagedShards.keys()]) {
      if (wanted.has(shardId)) continue;
      // A damaged replica dropped from this node (moved away, or the collection shrank): its files go now.
      this.damagedShards.delete(shardId);
      await discardShardFolder(this.shardDir(shardId));
    }
    for (const shard of record.shards) {
      if (this.shards.has(shard.shardId) || this.damagedShards.has(shard.shardId)) continue;
      // A restore of this shard that a crash interrupted is finished or undone first.
      const settled = await settleShardReplacement(this.shardDir(shard.shardId));
      if (settled !== undefined) this.logger.warn(settled);
      let local: LocalShard;
      try {
        local = await this.openShard(shard.shardId);
      } catch (error) {
        if (!(error instanceof DamagedFileError) || !canSetAside(shard, known)) throw error;
        this.damagedShards.set(shard.shardId, error);
        this.logger.error(
          `the replica of shard ${shard.shardId} of ${record.name} here is damaged and set aside until it is copied again from another replica: ${error.message}`,
        );
        continue;
      }
      this.shardHandles.set(shard.shardId, { shardId: shard.shardId, shardKey: shard.shardKey, shard: local });
    }
    return dropped;
  }

  private openShard(shardId: number): Promise<LocalShard> {
    const wal = this.record.config.walConfig;
    return LocalShard.open({
      dir: this.shardDir(shardId),
      spaces: this.spaces,
      openLog: this.openLog,
      deferredPointsFrom: () => deferredPointsFrom(this.record.config, this.spaces),
      log: {
        segmentCapacityBytes: (wal.walCapacityMb ?? 32) * 1024 * 1024,
        segmentsAhead: wal.walSegmentsAhead ?? 0,
        retainClosed: Math.max(1, wal.walRetainClosed ?? 1),
      },
    });
  }

  /**
   * Loads a collection that failed to load for want of disk space, as a start would, now that space may be back:
   * a shard a failed restore left closed has its folders settled (shard-replacement.ts) and is opened again; shards
   * never opened are opened by a reconcile. Throws what still fails (the collection stays refused).
   */
  async retryLoad(known: CollectionRecord['shards']): Promise<void> {
    await this.schemaLock.exclusive(async () => {
      for (const handle of this.shardHandles.values()) {
        if (!handle.shard.isClosed) continue;
        const settled = await settleShardReplacement(this.shardDir(handle.shardId));
        if (settled !== undefined) this.logger.warn(settled);
        handle.shard = await this.openShard(handle.shardId);
      }
    });
    await this.reconcile(this.record, known);
    this.markLoaded();
  }

  /**
   * Makes shard `shardId` the shard folder `replacementDir` (a restored shard snapshot, already proven to open;
   * on the file system of the collection, as it is renamed). Under the exclusive side of the schema lock, so no
   * write is half-way: the replacement is moved beside the shard, the old shard flushed and closed, its folder
   * moved aside and the replacement moved in and opened, each rename made durable before the next, so that a
   * crash at any point leaves the old shard or the new one whole (see shard-replacement.ts; start settles it).
   * If anything fails, the old folder goes back and is opened again, and the error is rethrown.
   */
  async replaceShard(shardId: number, replacementDir: string): Promise<void> {
    const folders = shardFolders(this.shardDir(shardId));
    await this.schemaLock.exclusive(async () => {
      const handle = this.shardHandles.get(shardId);
      if (handle === undefined && this.damagedShards.has(shardId)) {
        // A replica set aside as damaged: the restored copy takes its place (its damaged folder goes with the swap).
        await stageReplacement(folders, replacementDir);
        await swapInReplacement(folders);
        await this.openSetAside(shardId);
        return;
      }
      if (handle === undefined) throw new Error(`shard ${shardId} is not open`);
      // A shard left closed by a failed restore: its folders may hold the only copy aside (`0.replaced`), which a
      // new restore's staging would remove. Refused until it is loaded again (retryLoad, once space is back).
      if (handle.shard.isClosed)
        throw new Error(`shard ${shardId} is not loaded after a failed restore`, { cause: this.loadFailure });
      try {
        await stageReplacement(folders, replacementDir);
        await handle.shard.close();
        await swapInReplacement(folders);
        handle.shard = await this.openShard(shardId);
      } catch (error) {
        await this.restoreReplacedShard(handle, folders, error);
        throw error;
      }
      handle.shard.optimization.trigger();
    });
    // The restore is done: the old folder left behind goes at the next start (or the next restore of the shard).
    await dropReplaced(folders).catch((error: unknown) =>
      this.logger.warn(
        `removing the replaced folder of shard ${shardId} failed (removed at the next start): ${
          error instanceof Error ? error.message : String(error)
        }`,
      ),
    );
  }

  /**
   * A replacement failed: the old folder back in place and opened. If even that fails, the files stay as they are
   * for the next start to settle, and the collection refuses requests meanwhile (opening the shard now could open
   * an empty one in place of a folder still aside).
   */
  private async restoreReplacedShard(handle: ShardHandle, folders: ShardFolders, cause: unknown): Promise<void> {
    try {
      await undoReplacement(folders);
      if (handle.shard.isClosed) handle.shard = await this.openShard(handle.shardId);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const why = cause instanceof Error ? cause.message : String(cause);
      this.markFailed(
        new Error(`shard ${handle.shardId} could not be put back after a failed restore (${why}): ${reason}`, {
          cause: error,
        }),
      );
    }
  }

  /**
   * Empties shard `shardId`: its files go and it opens again with no points, no field indexes and a fresh log
   * (a transfer's target, about to receive the source's copy; a damaged replica set aside is opened so). Under the
   * exclusive side of the schema lock, so no write is half-way.
   */
  async resetShard(shardId: number): Promise<void> {
    await this.schemaLock.exclusive(async () => {
      const handle = this.shardHandles.get(shardId);
      if (handle === undefined) {
        if (!this.damagedShards.has(shardId)) throw new Error(`shard ${shardId} is not open`);
        await discardShardFolder(this.shardDir(shardId));
        await this.openSetAside(shardId);
        return;
      }
      await handle.shard.close();
      await discardShardFolder(this.shardDir(shardId));
      handle.shard = await this.openShard(shardId);
    });
  }

  /**
   * Opens a set-aside replica whose folder was just emptied or replaced, and serves it from now on. A catalog change
   * may have moved the replica off this peer while it opened (reconcile takes no lock): then it is closed and its
   * folder removed again, and the caller is told.
   */
  private async openSetAside(shardId: number): Promise<void> {
    const shard = await this.openShard(shardId);
    const placed = this.record.shards.find((s) => s.shardId === shardId);
    if (placed === undefined || !this.damagedShards.has(shardId)) {
      await shard.close();
      if (placed === undefined) await discardShardFolder(this.shardDir(shardId));
      throw new Error(`shard ${shardId} left this peer while it was opened again`);
    }
    this.damagedShards.delete(shardId);
    this.shardHandles.set(shardId, { shardId, shardKey: placed.shardKey, shard });
  }

  /**
   * A scrub found a file of shard `shardId` damaged on disk (its bytes no longer what its manifest recorded). First
   * the segments are written again from memory (bodies and delete files: their copy in memory was verified when the
   * shard opened, and searches are served from it), and the shard's files checked again. A file still damaged is
   * one the shard reads from disk (`.vec`, `.pay`): the shard is then closed and opened again, as a start would,
   * under the exclusive side of the schema lock: rebuilt from its log when the log still holds every operation,
   * otherwise set aside to be copied again (cluster mode, see damaged-replicas.ts) or the collection refused,
   * naming the file. A shard a transfer reads from (its writes observed) is not reopened under it (the transfer
   * would lose the writes applied after): that waits for the next pass. What happened is returned (for the log).
   */
  async reopenDamagedShard(
    shardId: number,
    { fromMemoryFirst = true }: { fromMemoryFirst?: boolean } = {},
  ): Promise<'rewritten' | 'reopened' | 'set aside' | 'refused' | 'deferred' | 'not open'> {
    const before = this.shardHandles.get(shardId);
    if (before === undefined || before.shard.isClosed) return 'not open';
    if (fromMemoryFirst) {
      try {
        await before.shard.rewriteFromMemory();
        const check = await scrubShard(this.shardDir(shardId), new ReadPacer(0), () => before.shard.isClosed);
        if (check.damage === undefined && !before.shard.isClosed) return 'rewritten';
      } catch (error) {
        // A rewrite that failed (a full disk) leaves the damage to the reopen below.
        this.logger.warn(
          `writing shard ${shardId} of ${this.record.name} again from memory failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
    return this.schemaLock.exclusive(async () => {
      const handle = this.shardHandles.get(shardId);
      if (handle === undefined || handle.shard.isClosed) return 'not open';
      if (handle.shard.observed) return 'deferred';
      await handle.shard
        .close()
        .catch((error: unknown) =>
          this.logger.warn(
            `closing damaged shard ${shardId} of ${this.record.name} failed: ${error instanceof Error ? error.message : String(error)}`,
          ),
        );
      let opened: LocalShard;
      try {
        opened = await this.openShard(shardId);
      } catch (error) {
        this.shardHandles.delete(shardId);
        const placed = this.record.shards.find((shard) => shard.shardId === shardId);
        if (error instanceof DamagedFileError && placed !== undefined && canSetAside(placed, this.knownShards)) {
          this.damagedShards.set(shardId, error);
          return 'set aside';
        }
        this.markFailed(error instanceof Error ? error : new Error(String(error)));
        return 'refused';
      }
      // A catalog change may have dropped the shard while it opened (reconcile takes no lock): nothing stays open.
      if (this.shardHandles.get(shardId) !== handle || !this.record.shards.some((s) => s.shardId === shardId)) {
        await opened.close();
        return 'not open';
      }
      handle.shard = opened;
      return 'reopened';
    });
  }

  /**
   * Deletes a vector name's data from every shard and makes that durable (segments written again
   * without it, and the log acknowledged past it) before the catalog forgets the name, so neither a
   * restart nor a later vector of the same name can bring the old vectors back. From now on writes
   * and searches naming it are refused.
   */
  async dropVector(name: string): Promise<void> {
    const spaces = new Map(this.spaces);
    spaces.delete(name);
    this.currentSpaces = spaces;
    this.rememberDrop(name);
    for (const handle of this.shards.values()) handle.shard.updateSpaces(spaces, [name]);
    await this.flush();
  }

  /**
   * Before a vector name dropped since start is created again: waits (up to `maxWaitMs`) until the
   * segment builds that were running when it was dropped have ended, and flushes, so operations that
   * still carried the old vectors are behind the log's replay point.
   */
  async settleDroppedVector(name: string, maxWaitMs = 60_000): Promise<void> {
    if (!this.droppedVectors.has(name)) return;
    await this.droppedVectors.waitForBuilds(name, maxWaitMs);
    await this.flush();
    this.droppedVectors.forget(name);
  }

  private rememberDrop(name: string): void {
    this.droppedVectors.remember(
      name,
      [...this.shards.values()].map((handle) => handle.shard),
    );
  }

  shardDir(shardId: number): string {
    return path.join(this.dir, 'shards', String(shardId));
  }

  /** Shards a read fans out to: all of them, or those of the selected shard keys. */
  readShards(selector: ShardKeySelector | undefined): ShardHandle[] {
    return readShards(this.shards, selector, this.knownShards);
  }

  /** The shard each point is written to. */
  routeWrite(ids: readonly PointId[], selector: ShardKeySelector | undefined): Map<ShardHandle, PointId[]> {
    return routeWrite(this.shards, this.record, ids, selector);
  }

  /** Every shard, for writes chosen by filter (they touch whatever shard holds a matching point). */
  writeShardsForFilter(selector: ShardKeySelector | undefined): ShardHandle[] {
    return writeShardsForFilter(this.shards, this.record, selector);
  }

  async flush(): Promise<void> {
    for (const handle of this.shards.values()) await handle.shard.flush();
  }

  /** Closes every shard, even when one fails; the first failure is rethrown after. */
  async close(): Promise<void> {
    const results = await Promise.allSettled([...this.shards.values()].map((handle) => handle.shard.close()));
    this.shardHandles.clear();
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  }
}
