import { Inject, Injectable, Optional } from '@nestjs/common';
import { serialize } from 'node:v8';
import { DomainError, isDomainError, ValidationIssues } from '@vectorstore/common';
import { CatalogState, resolveInState } from './catalog/catalog-state';
import { CollectionCatalog, collectionNotFound } from './catalog/collection-catalog';
import { CLUSTER_MEMBERSHIP, ClusterMembership, ClusterStatusView } from './cluster/cluster-membership';
import { PEER_ID } from './cluster/node-identity';
import {
  abortTransfer,
  abortTransfersOf,
  findTransfer,
  finishTransfer,
  PeerStanding,
  restartTransfer,
  startTransfer,
  TransferStart,
} from './cluster/shard-transfers';
import {
  CollectionClusterInfo,
  describeShardKey,
  isShardOf,
  REPLICA_STATES,
  ReplicaState,
  ShardRecord,
  ShardKey,
  shardKeyEquals,
  ShardTransferKey,
  ShardTransferRecord,
  TransferMethod,
} from './model/cluster.model';
import { CollectionRecord } from './model/collection.model';
import {
  ClusterSetupOperation,
  CreateShardKeyRequest,
  PeerMembershipOperation,
  PeerTransferOperation,
  ReplicatePointsRequest,
  ShardTransfer,
  StartResharding,
} from './model/requests.model';
import {
  abortResharding,
  commitReadRing,
  commitWriteRing,
  finishAbort,
  finishResharding,
  reshardingInfo,
  startResharding,
} from './cluster/resharding';
import { COLLECTION_STATS_PROVIDER, CollectionStatsProvider, emptyShardStats } from './stats/collection-stats.provider';
import { checkCollectionNameReference } from './validation/name.rules';

/** A single node holds every shard; this is the most shards one key may ask for. */
export const MAX_SHARDS_PER_KEY = 1024;

/**
 * Shards and shard keys of the collections on this node. Custom sharding works on one node
 * (each key gets its own local shards); moving data between peers needs distributed mode.
 */
/** States of a replica that holds its shard's points and takes its writes: what a shard must keep one of. */
const SERVING_STATES: ReadonlySet<string> = new Set(['Active', 'Resharding', 'ReshardingScaleDown']);

@Injectable()
export class ClusterService {
  constructor(
    private readonly catalog: CollectionCatalog,
    @Inject(PEER_ID) private readonly peerId: string,
    @Inject(COLLECTION_STATS_PROVIDER) private readonly stats: CollectionStatsProvider,
    @Optional() @Inject(CLUSTER_MEMBERSHIP) private readonly membership?: ClusterMembership,
  ) {}

  /** The peers and this peer's standing in cluster mode; undefined when standalone. */
  status(): ClusterStatusView | undefined {
    return this.membership?.status();
  }

  clusterInfo(collectionName: string): CollectionClusterInfo {
    checkName(collectionName);
    const record = this.catalog.require(collectionName);
    const { shards } = this.stats.statsFor(record);
    const sorted = [...record.shards].sort((a, b) => a.shardId - b.shardId);
    return {
      peerId: this.peerId,
      shardCount: new Set(record.shards.map((shard) => shard.shardId)).size,
      localShards: sorted
        .filter((shard) => isShardOf(shard, this.peerId))
        .map((shard) => ({ ...(shards[shard.shardId] ?? emptyShardStats()), ...shard })),
      remoteShards: sorted
        .filter((shard): shard is ShardRecord & { peerId: string } => !isShardOf(shard, this.peerId))
        .map((shard) => ({ ...shard })),
      reshardingOperations: reshardingInfo(record),
      shardTransfers: (record.transfers ?? []).map((transfer) => ({
        shardId: transfer.shardId,
        ...(transfer.toShardId !== undefined ? { toShardId: transfer.toShardId } : {}),
        from: transfer.from,
        to: transfer.to,
        sync: transfer.sync,
        method: transfer.method,
        ...(this.transferProgress ? { comment: this.transferProgress(record.id, transfer) } : {}),
      })),
    };
  }

  /** The collection's shard keys; undefined when it shards automatically (REST then leaves the list out). */
  listShardKeysIfCustom(collectionName: string): ShardKey[] | undefined {
    checkName(collectionName);
    const record = this.catalog.require(collectionName);
    return record.config.params.shardingMethod === 'Custom' ? record.shardKeys.map((entry) => entry.key) : undefined;
  }

