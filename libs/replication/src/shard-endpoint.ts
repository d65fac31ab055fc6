import { Inject, Injectable, Optional } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { READABLE_REPLICA_STATES, ReplicaState } from '@vectorstore/collections';
import { DomainError, ErrorKind, isDomainError } from '@vectorstore/common';
import {
  type ClockTag,
  type RecoveryPoint,
  type ShardChecksum,
  type UpdateOperation,
  CollectionContext,
  CollectionContexts,
  CollectionStatsReporter,
  damagedRecoveryPoint,
  damagedReplicaError,
  DistanceMatrixService,
  PointsReader,
  QueryEngine,
} from '@vectorstore/points';
import { epochOf, LocalReplicas } from './local-replicas';
import { POINTS_PEERS, PointsPeers, ShardRead, ShardReadResults, TransferApplyRequest } from './points-peers';
import { ReplicaWriter } from './replica-writer';
import { TransferReceiver } from './transfers/transfer-receiver';
import { SHARD_SNAPSHOT_HOST, ShardSnapshotHost } from './snapshot-host';

/** The collection a coordinator routed with: its name, and its id to tell a re-created one apart. */
export interface RoutedCollection {
  id: string;
  name: string;
}

/** How long a peer waits for its own catalog (and storage) to catch up with a coordinator's. */
const CATCH_UP_MS = 2000;

/**
 * This peer's side of the data plane: what other peers ask of its own shards (`ShardUpdate`,
 * `ShardRead` of the peer service). Reads run the local services, which only see this peer's shards.
 */
@Injectable()
export class ShardEndpoint {
  constructor(
    private readonly contexts: CollectionContexts,
    private readonly reader: PointsReader,
    private readonly engine: QueryEngine,
    private readonly matrix: DistanceMatrixService,
    private readonly stats: CollectionStatsReporter,
    private readonly replicas: ReplicaWriter,
    private readonly localReplicas: LocalReplicas,
    private readonly receiver: TransferReceiver,
    @Optional() @Inject(POINTS_PEERS) private readonly peers?: PointsPeers,
    @Optional() private readonly moduleRef?: ModuleRef,
  ) {}

  /**
   * Applies a coordinator's part of a write to local shard `shardId`; its operation number. With
   * `lead`, this peer is the shard's ordering leader and passes it on to every replica. `epoch` is the
   * replica epoch the coordinator routed with (see {@link LocalReplicas}).
   */
  async update(
    collection: RoutedCollection,
    shardId: number,
    operation: UpdateOperation,
    lead = false,
    epoch?: number,
    tag?: ClockTag,
  ): Promise<number> {
    this.peers?.assertWritable();
    const context = await this.caughtUp(collection, lead ? [] : [shardId]);
    // No schema lock here: the coordinator holds its own for the whole request, and this peer may be
    // that coordinator (its replica is one of the targets); taking the shared side again could queue
    // behind an exclusive waiter that waits for the coordinator's: a deadlock across peers.
    if (lead) return this.replicas.lead(context, shardId, operation);
    return this.localReplicas.apply(collection, shardId, operation, epoch ?? epochOf(context.record), tag);
  }

  /** One numbered batch of a transfer's steps, this peer being the transfer's target. */
  transferApply(request: TransferApplyRequest): Promise<void> {
    this.peers?.assertWritable();
    return this.receiver.apply(request);
  }

  /** The checksum of each replica this peer holds of the collection, by shard id. */
  localChecksums(nameOrAlias: string): Map<number, ShardChecksum> {
    const context = this.contexts.resolve(nameOrAlias);
    return new Map([...context.storage.shards].map(([shardId, handle]) => [shardId, handle.shard.checksum()]));
  }

  /** The recovery point of this peer's replica of shard `shardId` (a WAL delta's target). */
  async recoveryPoint(collection: RoutedCollection, shardId: number): Promise<RecoveryPoint> {
    const context = await this.caughtUp(collection, [shardId], true);
    // A replica set aside as damaged holds nothing a delta could build on: it is copied whole.
    if (context.storage.damaged.has(shardId)) return damagedRecoveryPoint();
    const handle = context.storage.shards.get(shardId);
    if (!handle) throw notHere(collection, shardId);
    return handle.shard.recoveryPoint();
  }

  /** The checksum of this peer's replica of shard `shardId` (any state: comparing is the point). */
  async checksum(collection: RoutedCollection, shardId: number): Promise<ShardChecksum> {
    const context = await this.caughtUp(collection, [shardId]);
    const handle = context.storage.shards.get(shardId);
    if (!handle) throw notHere(collection, shardId);
    return handle.shard.checksum();
  }

