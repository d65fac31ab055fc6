import { Inject, Injectable, Optional } from '@nestjs/common';
import { CollectionRecord, UPDATABLE_REPLICA_STATES } from '@vectorstore/collections';
import { DomainError, ErrorKind, isDomainError } from '@vectorstore/common';
import {
  applyToLocalShard,
  CollectionContext,
  CollectionContexts,
  type ClockTag,
  type UpdateOperation,
} from '@vectorstore/points';
import { POINTS_PEERS, PointsPeers } from './points-peers';
import { disownedPoints, isCleanup, outsideScope, pendingCopies, withoutIds } from './resharding/resharding-scope';

/**
 * What a replica applies of a write whose every point comes to it through a resharding copy: nothing, but its tag
 * (a new object each time: writes are told apart by identity).
 */
const noPoints = (): UpdateOperation => ({ deletePoints: { selector: { ids: [] } } });

/** How long a replica waits for its catalog to reach the epoch a coordinator routed with. */
const CATCH_UP_MS = 2000;

/**
 * A coordinator routed a write with an older view of the collection's replicas than this peer has (a transfer
 * started or ended since): nothing was applied; the coordinator catches up to `epoch` and routes again.
 */
export class StaleRouting extends Error {
  constructor(readonly epoch: number) {
    super(`stale routing: the replicas changed (epoch ${epoch}); route the write again`);
    this.name = 'StaleRouting';
  }
}

/**
 * Told of each write applied to a local replica, in apply order, with its op number, the epoch it was routed under
 * and its clock tag. A promise it returns holds the write's acknowledgement until it settles (a transfer about to
 * finish acknowledges a forwarded write only once its target has it); a rejection fails the write on this replica.
 */
export type ReplicaWriteListener = (
  operation: UpdateOperation,
  routedEpoch: number,
  opNum: number,
  tag: ClockTag | undefined,
) => Promise<void> | void;

/** What goes on at one local replica: listeners (transfers reading from it) and writes admitted but not applied. */
interface ReplicaActivity {
  listeners: Set<ReplicaWriteListener>;
  /** Admitted writes not yet applied (or failed), by the epoch they were routed under. */
  pending: Map<number, number>;
  idle: Array<() => void>;
}

/**
 * The only way a routed write reaches one of this peer's replicas (cluster mode). It checks the coordinator's view:
 * a write routed under an older replica epoch is refused as stale, one routed under a newer epoch waits for this
 * peer's catalog; then the replica must take writes. Transfers reading from the replica are told of every write it
 * applies with the epoch it was routed under, in apply order, so that a transfer forwards exactly the writes its
 * target did not get directly (see transfers/forward-queue.ts).
 */
@Injectable()
export class LocalReplicas {
  private readonly routed = new WeakMap<UpdateOperation, number>();
  /**
   * What holds each applied write's acknowledgement (listeners' promises), per shard: one operation object may be
   * applied to several local shards, each with its own transfers.
   */
  private readonly gates = new WeakMap<UpdateOperation, Map<number, Array<Promise<void>>>>();
  private readonly activity = new Map<string, ReplicaActivity>();

  constructor(
    private readonly contexts: CollectionContexts,
    @Optional() @Inject(POINTS_PEERS) private readonly peers?: PointsPeers,
  ) {}