  listShardKeys(collectionName: string): ShardKey[] {
    checkName(collectionName);
    return this.catalog.require(collectionName).shardKeys.map((entry) => entry.key);
  }

  async createShardKey(collectionName: string, request: CreateShardKeyRequest, timeout?: number): Promise<boolean> {
    const issues = new ValidationIssues();
    checkCollectionNameReference(issues, 'collection_name', collectionName);
    issues.range('timeout', timeout, 1);
    issues.range('request.shards_number', request.shardsNumber, 1, MAX_SHARDS_PER_KEY);
    issues.range('request.replication_factor', request.replicationFactor, 1);
    if (
      !this.membership &&
      request.placement &&
      request.placement.length > 0 &&
      !request.placement.includes(this.peerId)
    ) {
      issues.add(
        'request.placement',
        `must include this node's peer id ${this.peerId} (the only peer in standalone mode)`,
      );
    }
    issues.oneOf('request.initial_state', request.initialState, REPLICA_STATES);
    if ('keyword' in request.shardKey && request.shardKey.keyword.length === 0) {
      issues.add('request.shard_key.keyword', 'must not be empty');
    }
    issues.throwIfAny();
    await this.membership?.probePeers?.();
    await this.catalog.mutate((draft) => {
      const record = resolveDraft(draft, collectionName);
      assertCustomSharding(record);
      if (record.shardKeys.some((entry) => shardKeyEquals(entry.key, request.shardKey))) {
        throw DomainError.alreadyExists(`Wrong input: Shard key ${describeShardKey(request.shardKey)} already exists`);
      }
      const shardsNumber = request.shardsNumber ?? record.config.params.shardNumber;
      const replicationFactor = request.replicationFactor ?? record.config.params.replicationFactor;
      const peers = this.membership?.placeShards(
        shardsNumber,
        draft,
        request.placement && request.placement.length > 0 ? request.placement : undefined,
        replicationFactor,
      );
      for (let i = 0; i < shardsNumber; i++) {
        const shardId = record.nextShardId++;
        const state = request.initialState ?? 'Active';
        if (!peers) record.shards.push({ shardId, state, shardKey: request.shardKey });
        else for (const peerId of peers[i]) record.shards.push({ shardId, state, shardKey: request.shardKey, peerId });
      }
      record.shardKeys.push({
        key: request.shardKey,
        shardsNumber,
        replicationFactor: request.replicationFactor ?? record.config.params.replicationFactor,
      });
    });
    return true;
  }

  /**
   * `DELETE /cluster/peer/{id}`: as Qdrant, a peer holding shards is removed only with `force`; its
   * replicas are then marked Dead (a shard with no other replica has lost its points).
   * Standalone there is no other peer to remove.
   */
  async removePeer(peerId: string, force: boolean): Promise<boolean> {
    if (!this.membership) return this.rejectPeerOperation('removePeer');
    if (peerId === this.peerId)
      throw DomainError.invalidArgument(`Peer ${peerId} cannot remove itself: ask another peer to remove it`);
    const holding = [...this.catalog.snapshot.collections.values()].filter((record) =>
      record.shards.some((shard) => shard.peerId === peerId),
    );
    if (holding.length > 0 && !force)
      throw DomainError.invalidArgument(`Cannot remove peer ${peerId} as there are shards on it`);
    await this.membership.retirePeer(peerId);
    if (holding.length > 0) {
      await this.catalog.mutate((draft) => {
        for (const record of draft.collections.values())
          for (const shard of [...record.shards])
            if (shard.peerId === peerId) {
              abortTransfersOf(record, shard.shardId, peerId);
              const still = record.shards.find((s) => s.shardId === shard.shardId && s.peerId === peerId);
              if (still) still.state = 'Dead';
            }
      });
    }
    return true;
  }

  async deleteShardKey(collectionName: string, shardKey: ShardKey, timeout?: number): Promise<boolean> {
    const issues = new ValidationIssues();
    checkCollectionNameReference(issues, 'collection_name', collectionName);
    issues.range('timeout', timeout, 1);
    issues.throwIfAny();
    await this.catalog.mutate((draft) => {
      const record = resolveDraft(draft, collectionName);
      assertCustomSharding(record);
      const index = record.shardKeys.findIndex((entry) => shardKeyEquals(entry.key, shardKey));
      if (index < 0) throw DomainError.notFound(`Not found: Shard key ${describeShardKey(shardKey)} does not exist`);
      record.shardKeys.splice(index, 1);
      record.shards = record.shards.filter((shard) => !shard.shardKey || !shardKeyEquals(shard.shardKey, shardKey));
    });
    return true;
  }