  /**
   * Refuses a part for a replica this peer's catalog shows Dead (or gone): a coordinator whose catalog
   * lags must not count it toward `write_consistency_factor`, nor read from it.
   */
  private requireReplica(
    context: CollectionContext,
    shardId: number,
    states: ReadonlySet<ReplicaState>,
    what: string,
  ): void {
    const selfId = this.peers?.selfId;
    if (selfId === undefined) return;
    const replica = context.record.shards.find((s) => s.shardId === shardId && (s.peerId ?? selfId) === selfId);
    if (!replica || !states.has(replica.state)) {
      throw DomainError.failedPrecondition(
        `Failed precondition: the replica of shard ${shardId} of \`${context.record.name}\` on peer ${selfId} cannot ${what} (${replica?.state ?? 'not placed here'})`,
      );
    }
  }

  /** Runs a read over this peer's replicas of shards `shardIds` of the collection (and no other shard). */
  async read<K extends ShardRead['kind']>(
    collection: RoutedCollection,
    shardIds: readonly number[],
    read: Extract<ShardRead, { kind: K }>,
  ): Promise<ShardReadResults[K]> {
    // A snapshot part checks the replica itself (a restored one is not readable yet).
    const asked = read as ShardRead;
    if (asked.kind === 'snapshot') return (await this.snapshotHost().serve(collection, asked.request)) as never;
    const context = await this.caughtUp(collection, shardIds);
    for (const shardId of shardIds) this.requireReplica(context, shardId, READABLE_REPLICA_STATES, 'answer reads');
    return this.readLocal(context, shardIds, read);
  }

  /** A read over this peer's replicas of shards `shardIds` (the local services are synchronous). */
  readLocal<K extends ShardRead['kind']>(
    context: CollectionContext,
    shardIds: readonly number[],
    read: Extract<ShardRead, { kind: K }>,
  ): ShardReadResults[K] {
    const name = context.record.name;
    const run = read as ShardRead;
    if (run.kind === 'stats') return this.stats.statsFor(context.record, shardIds) as ShardReadResults[K];
    return this.contexts.scoped(context.record.id, shardIds, () => {
      switch (run.kind) {
        case 'get':
          return this.reader.get(name, run.request) as ShardReadResults[K];
        case 'scroll':
          return this.reader.scroll(name, run.request) as ShardReadResults[K];
        case 'count':
          return this.reader.count(name, run.request) as ShardReadResults[K];
        case 'facet':
          return this.reader.facetAll(name, run.request) as ShardReadResults[K];
        case 'query':
          return this.engine.query(name, run.request) as ShardReadResults[K];
        case 'sample':
          return this.matrix.sample(name, run.request) as ShardReadResults[K];
        case 'queries':
          return run.request.requests.map((request) => this.engine.query(name, request)) as ShardReadResults[K];
        case 'snapshot':
          throw DomainError.invalidArgument('Bad request: a snapshot part is not a local read');
      }
    });
  }

  /**
   * The collection as the coordinator routed it. A coordinator may be ahead of this peer's catalog
   * watch (a collection or shard just created): this peer waits a little for it to arrive.
   */
  private async caughtUp(
    collection: RoutedCollection,
    shardIds: readonly number[],
    damagedToo = false,
  ): Promise<CollectionContext> {
    const deadline = Date.now() + CATCH_UP_MS;
    for (;;) {
      const context = this.tryResolve(collection.name);
      const current = context?.record.id === collection.id;
      const damaged = current ? context.storage.damaged : undefined;
      const missing = current
        ? shardIds.find((id) => !context.storage.shards.has(id) && !(damagedToo && damaged?.has(id)))
        : undefined;
      if (current && missing === undefined) return context;
      // A replica set aside as damaged will not open by waiting: refused at once, naming the file.
      const damage = missing === undefined ? undefined : damaged?.get(missing);
      if (damage !== undefined) throw damagedReplicaError(collection.name, missing as number, damage);
      if (Date.now() >= deadline) {
        if (!context || !current)
          throw DomainError.notFound(`Not found: Collection \`${collection.name}\` doesn't exist!`);
        throw notHere(collection, missing as number);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The snapshots library's side of a cluster backup (bound by the app, outside this module). */
  private snapshotHost(): ShardSnapshotHost {
    const host = this.moduleRef?.get<ShardSnapshotHost>(SHARD_SNAPSHOT_HOST, { strict: false });
    if (!host) throw DomainError.unimplemented('This peer does not serve snapshot parts');
    return host;
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

function notHere(collection: RoutedCollection, shardId: number): DomainError {
  return DomainError.unavailable(
    `Service unavailable: shard ${shardId} of collection \`${collection.name}\` is not open on this peer`,
  );
}
