import { Logger } from '@nestjs/common';
import { ClusterService, sameTransfer, ShardTransferKey, ShardTransferRecord } from '@vectorstore/collections';
import { DamagedFileError, DomainError, ErrorKind, isDomainError } from '@vectorstore/common';
import type {
  ClockTag,
  CollectionContext,
  CollectionContexts,
  CollectionSnapshots,
  Filter,
  PointId,
  UpdateOperation,
} from '@vectorstore/points';
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { deserialize } from 'node:v8';
import { epochOf, LocalReplicas } from '../local-replicas';
import { PointsPeers } from '../points-peers';
import { TransferProgress } from './transfer-progress';
import { TransferSender } from './transfer-sender';
import { TransferStep } from './transfer-steps';
import { movedPoints, withinScope } from '../resharding/resharding-scope';

/** Points per copied batch (Qdrant's stream_records sends 100). */
const RECORDS_PER_BATCH = 100;
/** Bytes the copy may run ahead of what the target has applied. */
const MAX_PENDING_BYTES = 32 * 1024 * 1024;
/** Bytes of a snapshot file per step. */
const FILE_CHUNK_BYTES = 4 * 1024 * 1024;
/** How long a run waits for its own catalog to tell whether a finish whose answer was lost went through. */
const FINISH_OUTCOME_WAIT_MS = 10_000;
/** How long a write's answer waits for the target to apply it (from just before the finish): then the target failed. */
const DELIVERY_WAIT_MS = 10_000;

export interface TransferRunDeps {
  contexts: CollectionContexts;
  replicas: LocalReplicas;
  peers: PointsPeers;
  cluster: ClusterService;
  snapshots: CollectionSnapshots;
}

/**
 * One run of a transfer, on its source peer (design §3.4): from the moment it starts listening, every write the
 * source replica applies goes to the target in apply order, with the copy in between (whole points, read in the
 * tick they are queued), so the target converges on the source whatever the writes do meanwhile.
 *
 * Finishing: once the copy is delivered, forwarded writes are acknowledged only after the target applied them, the
 * queue is drained, and the catalog makes the target Active (a move drops the source) at a new replica epoch F.
 * Writes routed before F keep being forwarded, each acknowledged only once the target has it, until all of them
 * are applied here; writes routed at F or later reach the target directly. So a client never has an answer for a
 * write that a later direct write could overtake on its way to the target.
 *
 * Any failure before the finish fails the transfer (its target goes Dead, or away for a move); after the finish the
 * target is marked Dead, or, when it is the last Active replica (a move), the writes still waiting fail. The leader
 * may start it again. Each run has its own id: a target never mixes the batches of two runs.
 */
export class TransferRun {
  private readonly logger = new Logger('TransferRun');
  readonly progress = new TransferProgress();
  /** This run (a restart of the source, or a restart of the transfer, is another run). */
  readonly runId = randomUUID();
  private stopped = false;
  /** Writes routed under an epoch before this one reach the target through this run; later ones directly. */
  private finishEpoch = Number.POSITIVE_INFINITY;
  /** From just before the finish: a forwarded write is acknowledged only once the target applied it. */
  private ackAfterDelivery = false;
  private finished = false;
  private sender: TransferSender | undefined;
  private unlisten: (() => void) | undefined;
  private finishingNow = false;
  /** The catalog's answer to the finish, once asked: a failure meanwhile waits for it (see {@link failed}). */
  private finishCall: Promise<number> | undefined;
  private failureHandled: Promise<void> | undefined;

  constructor(
    private readonly deps: TransferRunDeps,
    readonly collection: { id: string; name: string },
    readonly transfer: ShardTransferRecord,
  ) {}

  get key(): ShardTransferKey {
    return this.transfer;
  }

  /** From the moment it asks the catalog to finish the transfer: it then outlives the transfer's record. */
  get finishing(): boolean {
    return this.finishingNow;
  }

  /** Runs to the end; never throws (a failure is reported to the catalog). */
  async run(): Promise<void> {
    let damage: DamagedFileError | undefined;
    try {
      await this.execute();
    } catch (error) {
      if (error instanceof DamagedFileError) damage = error;
      if (!this.stopped)
        this.logger.warn(
          `transfer of shard ${this.transfer.shardId} of ${this.collection.name} to peer ${this.transfer.to} failed: ${
            error instanceof Error ? error.message : String(error)
          }`,
        );
      await this.failed().catch((failure: unknown) =>
        this.logger.warn(
          `could not record the failed transfer: ${failure instanceof Error ? failure.message : String(failure)}`,
        ),
      );
    } finally {
      this.release();
    }
    if (damage) await this.reopenSource(damage);
  }

