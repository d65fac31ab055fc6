import { Logger } from '@nestjs/common';
import { ClusterService, ShardTransferKey, ShardTransferRecord } from '@vectorstore/collections';
import { DomainError, ErrorKind, isDomainError } from '@vectorstore/common';
import type {
  CollectionContext,
  CollectionContexts,
  CollectionSnapshots,
  ClockTag,
  Filter,
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

/** Points per copied batch (Qdrant's stream_records sends 100). */
const RECORDS_PER_BATCH = 100;
/** Bytes the copy may run ahead of what the target has applied. */
const MAX_PENDING_BYTES = 32 * 1024 * 1024;
/** Bytes of a snapshot file per step. */
const FILE_CHUNK_BYTES = 4 * 1024 * 1024;

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
 * tick they are queued), so the target converges on the source whatever the writes do meanwhile. When the target
 * has applied everything, the catalog makes it Active (a move drops the source); writes routed before that keep
 * being forwarded until they have all been applied here. Any failure fails the transfer (its target goes Dead, or
 * away for a move); the leader may start it again.
 */
export class TransferRun {
  private readonly logger = new Logger('TransferRun');
  readonly progress = new TransferProgress();
  private stopped = false;
  /** Writes routed under an epoch before this one reach the target through this run; later ones directly. */
  private finishEpoch = Number.POSITIVE_INFINITY;
  private sender: TransferSender | undefined;
  private unlisten: (() => void) | undefined;
  private finishingNow = false;

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
    try {
      await this.execute();
    } catch (error) {
      if (this.stopped) return;
      this.logger.warn(
        `transfer of shard ${this.transfer.shardId} of ${this.collection.name} to peer ${this.transfer.to} failed: ${
          error instanceof Error ? error.message : String(error)
        }`,
      );
      await this.deps.cluster
        .failTransfer(this.collection.id, this.key, this.transfer.startedAt)
        .catch((failure: unknown) =>
          this.logger.warn(
            `could not record the failed transfer: ${failure instanceof Error ? failure.message : failure}`,
          ),
        );
    } finally {
      this.release();
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
          seq,
          steps,
        }),
      { retryable: transient },
    );
    this.sender = sender;
    const filter =
      transfer.filter === undefined ? undefined : (deserialize(Buffer.from(transfer.filter, 'base64')) as Filter);
    if (filter !== undefined) {
      // The target shard has writes of its own: only the copy of matching points goes there, no forwarded write.
      await this.copyRecords(shard, sender, filter, false);
    } else if (transfer.method === 'Snapshot') {
      await this.copySnapshot(context, sender);
    } else if (transfer.method === 'WalDelta') {
      if (!(await this.copyDelta(shard, sender))) return;
    } else {
      await this.copyRecords(shard, sender, undefined, true);
    }
    this.progress.enter('applying queued updates');
    await sender.drained();
    this.checkRunning();
    this.progress.enter('finalizing');
    this.finishingNow = true;
    try {
      await this.deps.cluster.finishTransfer(this.collection.id, this.key, transfer.startedAt);
    } catch (error) {
      // Aborted or restarted meanwhile: this run is over, and not a failure.
      if (isDomainError(error) && error.kind === ErrorKind.NotFound) return this.stop();
      throw error;
    }
    this.finishEpoch = epochOf(this.context().record);
    this.progress.enter('waiting for writes to settle');
    await this.deps.replicas.settled(this.collection.id, transfer.shardId, this.finishEpoch);
    await sender.drained();
  }

  /**
   * StreamRecords: the target is emptied, gets the field indexes, then the live points in batches with every
   * write forwarded in between. The id list is taken in the tick the listener starts, so each point is either
   * copied after a write to it (and overwrites what the forwarded write did) or written only by forwarded writes.
   */
  private async copyRecords(
    shard: LocalShardView,
    sender: TransferSender,
    filter: Filter | undefined,
    forward: boolean,
  ): Promise<void> {
    if (forward)
      this.listen((operation, _, tag) => sender.push({ kind: 'operation', operation, ...(tag ? { tag } : {}) }));
    if (filter === undefined) {
      sender.push({ kind: 'reset' });
      // The copy holds exactly the writes applied so far: the target's recovery point is the source's now.
      sender.push({ kind: 'clocks', point: shard.recoveryPoint() });
    }
    for (const [field, schema] of shard.fieldIndexes)
      sender.push({
        kind: 'operation',
        operation: { createFieldIndex: { field, type: schema.type, params: schema.params } },
      });
    const ids = shard.livePointIds(filter);
    this.progress.plan(ids.length);
    this.progress.enter('transferring');
    for (let from = 0; from < ids.length; from += RECORDS_PER_BATCH) {
      await sender.roomFor(MAX_PENDING_BYTES);
      this.checkRunning();
      const current = this.localShard(this.context());
      const batch = ids.slice(from, from + RECORDS_PER_BATCH);
      const points = current.exportPoints(batch, filter);
      if (points.length > 0) sender.push({ kind: 'operation', operation: { upsert: { points } } });
      this.progress.add(batch.length);
    }
  }

  /**
   * Snapshot: a point-in-time copy of the shard's files (the manifest's op number N) is streamed, restored on the
   * target, then the writes applied after N follow in order. Writes applied meanwhile wait here.
   */
  private async copySnapshot(context: CollectionContext, sender: TransferSender): Promise<void> {
    const held: Array<{ opNum: number; step: TransferStep }> = [];
    let cut: number | undefined;
    this.listen((operation, opNum, tag) => {
      const step: TransferStep = { kind: 'operation', operation, ...(tag ? { tag } : {}) };
      if (cut === undefined) held.push({ opNum, step });
      else sender.push(step);
    });
    this.progress.enter('creating snapshot');
    const dir = path.join(context.storage.dir, 'outgoing', randomUUID());
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
        const data = await fs.readFile(path.join(dir, file));
        for (let offset = 0; offset === 0 || offset < data.byteLength; offset += FILE_CHUNK_BYTES) {
          await sender.roomFor(MAX_PENDING_BYTES);
          this.checkRunning();
          sender.push({ kind: 'file', path: file, offset, data: data.subarray(offset, offset + FILE_CHUNK_BYTES) });
        }
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
    this.listen((operation, _, tag) => {
      const step: TransferStep = { kind: 'operation', operation, ...(tag ? { tag } : {}) };
      if (live) sender.push(step);
      else held.push(step);
    });
    this.progress.enter('transferring');
    const point = await this.deps.peers.recoveryPoint(
      this.transfer.to,
      this.record(),
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

  /** Forwards the writes the source replica applies from now on, except those routed after the transfer ended. */
  private listen(forward: (operation: UpdateOperation, opNum: number, tag: ClockTag | undefined) => void): void {
    const context = this.context();
    this.unlisten = this.deps.replicas.listen(context, this.transfer.shardId, (operation, routedEpoch, opNum, tag) => {
      if (routedEpoch < this.finishEpoch) forward(operation, opNum, tag);
    });
  }

  private record(): CollectionContext['record'] {
    return this.context().record;
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
