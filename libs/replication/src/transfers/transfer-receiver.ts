import { Inject, Injectable, Optional } from '@nestjs/common';
import { sameTransfer, ShardTransferKey, unitKeyOf } from '@vectorstore/collections';
import { DomainError, ErrorKind, isDomainError, KeyedMutex } from '@vectorstore/common';
import { CollectionContext, CollectionContexts, CollectionSnapshots } from '@vectorstore/points';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { POINTS_PEERS, PointsPeers, TransferApplyRequest } from '../points-peers';
import { TransferStep } from './transfer-steps';

/** How long the target waits for its catalog to show a transfer its source already runs. */
const CATCH_UP_MS = 2000;
/** States a transfer's target replica waits in. */
const TARGET_STATES: ReadonlySet<string> = new Set(['Partial', 'Recovery']);
/** States of a replica another shard's points are copied into (replicate_points; resharding's new shard or others). */
const INTO_OTHER_SHARD_STATES: ReadonlySet<string> = new Set(['Active', 'Resharding']);

/**
 * The target's side of a transfer: applies the numbered batches of steps its source sends, in order, to its replica
 * of the transfer's target shard. A batch number seen already is acknowledged without applying it again (the
 * source retries a call whose answer it lost); a gap is refused, and the source fails the transfer.
 */
@Injectable()
export class TransferReceiver {
  /** The last batch applied, per run, and when (runs unused for a while are forgotten). */
  private readonly applied = new Map<string, { seq: number; at: number }>();
  /** The newest run seen per target replica: an older run's batch is refused from then on. */
  private readonly newest = new Map<string, string>();
  /** Runs that copy points for a resharding (seen while their transfer ran): their late batches are checked. */
  private readonly reshardingRuns = new Set<string>();
  /** One batch at a time per target replica, whatever run it belongs to. */
  private readonly targets = new KeyedMutex();

  constructor(
    private readonly contexts: CollectionContexts,
    private readonly snapshots: CollectionSnapshots,
    @Optional() @Inject(POINTS_PEERS) private readonly peers?: PointsPeers,
  ) {}

  apply(request: TransferApplyRequest): Promise<void> {
    const shardId = request.transfer.toShardId ?? request.transfer.shardId;
    const target = `${request.collection.id}/${shardId}`;
    const run = `${runKey(request)}|${request.runId}`;
    return this.targets.run(target, async () => {
      const last = this.applied.get(run)?.seq ?? 0;
      if (request.seq <= last) return;
      if (request.seq !== last + 1)
        throw DomainError.failedPrecondition(
          `Failed precondition: transfer batch ${request.seq} arrived after batch ${last}; the transfer must start again`,
        );
      // A run's first batch makes it the newest for this replica; any other run's batch is refused from then on.
      if (request.seq === 1) this.newest.set(target, run);
      else if (this.newest.get(target) !== run)
        throw DomainError.failedPrecondition(
          'Failed precondition: a newer run of this transfer has started on the target; this one is over',
        );
      const known = last > 0;
      let context = await this.targetOf(request, run, known);
      const steps = request.steps;
      for (let i = 0; i < steps.length;) {
        // The transfer may be aborted or restarted while a batch is applied: nothing of it goes in after that.
        context = await this.targetOf(request, run, known, 0);
        // A run of writes goes to the log together (one group commit, applied in the order sent), not one fsync each.
        let end = i;
        while (end < steps.length && steps[end].kind === 'operation') end++;
        if (end > i) {
          const shard = this.shardOf(context, shardId);
          const writes = steps.slice(i, end) as Array<Extract<TransferStep, { kind: 'operation' }>>;
          const applied = await Promise.allSettled(writes.map((step) => shard.update(step.operation, step.tag)));
          const failed = applied.find((result): result is PromiseRejectedResult => result.status === 'rejected');
          if (failed) throw failed.reason;
          i = end;
          continue;
        }
        await this.applyStep(context, shardId, request.runId, steps[i]);
        i++;
      }
      this.applied.set(run, { seq: request.seq, at: Date.now() });
      this.forgetIdle();
    });
  }

