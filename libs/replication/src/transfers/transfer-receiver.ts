import { Inject, Injectable, Optional } from '@nestjs/common';
import { sameTransfer, ShardTransferKey } from '@vectorstore/collections';
import { DomainError, ErrorKind, isDomainError, KeyedMutex } from '@vectorstore/common';
import { CollectionContext, CollectionContexts, CollectionSnapshots } from '@vectorstore/points';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { POINTS_PEERS, PointsPeers, TransferApplyRequest } from '../points-peers';

/** How long the target waits for its catalog to show a transfer its source already runs. */
const CATCH_UP_MS = 2000;
/** States a transfer's target replica waits in. */
const TARGET_STATES: ReadonlySet<string> = new Set(['Partial', 'Recovery']);

/**
 * The target's side of a transfer: applies the numbered batches of steps its source sends, in order, to its replica
 * of the transfer's target shard. A batch number seen already is acknowledged without applying it again (the
 * source retries a call whose answer it lost); a gap is refused, and the source fails the transfer.
 */
@Injectable()
export class TransferReceiver {
  /** The last batch applied, per run, and when (runs unused for a while are forgotten). */
  private readonly applied = new Map<string, { seq: number; at: number }>();
  private readonly runs = new KeyedMutex();

  constructor(
    private readonly contexts: CollectionContexts,
    private readonly snapshots: CollectionSnapshots,
    @Optional() @Inject(POINTS_PEERS) private readonly peers?: PointsPeers,
  ) {}

  apply(request: TransferApplyRequest): Promise<void> {
    const run = runKey(request);
    return this.runs.run(run, async () => {
      const last = this.applied.get(run)?.seq ?? 0;
      if (request.seq <= last) return;
      if (request.seq !== last + 1)
        throw DomainError.failedPrecondition(
          `Failed precondition: transfer batch ${request.seq} arrived after batch ${last}; the transfer must start again`,
        );
      const context = await this.targetOf(request, last > 0);
      const shardId = request.transfer.toShardId ?? request.transfer.shardId;
      for (const step of request.steps) {
        switch (step.kind) {
          case 'reset':
            await context.storage.resetShard(shardId);
            await fs.rm(this.incomingDir(context, shardId), { recursive: true, force: true });
            break;
          case 'operation':
            await this.shardOf(context, shardId).update(step.operation, step.tag);
            break;
          case 'clocks':
            this.shardOf(context, shardId).mergeRecoveryPoint(step.point);
            break;
          case 'file': {
            const file = path.resolve(this.incomingDir(context, shardId), step.path);
            if (!file.startsWith(this.incomingDir(context, shardId) + path.sep))
              throw DomainError.invalidArgument(`Bad request: transfer file ${step.path} is outside the snapshot`);
            await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
            const handle = await fs.open(file, step.offset === 0 ? 'w' : 'r+', 0o600);
            try {
              await handle.write(step.data, 0, step.data.byteLength, step.offset);
            } finally {
              await handle.close();
            }
            break;
          }
          case 'restore': {
            const incoming = this.incomingDir(context, shardId);
            await this.snapshots.restoreShard(context.record.name, shardId, incoming);
            await fs.rm(incoming, { recursive: true, force: true });
            break;
          }
        }
      }
      this.applied.set(run, { seq: request.seq, at: Date.now() });
      this.forgetIdle();
    });
  }

  /** Where a Snapshot transfer's files land before the shard is restored from them. */
  private incomingDir(context: CollectionContext, shardId: number): string {
    return path.join(context.storage.dir, 'incoming', String(shardId));
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
  private async targetOf(request: TransferApplyRequest, known: boolean): Promise<CollectionContext> {
    const selfId = this.peers?.selfId;
    const shardId = request.transfer.toShardId ?? request.transfer.shardId;
    const deadline = Date.now() + CATCH_UP_MS;
    for (;;) {
      const context = this.tryResolve(request.collection.name);
      const record = context?.record.id === request.collection.id ? context.record : undefined;
      const transfer = record?.transfers?.find((t) => sameTransfer(t, request.transfer));
      const replica = record?.shards.find((s) => s.shardId === shardId && s.peerId === selfId);
      const waiting =
        transfer?.startedAt === request.startedAt &&
        transfer.to === selfId &&
        replica !== undefined &&
        TARGET_STATES.has(replica.state);
      const finished = known && transfer === undefined && replica !== undefined && replica.state !== 'Dead';
      const ready = (waiting || finished) && context?.storage.shards.has(shardId);
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
    for (const [run, { at }] of this.applied) if (at < before) this.applied.delete(run);
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