  /**
   * Applies `operation` to this peer's replica of shard `shardId`; its operation number. `routedEpoch` is the
   * replica epoch the coordinator routed with (absent on a standalone server, which has one replica of everything).
   */
  async apply(
    collection: { id: string; name: string },
    shardId: number,
    operation: UpdateOperation,
    routedEpoch: number | undefined,
    tag?: ClockTag,
  ): Promise<number> {
    const selfId = this.peers?.selfId;
    if (selfId === undefined || routedEpoch === undefined) {
      return applyToLocalShard(this.contexts.resolve(collection.name), shardId, operation, tag);
    }
    const context = await this.atEpoch(collection, routedEpoch);
    const replica = context.record.shards.find((s) => s.shardId === shardId && (s.peerId ?? selfId) === selfId);
    if (!replica || !UPDATABLE_REPLICA_STATES.has(replica.state)) {
      throw DomainError.failedPrecondition(
        `Failed precondition: the replica of shard ${shardId} of \`${context.record.name}\` on peer ${selfId} cannot take writes (${replica?.state ?? 'not placed here'})`,
      );
    }
    // Points a resharding copy still brings here come only through the copy, in its source's order.
    const pending = pendingCopies(context.record, shardId, selfId);
    if (pending) operation = outsideScope(operation, pending) ?? noPoints();
    // A part split by a ring no longer in force (a write routed again across a resharding step) brings no point
    // its shard has lost.
    const disowned = disownedPoints(context.record, shardId);
    if (disowned) operation = withoutIds(operation, disowned) ?? noPoints();
    // A resharding's cleanup waits for every write routed here before it (one applied after could bring a copy back).
    if (isCleanup(operation)) await this.settled(context.record.id, shardId, routedEpoch);
    const activity = this.activityOf(context.record.id, shardId);
    this.routed.set(operation, routedEpoch);
    activity.pending.set(routedEpoch, (activity.pending.get(routedEpoch) ?? 0) + 1);
    try {
      const opNum = await applyToLocalShard(context, shardId, operation, tag);
      const byShard = this.gates.get(operation);
      const gates = byShard?.get(shardId);
      if (byShard && gates) {
        byShard.delete(shardId);
        if (byShard.size === 0) this.gates.delete(operation);
        await Promise.all(gates);
      }
      return opNum;
    } finally {
      const left = (activity.pending.get(routedEpoch) ?? 1) - 1;
      if (left > 0) activity.pending.set(routedEpoch, left);
      else activity.pending.delete(routedEpoch);
      // Each waiter checks again for the epochs it waits on: writes of newer epochs may go on meanwhile.
      if (left <= 0) for (const resolve of activity.idle.splice(0)) resolve();
    }
  }

  /**
   * Calls `listener` for every routed write the replica applies from now on, in apply order, in the tick it is
   * applied: reading the replica in a later tick sees exactly the writes told so far. Returns the way to stop.
   */
  listen(context: CollectionContext, shardId: number, listener: ReplicaWriteListener): () => void {
    const handle = context.storage.shards.get(shardId);
    if (!handle) throw DomainError.unavailable(`Service unavailable: shard ${shardId} is not open on this peer`);
    const activity = this.activityOf(context.record.id, shardId);
    activity.listeners.add(listener);
    const stopApplied = handle.shard.observeApplied((opNum, operation, tag) => {
      const epoch = this.routed.get(operation);
      if (epoch === undefined) return;
      const gate = listener(operation, epoch, opNum, tag);
      if (gate) {
        // Handled where it is awaited; a write whose apply() gave up meanwhile must not leave it unhandled.
        gate.catch(() => undefined);
        let byShard = this.gates.get(operation);
        if (!byShard) {
          byShard = new Map();
          this.gates.set(operation, byShard);
        }
        byShard.set(shardId, [...(byShard.get(shardId) ?? []), gate]);
      }
    });
    return () => {
      stopApplied();
      activity.listeners.delete(listener);
    };
  }

  /** Resolves once no write routed under an epoch before `epoch` is still waiting to be applied on the replica. */
  async settled(collectionId: string, shardId: number, epoch: number): Promise<void> {
    const activity = this.activityOf(collectionId, shardId);
    while ([...activity.pending.keys()].some((pending) => pending < epoch)) {
      await new Promise<void>((resolve) => activity.idle.push(resolve));
    }
  }

  /** The collection as this peer sees it once its catalog has reached `epoch`; StaleRouting when it is past it. */
  private async atEpoch(collection: { id: string; name: string }, epoch: number): Promise<CollectionContext> {
    const deadline = Date.now() + CATCH_UP_MS;
    for (;;) {
      const context = this.tryResolve(collection.name);
      const current = context?.record.id === collection.id ? context : undefined;
      const own = current ? epochOf(current.record) : undefined;
      if (current && own !== undefined && own > epoch) throw new StaleRouting(own);
      if (current && own === epoch) return current;
      if (Date.now() >= deadline) {
        if (!current) throw DomainError.notFound(`Not found: Collection \`${collection.name}\` doesn't exist!`);
        throw DomainError.unavailable(
          `Service unavailable: this peer's catalog has not reached the replicas a coordinator routed with (epoch ${epoch}, here ${String(own)})`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
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

  private activityOf(collectionId: string, shardId: number): ReplicaActivity {
    const key = `${collectionId}/${shardId}`;
    let activity = this.activity.get(key);
    if (!activity) {
      activity = { listeners: new Set(), pending: new Map(), idle: [] };
      this.activity.set(key, activity);
    }
    return activity;
  }
}

/** The replica epoch of a record (0 before its replicas ever changed). */
export function epochOf(record: CollectionRecord): number {
  return record.replicaEpoch ?? 0;
}