  /**
   * One change of the cluster setup. The request is validated first (timeout, a transfer to the
   * shard itself), as Qdrant does, then shard keys are changed, transfers started or ended.
   */
  async updateClusterSetup(
    collectionName: string,
    operation: ClusterSetupOperation,
    timeout?: number,
  ): Promise<boolean> {
    const issues = new ValidationIssues();
    issues.range('timeout', timeout, 1);
    if ('peerOperation' in operation && operation.transfer) {
      checkTransferPeers(issues, PEER_OPERATION_FIELDS[operation.peerOperation], operation.transfer);
    }
    issues.throwIfAny();
    if ('createShardKey' in operation) return this.createShardKey(collectionName, operation.createShardKey, timeout);
    if ('deleteShardKey' in operation) return this.deleteShardKey(collectionName, operation.deleteShardKey, timeout);
    if ('dropReplica' in operation) return this.dropReplica(collectionName, operation.dropReplica);
    if ('replicatePoints' in operation) return this.replicatePoints(collectionName, operation.replicatePoints);
    const { peerOperation, transfer } = operation;
    if (!this.membership) return this.rejectPeerOperation(peerOperation);
    switch (peerOperation) {
      case 'moveShard':
      case 'replicateShard':
        return this.startUserTransfer(collectionName, requireTransfer(transfer), peerOperation === 'replicateShard');
      case 'abortTransfer':
        await this.mutateCollection(collectionName, (record) =>
          abortTransfer(record, transferKey(requireTransfer(transfer)), true),
        );
        return true;
      case 'restartTransfer': {
        const restart = requireTransfer(transfer);
        if (restart.method === undefined)
          throw DomainError.validation(['restart_transfer.method: field is required'], 'body');
        await this.mutateCollection(collectionName, (record) =>
          restartTransfer(record, transferKey(restart), restart.method as TransferMethod, new Date()),
        );
        return true;
      }
      case 'startResharding':
        return this.startResharding(collectionName, operation.resharding);
      case 'abortResharding':
        await this.mutateCollection(collectionName, (record) => abortResharding(record, new Date()));
        return true;
      default:
        throw DomainError.unimplemented(
          `Cluster mode does not support ${PEER_OPERATION_FIELDS[peerOperation]} (docs/cluster.md)`,
        );
    }
  }

  /** `start_resharding`: one shard more (Up) or fewer (Down) in the collection, or in one shard key's shards. */
  private async startResharding(collectionName: string, request: StartResharding | undefined): Promise<boolean> {
    if (!request) throw DomainError.validation(['start_resharding.direction: field is required'], 'body');
    if (request.peerId !== undefined) {
      const standing = await this.standings([request.peerId]);
      const peer = standing(request.peerId);
      if (peer !== 'live')
        throw DomainError.invalidArgument(
          peer === 'unknown'
            ? `Bad request: Peer ${request.peerId} does not exist`
            : `Bad request: Peer ${request.peerId} is not live`,
        );
    } else {
      await this.membership?.probePeers?.();
    }
    await this.catalog.mutate((draft) => {
      const record = resolveDraft(draft, collectionName);
      // The named peer first, then the least loaded live ones.
      const place = (count: number, first?: string) => {
        const placed = this.membership!.placeShards(1, draft, undefined, count + 1)[0];
        return [...new Set([...(first === undefined ? [] : [first]), ...placed])].slice(0, count);
      };
      startResharding(record, request, place, new Date());
    });
    return true;
  }

  /** Resharding, as the replication layer steps it (see cluster/resharding.ts); each a no-op once it moved on. */
  async stepResharding(
    collectionId: string,
    step: 'commitRead' | 'commitWrite' | 'finish' | 'finishAbort' | 'abort',
  ): Promise<void> {
    await this.catalog.mutate((draft) => {
      const record = byId(draft, collectionId);
      if (!record?.resharding) return;
      const now = new Date();
      switch (step) {
        case 'commitRead':
          if (record.resharding.stage === 'MigratingPoints') commitReadRing(record, now);
          return;
        case 'commitWrite':
          if (record.resharding.stage === 'ReadHashRingCommitted') commitWriteRing(record, now);
          return;
        case 'finish':
          if (record.resharding.stage === 'WriteHashRingCommitted') finishResharding(record);
          return;
        case 'finishAbort':
          if (record.resharding.stage === 'Aborting') finishAbort(record);
          return;
        case 'abort':
          if (record.resharding.stage !== 'WriteHashRingCommitted') abortResharding(record, now);
          return;
      }
    });
  }

