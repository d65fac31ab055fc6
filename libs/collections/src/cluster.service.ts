import { Inject, Injectable, Optional } from '@nestjs/common';
import { DomainError, ValidationIssues } from '@vectorstore/common';
import { CatalogState, resolveInState } from './catalog/catalog-state';
import { CollectionCatalog, collectionNotFound } from './catalog/collection-catalog';
import { CLUSTER_MEMBERSHIP, ClusterMembership, ClusterStatusView } from './cluster/cluster-membership';
import { PEER_ID } from './cluster/node-identity';
import {
  CollectionClusterInfo,
  describeShardKey,
  isShardOf,
  REPLICA_STATES,
  ShardRecord,
  ShardKey,
  shardKeyEquals,
} from './model/cluster.model';
import { CollectionRecord } from './model/collection.model';
import {
  ClusterSetupOperation,
  CreateShardKeyRequest,
  PeerMembershipOperation,
  PeerTransferOperation,
  ShardTransfer,
} from './model/requests.model';
import { COLLECTION_STATS_PROVIDER, CollectionStatsProvider, emptyShardStats } from './stats/collection-stats.provider';
import { checkCollectionNameReference } from './validation/name.rules';

/** A single node holds every shard; this is the most shards one key may ask for. */
export const MAX_SHARDS_PER_KEY = 1024;

/**
 * Shards and shard keys of the collections on this node. Custom sharding works on one node
 * (each key gets its own local shards); moving data between peers needs distributed mode.
 */
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
          for (const shard of record.shards) if (shard.peerId === peerId) shard.state = 'Dead';
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
   * shard itself), as Qdrant does, then shard keys are changed and peer operations refused.
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
    return this.rejectPeerOperation(operation.peerOperation);
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
      record.shards.splice(index, 1);
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
  ): Promise<void> {
    await this.catalog.mutate((draft) => {
      const record = [...draft.collections.values()].find((r) => r.id === collectionId);
      if (!record) return;
      for (const { shardId, peerId } of replicas) {
        const replica = record.shards.find((s) => s.shardId === shardId && s.peerId === peerId);
        if (!replica || replica.state === 'Dead') continue;
        const othersActive = record.shards.some((s) => s !== replica && s.shardId === shardId && s.state === 'Active');
        if (!othersActive)
          throw DomainError.unavailable(
            `Service unavailable: shard ${shardId} of ${record.name} has no other Active replica than the one on peer ${peerId}, which failed`,
          );
        replica.state = 'Dead';
      }
    });
  }

  /** Operations that need a second peer. */
  rejectPeerOperation(operation: PeerTransferOperation | PeerMembershipOperation): never {
    throw DomainError.unimplemented(`Vectorstore is running in standalone mode: ${operation} needs distributed mode`);
  }
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