  private async applyStep(
    context: CollectionContext,
    shardId: number,
    runId: string,
    step: TransferStep,
  ): Promise<void> {
    switch (step.kind) {
      case 'reset': {
        await context.storage.resetShard(shardId);
        // Until the copy's last batch the replica's points are newer than its recovery point: recorded durably, so
        // that a recovery of it never replays a WAL delta over them (it is copied again instead).
        const shard = this.shardOf(context, shardId);
        shard.beginCopy();
        await shard.flush();
        // Files a failed or older run left behind go too.
        await fs.rm(path.join(context.storage.dir, 'incoming', String(shardId)), { recursive: true, force: true });
        return;
      }
      case 'operation':
        await this.shardOf(context, shardId).update(step.operation, step.tag);
        return;
      case 'clocks': {
        // The copy is whole: the replica now holds the source's writes up to that point. Flushed at once, since the
        // copied points carry no tags a restart could rebuild the point from (a recovery would resend old writes).
        const shard = this.shardOf(context, shardId);
        shard.finishCopy(step.point);
        await shard.flush();
        return;
      }
      case 'file': {
        const incoming = this.incomingDir(context, shardId, runId);
        const file = path.resolve(incoming, step.path);
        if (!file.startsWith(incoming + path.sep))
          throw DomainError.invalidArgument(`Bad request: transfer file ${step.path} is outside the snapshot`);
        await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
        const handle = await fs.open(file, step.offset === 0 ? 'w' : 'r+', 0o600);
        try {
          await handle.write(step.data, 0, step.data.byteLength, step.offset);
        } finally {
          await handle.close();
        }
        return;
      }
      case 'restore': {
        const incoming = this.incomingDir(context, shardId, runId);
        try {
          await this.snapshots.restoreShard(context.record.name, shardId, incoming);
        } finally {
          await fs.rm(incoming, { recursive: true, force: true });
        }
        return;
      }
    }
  }

  /** Where a Snapshot transfer's files land before the shard is restored from them (one folder per run). */
  private incomingDir(context: CollectionContext, shardId: number, runId: string): string {
    return path.join(context.storage.dir, 'incoming', String(shardId), runId.replace(/[^A-Za-z0-9-]/g, '_'));
  }

  private shardOf(context: CollectionContext, shardId: number) {
    const handle = context.storage.shards.get(shardId);
    if (!handle)
      throw DomainError.unavailable(
        `Service unavailable: shard ${shardId} of \`${context.record.name}\` is not open here`,
      );
    return handle.shard;
  }

  /**
   * The collection once this peer's catalog shows the transfer, with this peer as its target and the target
   * replica waiting for it (Partial or Recovery) and open. A run already under way may go on after the transfer
   * finished (`known`): its source still forwards the writes it admitted before the finish, which the target, now
   * Active, did not get directly.
   */
  private async targetOf(
    request: TransferApplyRequest,
    run: string,
    known: boolean,
    waitMs = CATCH_UP_MS,
  ): Promise<CollectionContext> {
    const selfId = this.peers?.selfId;
    const shardId = request.transfer.toShardId ?? request.transfer.shardId;
    const deadline = Date.now() + waitMs;
    for (;;) {
      const context = this.tryResolve(request.collection.name);
      const record = context?.record.id === request.collection.id ? context.record : undefined;
      const transfer = record?.transfers?.find((t) => sameTransfer(t, request.transfer));
      const replica = record?.shards.find((s) => s.shardId === shardId && s.peerId === selfId);
      // replicate_points and resharding copy into another shard's replica, which keeps its state (and its points).
      const waiting =
        transfer?.startedAt === request.startedAt &&
        transfer.to === selfId &&
        replica !== undefined &&
        (TARGET_STATES.has(replica.state) ||
          (transfer.filter !== undefined && INTO_OTHER_SHARD_STATES.has(replica.state)));
      if (waiting && transfer.reason === 'resharding') this.reshardingRuns.add(run);
      // A resharding copy's late batches (writes its source admitted before it finished) count only if it finished:
      // one aborted leaves its target as it was (an aborted scale-down's copies are removed; none may land after).
      const finished =
        known &&
        transfer === undefined &&
        replica !== undefined &&
        replica.state !== 'Dead' &&
        (!this.reshardingRuns.has(run) || (record?.resharding?.migrated ?? []).includes(unitKeyOf(request.transfer)));
      // A replica set aside as damaged is a waiting target too: the copy's reset opens it afresh.
      const open = context?.storage.shards.has(shardId) === true;
      const ready = (waiting && (open || context?.storage.damaged.has(shardId) === true)) || (finished && open);
      if (ready && context) return context;
      if (Date.now() >= deadline)
        throw DomainError.failedPrecondition(
          `Failed precondition: peer ${String(selfId)} is not the waiting target of transfer ${describe(request.transfer)} started ${request.startedAt}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Drops the batch counters of runs idle for 10 minutes (ended, or their source gave up). */
  private forgetIdle(): void {
    const before = Date.now() - 10 * 60_000;
    for (const [run, { at }] of this.applied)
      if (at < before) {
        this.applied.delete(run);
        this.reshardingRuns.delete(run);
      }
  }

  private tryResolve(name: string): CollectionContext | undefined {
    try {
      return this.contexts.resolve(name);
    } catch (error) {
      if (isDomainError(error) && error.kind === ErrorKind.NotFound) return undefined;
      throw error;
    }
  }
}

function runKey(request: { collection: { id: string }; transfer: ShardTransferKey; startedAt: string }): string {
  return `${request.collection.id}|${describe(request.transfer)}|${request.startedAt}`;
}

function describe(key: ShardTransferKey): string {
  return `${key.shardId}${key.toShardId !== undefined ? `>${key.toShardId}` : ''}:${key.from}->${key.to}`;
}