  /** `move_shard` (sync false) or `replicate_shard` (sync true), asked by an operator. */
  private async startUserTransfer(collectionName: string, transfer: ShardTransfer, sync: boolean): Promise<boolean> {
    const standing = await this.standings([transfer.fromPeerId, transfer.toPeerId]);
    await this.mutateCollection(collectionName, (record) =>
      startTransfer(
        record,
        {
          ...transferKey(transfer),
          sync,
          method: transfer.method ?? 'StreamRecords',
          reason: 'user',
        },
        standing,
        new Date(),
      ),
    );
    return true;
  }

  /**
   * `replicate_points`: the points of a shard key with one shard (those matching the filter) are copied into the
   * one replica of another shard key, as Qdrant's tenant promotion; a filter needs the StreamRecords method.
   */
  async replicatePoints(collectionName: string, request: ReplicatePointsRequest): Promise<boolean> {
    if (!this.membership) return this.rejectPeerOperation('replicatePoints');
    const record = this.requireResolved(collectionName);
    assertCustomSharding(record);
    const shardsOf = (key: ShardKey) => {
      if (!record.shardKeys.some((entry) => shardKeyEquals(entry.key, key)))
        throw DomainError.invalidArgument(
          `Wrong input: Shard key ${'keyword' in key ? key.keyword : key.number} does not exist for collection ${record.name}`,
        );
      return record.shards.filter((shard) => shard.shardKey && shardKeyEquals(shard.shardKey, key));
    };
    const from = shardsOf(request.fromShardKey);
    const fromShards = new Set(from.map((shard) => shard.shardId));
    if (fromShards.size !== 1)
      throw DomainError.invalidArgument(
        `Bad request: Only replicating from shard keys with exactly one shard is supported. Shard key ${describeShardKey(request.fromShardKey)} has ${fromShards.size} shards`,
      );
    const to = shardsOf(request.toShardKey);
    if (to.length !== 1)
      throw DomainError.invalidArgument(
        `Bad request: Only replicating to shard keys with exactly one replica is supported. Shard key ${describeShardKey(request.toShardKey)} has ${to.length} replicas`,
      );
    const source = from.find((shard) => shard.state === 'Active') ?? from[0];
    const target = to[0];
    const standing = await this.standings([source.peerId ?? this.peerId, target.peerId ?? this.peerId]);
    await this.mutateCollection(collectionName, (draft) =>
      startTransfer(
        draft,
        {
          shardId: source.shardId,
          toShardId: target.shardId,
          from: source.peerId ?? this.peerId,
          to: target.peerId ?? this.peerId,
          sync: true,
          method: 'StreamRecords',
          reason: 'user',
          filter: serialize(request.filter ?? {}).toString('base64'),
        },
        standing,
        new Date(),
      ),
    );
    return true;
  }

  /**
   * Starts transfers the replication layer decided on (recovery of Dead replicas, missing replicas), in one
   * catalog change; each is checked as an operator's would be, and those that no longer fit are skipped.
   */
  async beginTransfers(collectionId: string, starts: readonly TransferStart[]): Promise<ShardTransferRecord[]> {
    const peers = [...new Set(starts.flatMap((start) => [start.from, start.to]))];
    const standing = await this.standings(peers);
    return this.catalog.mutate((draft) => {
      const record = byId(draft, collectionId);
      if (!record) return [];
      const begun: ShardTransferRecord[] = [];
      for (const start of starts) {
        try {
          begun.push(startTransfer(record, start, standing, new Date()));
        } catch (error) {
          if (!isDomainError(error)) throw error;
        }
      }
      return begun;
    });
  }

  /**
   * The source reports the transfer done: the target is Active (and a move's source replica gone). Returns the
   * replica epoch the collection has from this change on (a finish always changes routing, so it is one more).
   */
  async finishTransfer(collectionId: string, key: ShardTransferKey, startedAt: string): Promise<number> {
    return this.catalog.mutate((draft) => {
      const record = byId(draft, collectionId);
      if (!record) throw DomainError.notFound(`Not found: collection ${collectionId} is gone`);
      const epoch = (record.replicaEpoch ?? 0) + 1;
      finishTransfer(record, key, startedAt);
      return epoch;
    });
  }