  /**
   * The source's own files are damaged (found after reading the records to copy): its shard is reopened as a scrub
   * would (rebuilt from its log, set aside to be copied again, or its collection refused), now that this run no
   * longer observes its writes.
   */
  private async reopenSource(damage: DamagedFileError): Promise<void> {
    try {
      const outcome = await this.context().storage.reopenDamagedShard(this.transfer.shardId);
      this.logger.error(`transfer source ${damage.message}: shard ${this.transfer.shardId} ${outcome}`);
    } catch (error) {
      this.logger.error(
        `transfer source ${damage.message}; reopening the shard failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /** Stops at once (the transfer was aborted, restarted or finished elsewhere); nothing more is sent. */
  stop(): void {
    this.stopped = true;
    this.release();
  }

  private release(): void {
    this.unlisten?.();
    this.unlisten = undefined;
    this.sender?.close();
  }

  /**
   * What a failure means, once (memoized): before the finish the transfer fails (target Dead, or removed for a
   * move); after it the target, now Active without some writes, is marked Dead, and when that is refused (the last
   * Active replica) this rejects, so that the writes waiting for it are not acknowledged. A run stopped because its
   * transfer was aborted or restarted elsewhere has nothing to do.
   */
  private failed(): Promise<void> {
    this.failureHandled ??= (async () => {
      // A failure while the finish is on its way is one after the finish if the finish went through.
      const committed =
        this.finishCall !== undefined &&
        (await this.finishCall.then(
          () => true,
          () => false,
        ));
      if (!committed) {
        if (this.stopped) return;
        await this.deps.cluster.failTransfer(this.collection.id, this.key, this.transfer.startedAt);
        return;
      }
      const shardId = this.transfer.toShardId ?? this.transfer.shardId;
      await this.deps.cluster.markReplicasDead(this.collection.id, [{ shardId, peerId: this.transfer.to }]);
      this.logger.warn(
        `the target of the finished transfer of shard ${shardId} of ${this.collection.name} missed writes: its replica on peer ${this.transfer.to} is Dead`,
      );
    })();
    return this.failureHandled;
  }

  private async execute(): Promise<void> {
    const { transfer } = this;
    const context = this.context();
    const shard = this.localShard(context);
    const sender = new TransferSender(
      (seq, steps) =>
        this.deps.peers.transferApply(transfer.to, {
          collection: this.collection,
          transfer: this.key,
          startedAt: transfer.startedAt,
          runId: this.runId,
          seq,
          steps,
        }),
      { retryable: transient },
    );
    this.sender = sender;
    const filter =
      transfer.filter === undefined ? undefined : (deserialize(Buffer.from(transfer.filter, 'base64')) as Filter);
    if (filter !== undefined) await this.copyRecords(shard, sender, filter);
    else if (transfer.method === 'Snapshot') await this.copySnapshot(context, sender);
    else if (transfer.method === 'WalDelta') {
      if (!(await this.copyDelta(shard, sender))) return;
    } else await this.copyRecords(shard, sender, undefined);
    this.progress.enter('applying queued updates');
    await sender.drained();
    this.checkRunning();
    this.progress.enter('finalizing');
    // From here a forwarded write is acknowledged only once the target has it, and everything forwarded before is
    // delivered before the catalog is asked to finish.
    this.ackAfterDelivery = true;
    await sender.drained();
    this.checkRunning();
    this.finishingNow = true;
    this.finishCall = this.finish();
    this.finishEpoch = await this.finishCall;
    this.finished = true;
    this.progress.enter('waiting for writes to settle');
    await this.deps.replicas.settled(this.collection.id, transfer.shardId, this.finishEpoch);
    await sender.drained();
  }

  /**
   * Asks the catalog to finish the transfer; the replica epoch it finished at. A finish whose answer was lost (an
   * etcd time-out) is looked up in this peer's catalog: finished, or still running (a failure).
   */
  private async finish(): Promise<number> {
    try {
      return await this.deps.cluster.finishTransfer(this.collection.id, this.key, this.transfer.startedAt);
    } catch (error) {
      // Aborted or restarted meanwhile: this run is over, and not a failure.
      if (isDomainError(error) && error.kind === ErrorKind.NotFound) {
        this.stop();
        throw error;
      }
      const deadline = Date.now() + FINISH_OUTCOME_WAIT_MS;
      while (Date.now() < deadline) {
        const record = this.context().record;
        const running = (record.transfers ?? []).some(
          (t) => sameTransfer(t, this.key) && t.startedAt === this.transfer.startedAt,
        );
        const target = record.shards.find(
          (s) => s.shardId === (this.transfer.toShardId ?? this.transfer.shardId) && s.peerId === this.transfer.to,
        );
        if (!running && target?.state === 'Active') return epochOf(record);
        if (!running) {
          this.stop();
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw error;
    }
  }

  /**
   * StreamRecords (and replicate_points, with a filter): the target is emptied, gets the source's recovery point and
   * field indexes, then the live points in batches with every write forwarded in between. The id list is taken in
   * the tick the listener starts, so each point is either copied after a write to it (and overwrites what the
   * forwarded write did there, or is deleted there if the source no longer has it) or written only by forwarded
   * writes. replicate_points copies into another shard, which keeps its own points: nothing is emptied or deleted
   * there, and only forwarded upserts of points matching the filter go (Qdrant's forward proxy with a filter).
   */
  private async copyRecords(shard: LocalShardView, sender: TransferSender, filter: Filter | undefined): Promise<void> {
    const intoOtherShard = filter !== undefined;
    this.listen(
      (operation, tag) => (intoOtherShard ? this.filtered(operation, filter) : { kind: 'operation', operation, tag }),
      (step) => sender.push(step),
    );
    if (!intoOtherShard) sender.push({ kind: 'reset' });
    // A resharding copy owns the points it moves on its target: what an earlier, failed run left there goes first
    // (a point deleted meanwhile would otherwise stay, as the target's direct writes leave these points out).
    else if (this.transfer.reason === 'resharding')
      sender.push({ kind: 'operation', operation: { deletePoints: { selector: { filter } } } });
    // The copy holds the writes applied so far; the target takes this as its recovery point once all of it arrived
    // (before then, a target that restarts must not claim writes it lacks).
    const point = intoOtherShard ? undefined : shard.recoveryPoint();
    for (const [field, schema] of shard.fieldIndexes)
      sender.push({
        kind: 'operation',
        operation: { createFieldIndex: { field, type: schema.type, params: schema.params } },
      });
    const ids = shard.livePointIds(filter);
    // The files read from disk are checked before anything read from them is sent, and again after the last read
    // (before the clocks step that makes the copy whole): damage is never copied under the target's fresh checksums,
    // and damage that appears meanwhile leaves the target unfinished (Dead, to be copied again).
    await this.verifiedRead(shard, () => undefined);
    this.progress.plan(ids.length);
    this.progress.enter('transferring');
    for (let from = 0; from < ids.length; from += RECORDS_PER_BATCH) {
      await sender.roomFor(MAX_PENDING_BYTES);
      this.checkRunning();
      const current = this.localShard(this.context());
      const batch = ids.slice(from, from + RECORDS_PER_BATCH);
      const points = await this.verifiedRead(current, () => current.exportPoints(batch, filter), false);
      if (points.length > 0) sender.push({ kind: 'operation', operation: { upsert: { points } } });
      if (!intoOtherShard && points.length < batch.length) {
        // Gone from the source since the list was taken: a forwarded conditional write may have made them there.
        const copied = new Set(points.map((point) => point.id));
        const gone: PointId[] = batch.filter((id) => !copied.has(id));
        sender.push({ kind: 'operation', operation: { deletePoints: { selector: { ids: gone } } } });
      }
      this.progress.add(batch.length);
    }
    await this.verifiedRead(this.localShard(this.context()), () => undefined);
    if (point) sender.push({ kind: 'clocks', point });
  }

  /**
   * `read` of the source shard, its files read from disk checked after it (`always`) or only when it fails: a read
   * that fails on a damaged file (a payload record that no longer parses) is reported as that damage, naming the
   * file, so the source is reopened (see {@link run}).
   */
  private async verifiedRead<T>(shard: LocalShardView, read: () => T, always = true): Promise<T> {
    let value: T;
    try {
      value = read();
    } catch (error) {
      await shard.verifyDiskFiles();
      throw error;
    }
    if (always) await shard.verifyDiskFiles();
    return value;
  }

  /**
   * A write forwarded into another shard (replicate_points): upserts keep the points that match the filter as the
   * source holds them now (the write applied), other writes go as they are; never with a clock tag, which counts
   * the source shard's writes, not the target's.
   */
  private filtered(operation: UpdateOperation, filter: Filter): TransferStep | undefined {
    const context = this.context();
    if (!('upsert' in operation)) {
      // A resharding's target also holds points of its own, which its writes reach directly: only those moved.
      const moved =
        this.transfer.reason === 'resharding'
          ? movedPoints(context.record, this.transfer.shardId, this.transfer.toShardId ?? this.transfer.shardId)
          : undefined;
      const forwarded = moved ? withinScope(operation, moved) : operation;
      return forwarded && { kind: 'operation', operation: forwarded };
    }
    const shard = this.localShard(context);
    const matching = shard.exportPoints(
      operation.upsert.points.map((point) => point.id),
      filter,
    );
    return matching.length === 0 ? undefined : { kind: 'operation', operation: { upsert: { points: matching } } };
  }

  /**
   * Snapshot: a point-in-time copy of the shard's files (the manifest's op number N) is streamed, restored on the
   * target, then the writes applied after N follow in order. Writes applied meanwhile wait here.
   */
  private async copySnapshot(context: CollectionContext, sender: TransferSender): Promise<void> {
    const held: Array<{ opNum: number; step: TransferStep }> = [];
    let cut: number | undefined;
    this.listen(
      (operation, tag) => ({ kind: 'operation', operation, tag }),
      (step, opNum) => {
        if (cut === undefined) held.push({ opNum, step });
        else sender.push(step);
      },
    );
    this.progress.enter('creating snapshot');
    const dir = path.join(context.storage.dir, 'outgoing', this.runId);
    try {
      await this.deps.snapshots.checkpointShard(this.collection.name, this.transfer.shardId, dir);
      this.checkRunning();
      const manifest = path.join(dir, 'shards', String(this.transfer.shardId), 'manifest.json');
      const persisted = await fs
        .readFile(manifest, 'utf8')
        .then((text) => (JSON.parse(text) as { persistedOpNum?: number }).persistedOpNum ?? 0)
        .catch(() => 0);
      this.progress.enter('transferring');
      sender.push({ kind: 'reset' });
      const files = await listFiles(dir);
      this.progress.plan(files.length);
      for (const file of files) {
        await sendFile(path.join(dir, file), file, sender, () => this.checkRunning());
        this.progress.add(1);
      }
      sender.push({ kind: 'restore' });
      // From here writes go straight to the target; those the snapshot already holds are dropped.
      cut = persisted;
      for (const { opNum, step } of held) if (opNum > persisted) sender.push(step);
      held.length = 0;
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * WalDelta: the target keeps what it has and gets, from the source's log, exactly the routed writes its recovery
   * point lacks, then the writes applied meanwhile (the target applies a write it already got once). When the log
   * no longer reaches back that far, or the target holds writes the source does not, the transfer is run again as
   * stream_records (a new run: false is returned).
   */
  private async copyDelta(shard: LocalShardView, sender: TransferSender): Promise<boolean> {
    const held: TransferStep[] = [];
    let live = false;
    this.listen(
      (operation, tag) => ({ kind: 'operation', operation, tag }),
      (step) => {
        if (live) sender.push(step);
        else held.push(step);
      },
    );
    this.progress.enter('transferring');
    const point = await this.deps.peers.recoveryPoint(
      this.transfer.to,
      this.context().record,
      this.transfer.toShardId ?? this.transfer.shardId,
    );
    this.checkRunning();
    const delta = await shard.walDelta(point);
    this.checkRunning();
    if ('refused' in delta) {
      this.logger.log(
        `wal_delta of shard ${this.transfer.shardId} of ${this.collection.name} to peer ${this.transfer.to} cannot be done (${delta.refused}): streaming records instead`,
      );
      this.stop();
      await this.deps.cluster.switchTransferMethod(
        this.collection.id,
        this.key,
        this.transfer.startedAt,
        'StreamRecords',
      );
      return false;
    }
    this.progress.plan(delta.send.length);
    for (const write of delta.send) {
      sender.push({ kind: 'operation', operation: write.operation, tag: write.tag });
      this.progress.add(1);
    }
    live = true;
    for (const step of held.splice(0)) sender.push(step);
    return true;
  }

  /**
   * Forwards the writes the source replica applies from now on, except those routed at or after the finish:
   * `shape` turns a write into the step to send (or nothing), `deliver` queues it (or holds it, before a cut).
   * Once the run acknowledges after delivery, a forwarded write's acknowledgement waits for its delivery (or for a
   * failure to be dealt with, see {@link failed}).
   */
  private listen(
    shape: (operation: UpdateOperation, tag: ClockTag | undefined) => TransferStep | undefined,
    deliver: (step: TransferStep, opNum: number) => void,
  ): void {
    const context = this.context();
    this.unlisten = this.deps.replicas.listen(context, this.transfer.shardId, (operation, routedEpoch, opNum, tag) => {
      if (routedEpoch >= this.finishEpoch) return;
      const shaped = shape(operation, tag);
      if (!shaped) return;
      const step: TransferStep =
        shaped.kind === 'operation' && shaped.tag === undefined
          ? { kind: 'operation', operation: shaped.operation }
          : shaped;
      if (!this.ackAfterDelivery || !this.sender) return deliver(step, opNum);
      return this.delivered(this.sender, step);
    });
  }

  /**
   * Resolves once the target applied `step`, or once its failure is dealt with (see {@link failed}). A target that
   * takes longer than {@link DELIVERY_WAIT_MS} has failed: the write is not held longer, and the run stops sending.
   */
  private delivered(sender: TransferSender, step: TransferStep): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new Error(`the target did not apply a forwarded write within ${DELIVERY_WAIT_MS} ms`);
        sender.close(error);
        reject(error);
      }, DELIVERY_WAIT_MS);
      timer.unref();
    });
    return Promise.race([sender.pushTracked(step), late])
      .finally(() => clearTimeout(timer))
      .catch(() => this.failed());
  }

  private checkRunning(): void {
    if (this.stopped) throw new Error('transfer stopped');
    const failure = this.sender?.failure;
    if (failure) throw failure;
  }

  private context(): CollectionContext {
    const context = this.deps.contexts.resolve(this.collection.name);
    if (context.record.id !== this.collection.id)
      throw DomainError.notFound(`Not found: Collection \`${this.collection.name}\` doesn't exist!`);
    return context;
  }

  private localShard(context: CollectionContext): LocalShardView {
    const handle = context.storage.shards.get(this.transfer.shardId);
    if (!handle)
      throw DomainError.unavailable(
        `Service unavailable: shard ${this.transfer.shardId} of \`${this.collection.name}\` is not open on the source`,
      );
    return handle.shard;
  }
}

/** What a run reads of its source shard. */
type LocalShardView = NonNullable<ReturnType<CollectionContext['storage']['shards']['get']>>['shard'];

/** Lost connections and time-outs are worth another attempt; a refusal is not. */
function transient(error: unknown): boolean {
  return isDomainError(error) && (error.kind === ErrorKind.Unavailable || error.kind === ErrorKind.DeadlineExceeded);
}

/** Every file under `dir`, as paths relative to it. */
async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await fs.readdir(path.join(dir, prefix), { withFileTypes: true })) {
    const relative = prefix ? path.join(prefix, entry.name) : entry.name;
    if (entry.isDirectory()) files.push(...(await listFiles(dir, relative)));
    else files.push(relative);
  }
  return files.sort();
}

/** Streams one file in chunks (never the whole file in memory), waiting for room before each. */
async function sendFile(file: string, relative: string, sender: TransferSender, check: () => void): Promise<void> {
  const handle = await fs.open(file, 'r');
  try {
    const { size } = await handle.stat();
    for (let offset = 0; offset === 0 || offset < size; offset += FILE_CHUNK_BYTES) {
      await sender.roomFor(MAX_PENDING_BYTES);
      check();
      const data = Buffer.alloc(Math.min(FILE_CHUNK_BYTES, size - offset));
      const { bytesRead } = await handle.read(data, 0, data.byteLength, offset);
      sender.push({ kind: 'file', path: relative, offset, data: data.subarray(0, bytesRead) });
    }
  } finally {
    await handle.close();
  }
}