  /** Every shard has the replicas a raised replication factor asked for: the leader stops adding them. */
  async replicasGrown(collectionId: string): Promise<void> {
    await this.catalog.mutate((draft) => {
      const record = byId(draft, collectionId);
      if (record) delete record.growReplicas;
    });
  }

  /**
   * The source found the transfer's method cannot do it (a WAL delta whose log no longer reaches back): it runs
   * again from the start with `method`, as a new run. Nothing when the run ended meanwhile.
   */
  async switchTransferMethod(
    collectionId: string,
    key: ShardTransferKey,
    startedAt: string,
    method: TransferMethod,
  ): Promise<void> {
    await this.catalog.mutate((draft) => {
      const record = byId(draft, collectionId);
      const transfer = record && findTransfer(record, key);
      if (!record || !transfer || transfer.startedAt !== startedAt) return;
      restartTransfer(record, key, method, new Date());
    });
  }

  /** A transfer failed (a peer died, the stream broke, the leader found it stalled): it ends, its target Dead. */
  async failTransfer(collectionId: string, key: ShardTransferKey, startedAt?: string): Promise<void> {
    await this.catalog.mutate((draft) => {
      const record = byId(draft, collectionId);
      const transfer = record && findTransfer(record, key);
      if (!record || !transfer || (startedAt !== undefined && transfer.startedAt !== startedAt)) return;
      abortTransfer(record, key, false);
    });
  }

  private async standings(peerIds: readonly string[]): Promise<(peerId: string) => PeerStanding> {
    const membership = this.membership;
    const known = new Map<string, PeerStanding>();
    for (const peerId of new Set(peerIds))
      known.set(
        peerId,
        membership ? await membership.peerStanding(peerId) : peerId === this.peerId ? 'live' : 'unknown',
      );
    return (peerId) => known.get(peerId) ?? 'unknown';
  }

  private requireResolved(collectionName: string): CollectionRecord {
    checkName(collectionName);
    return this.catalog.require(collectionName);
  }

  /** Runs `change` on the collection's record in a catalog change (NOT_FOUND when it is gone). */
  private mutateCollection<T>(collectionName: string, change: (record: CollectionRecord) => T): Promise<T> {
    checkName(collectionName);
    return this.catalog.mutate((draft) => change(resolveDraft(draft, collectionName)));
  }

  /**
   * Removes one replica of a shard (cluster mode), as Qdrant's `drop_replica`: refused for a replica
   * that does not exist and for the last Active one (its points would be gone). The peer that held it
   * deletes its data when its catalog shows the replica gone.
   */
  async dropReplica(collectionName: string, replica: { shardId: number; peerId: string }): Promise<boolean> {
    if (!this.membership) return this.rejectPeerOperation('dropReplica');
    await this.catalog.mutate((draft) => {
      const record = resolveDraft(draft, collectionName);
      if (!record.shards.some((s) => s.shardId === replica.shardId))
        throw DomainError.invalidArgument(`Bad request: Shard ${replica.shardId} of ${record.name} not found`);
      const index = record.shards.findIndex((s) => s.shardId === replica.shardId && s.peerId === replica.peerId);
      if (index < 0)
        throw DomainError.invalidArgument(
          `Bad request: Peer ${replica.peerId} has no replica of shard ${replica.shardId}`,
        );
      const othersActive = record.shards.some(
        (s, i) => i !== index && s.shardId === replica.shardId && s.state === 'Active',
      );
      if (!othersActive)
        throw DomainError.invalidArgument(
          `Bad request: Shard ${replica.shardId} of ${record.name} has no other Active replica; dropping the replica on peer ${replica.peerId} would lose its points`,
        );
      abortTransfersOf(record, replica.shardId, replica.peerId);
      const still = record.shards.findIndex((s) => s.shardId === replica.shardId && s.peerId === replica.peerId);
      if (still >= 0) record.shards.splice(still, 1);
      // The operator wants fewer replicas than the factor: the leader must not add them back.
      delete record.growReplicas;
    });
    return true;
  }

  /**
   * Marks replicas that failed to take a write Dead (cluster mode), so that no read or write counts on
   * them again until they are recovered. Done before the write is acknowledged without them; never to
   * a shard's last Active replica (then the write fails instead). Unknown or already Dead replicas are
   * skipped; a collection deleted meanwhile has nothing to mark.
   */
  async markReplicasDead(
    collectionId: string,
    replicas: ReadonlyArray<{ shardId: number; peerId: string }>,
    /** Replicas in these states are left as they are (judged on the catalog of the change, not a caller's copy). */
    unlessIn?: ReadonlySet<ReplicaState>,
  ): Promise<void> {
    await this.catalog.mutate((draft) => {
      const record = [...draft.collections.values()].find((r) => r.id === collectionId);
      if (!record) return;
      for (const { shardId, peerId } of replicas) {
        const replica = record.shards.find((s) => s.shardId === shardId && s.peerId === peerId);
        if (!replica || replica.state === 'Dead' || unlessIn?.has(replica.state)) continue;
        // A resharding's shards have no Active replica while it runs: their other replicas in its states count.
        const othersActive = record.shards.some(
          (s) => s !== replica && s.shardId === shardId && SERVING_STATES.has(s.state),
        );
        if (!othersActive)
          throw DomainError.unavailable(
            `Service unavailable: shard ${shardId} of ${record.name} has no other Active replica than the one on peer ${peerId}, which failed`,
          );
        abortTransfersOf(record, shardId, peerId);
        replica.state = 'Dead';
      }
    });
  }

  /**
   * `POST /cluster/recover`: Qdrant has a peer fetch the Raft state again. Standalone has none; in cluster mode the
   * metadata lives in etcd, and a peer re-reads it by itself whenever its watch is lost, so there is nothing to ask.
   */
  recoverRaftState(): never {
    if (!this.membership) return this.rejectPeerOperation('recoverRaftState');
    throw DomainError.unimplemented(
      'Cluster mode keeps its metadata in etcd: a peer has no Raft state of its own to recover (it re-reads the catalog by itself whenever its watch is lost)',
    );
  }

  /** Operations that need a second peer. */
  rejectPeerOperation(operation: PeerTransferOperation | PeerMembershipOperation): never {
    throw DomainError.unimplemented(`Vectorstore is running in standalone mode: ${operation} needs distributed mode`);
  }

  /**
   * Where cluster info gets a running transfer's progress note (the replication layer, which runs transfers);
   * a note is only known on the transfer's source peer, so others show none.
   */
  transferProgress: ((collectionId: string, transfer: ShardTransferRecord) => string | undefined) | undefined;
}

/** Each peer operation's field in Qdrant's request, which validation messages name. */
const PEER_OPERATION_FIELDS: Record<PeerTransferOperation, string> = {
  moveShard: 'move_shard',
  replicateShard: 'replicate_shard',
  abortTransfer: 'abort_transfer',
  dropReplica: 'drop_replica',
  restartTransfer: 'restart_transfer',
  replicatePoints: 'replicate_points',
  startResharding: 'start_resharding',
  abortResharding: 'abort_resharding',
};

/** A shard cannot be transferred to itself: same peer and same shard (Qdrant's rule and words). */
function checkTransferPeers(issues: ValidationIssues, path: string, transfer: ShardTransfer): void {
  if (transfer.fromPeerId !== transfer.toPeerId) return;
  if (transfer.toShardId !== undefined && transfer.toShardId !== transfer.shardId) return;
  issues.add(
    `${path}.to_peer_id`,
    `cannot transfer shard to itself, "to_peer_id" must be different than ${transfer.fromPeerId} in "from_peer_id"`,
  );
}

function requireTransfer(transfer: ShardTransfer | undefined): ShardTransfer {
  if (!transfer) throw DomainError.invalidArgument('Bad request: the operation names no shard transfer');
  return transfer;
}

function transferKey(transfer: ShardTransfer): ShardTransferKey {
  return {
    shardId: transfer.shardId,
    ...(transfer.toShardId !== undefined && transfer.toShardId !== transfer.shardId
      ? { toShardId: transfer.toShardId }
      : {}),
    from: transfer.fromPeerId,
    to: transfer.toPeerId,
  };
}

function byId(draft: CatalogState, collectionId: string): CollectionRecord | undefined {
  return [...draft.collections.values()].find((record) => record.id === collectionId);
}

function resolveDraft(draft: CatalogState, name: string): CollectionRecord {
  const record = resolveInState(draft, name);
  if (!record) throw collectionNotFound(name);
  return record;
}

function assertCustomSharding(record: CollectionRecord): void {
  if (record.config.params.shardingMethod !== 'Custom') {
    throw DomainError.failedPrecondition(
      `Collection \`${record.name}\` uses automatic sharding; shard keys need sharding_method Custom`,
    );
  }
}

function checkName(name: string): void {
  const issues = new ValidationIssues();
  checkCollectionNameReference(issues, 'collection_name', name);
  issues.throwIfAny();
}
