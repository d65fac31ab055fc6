import { Inject, Injectable, Optional } from '@nestjs/common';
import { DomainError, ValidationIssues } from '@vectorstore/common';
import { randomUUID } from 'node:crypto';
import { resolveInState } from './catalog/catalog-state';
import { CollectionCatalog, collectionNotFound } from './catalog/collection-catalog';
import { CLUSTER_MEMBERSHIP, ClusterMembership } from './cluster/cluster-membership';
import { applyCollectionUpdate, buildCollectionConfig } from './config/collection-config.builder';
import { configWarnings } from './config/config-warnings';
import { ShardRecord } from './model/cluster.model';
import { CollectionInfo, CollectionRecord } from './model/collection.model';
import { CreateCollectionRequest, UpdateCollectionRequest } from './model/requests.model';
import { COLLECTION_STATS_PROVIDER, CollectionStatsProvider } from './stats/collection-stats.provider';
import { validateCreateCollection, validateUpdateCollection } from './validation/collection-config.validator';
import { checkCollectionNameReference } from './validation/name.rules';

/** Creates, describes, changes and removes collections. */
@Injectable()
export class CollectionsService {
  constructor(
    private readonly catalog: CollectionCatalog,
    @Inject(COLLECTION_STATS_PROVIDER) private readonly stats: CollectionStatsProvider,
    @Optional() @Inject(CLUSTER_MEMBERSHIP) private readonly membership?: ClusterMembership,
  ) {}

  /** Returns true: a create either makes the collection or fails. */
  async create(input: CreateCollectionRequest): Promise<boolean> {
    // In a cluster an auto-sharded collection gets one shard per live peer unless it asks otherwise.
    const request =
      this.membership && input.shardNumber === undefined && input.shardingMethod !== 'Custom'
        ? { ...input, shardNumber: Math.max(1, this.membership.livePeerCount()) }
        : input;
    validateCreateCollection(request);
    const config = buildCollectionConfig(request);
    await this.membership?.probePeers?.();
    await this.catalog.mutate((draft) => {
      if (draft.collections.has(request.name)) {
        throw DomainError.alreadyExists(`Wrong input: Collection \`${request.name}\` already exists!`);
      }
      if (draft.aliases.has(request.name)) {
        throw DomainError.invalidArgument(
          `Wrong input: Can't create collection with name ${request.name}. Alias with the same name already exists`,
        );
      }
      const record: CollectionRecord = {
        id: randomUUID(),
        name: request.name,
        createdAt: new Date().toISOString(),
        config,
        shards: initialShards(request, (count) =>
          this.membership?.placeShards(count, draft, undefined, request.replicationFactor ?? 1),
        ),
        shardKeys: [],
        nextShardId: 0,
        ...(this.membership ? { router: 'Ring' as const } : {}),
      };
      record.nextShardId = record.shards.length;
      draft.collections.set(request.name, record);
    });
    return true;
  }

  /** Describes a collection by name or alias. */
  get(nameOrAlias: string): CollectionInfo {
    checkReference(nameOrAlias);
    const record = this.catalog.require(nameOrAlias);
    const { shards: _perShard, ...stats } = this.stats.statsFor(record);
    const warnings = [...stats.warnings, ...configWarnings(record.config)];
    return { ...stats, warnings, config: structuredClone(record.config) };
  }

  /**
   * Describes a collection by name or alias, counting every shard: in cluster mode the peers holding
   * other shards are asked (`get` counts this peer's own shards).
   */
  async describe(nameOrAlias: string): Promise<CollectionInfo> {
    checkReference(nameOrAlias);
    const record = this.catalog.require(nameOrAlias);
    const { shards: _perShard, ...stats } = this.stats.clusterStatsFor
      ? await this.stats.clusterStatsFor(record)
      : this.stats.statsFor(record);
    const warnings = [...stats.warnings, ...configWarnings(record.config)];
    return { ...stats, warnings, config: structuredClone(record.config) };
  }

  /**
   * Collection names, sorted (Qdrant keeps them in an ordered map); with `visible` (a caller with per-collection
   * access), only those it may see, as Qdrant filters its list.
   */
  list(visible?: ReadonlySet<string>): string[] {
    const names = [...this.catalog.snapshot.collections.keys()].sort(compareNames);
    return visible ? names.filter((name) => visible.has(name)) : names;
  }

  /** True for a collection or an alias name. */
  exists(nameOrAlias: string): boolean {
    checkReference(nameOrAlias);
    return this.catalog.resolve(nameOrAlias) !== undefined;
  }

  /** Merges each diff into the stored configuration; the name may be an alias. */
  async update(request: UpdateCollectionRequest): Promise<boolean> {
    validateUpdateCollection(request);
    await this.catalog.mutate((draft) => {
      const record = resolveInState(draft, request.name);
      if (!record) throw collectionNotFound(request.name);
      const next = applyCollectionUpdate(record.config, request);
      // Cluster mode: a raised replication factor is a request for more replicas, which the leader then adds.
      if (this.membership && next.params.replicationFactor > record.config.params.replicationFactor)
        record.growReplicas = true;
      record.config = next;
    });
    return true;
  }

  /**
   * Removes a collection and every alias pointing at it. An unknown name (aliases are not
   * resolved here, as in Qdrant) answers false rather than failing, so cleanup code can call it freely.
   */
  async delete(name: string, timeout?: number): Promise<boolean> {
    const issues = new ValidationIssues();
    checkCollectionNameReference(issues, 'collection_name', name);
    issues.range('timeout', timeout, 1);
    issues.throwIfAny();
    return this.catalog.mutate((draft) => {
      if (!draft.collections.delete(name)) return false;
      for (const [alias, target] of draft.aliases) {
        if (target === name) draft.aliases.delete(alias);
      }
      return true;
    });
  }
}

function initialShards(
  request: CreateCollectionRequest,
  place: (count: number) => string[][] | undefined,
): ShardRecord[] {
  // Custom sharding starts with no shards; each shard key brings its own.
  if (request.shardingMethod === 'Custom') return [];
  const count = request.shardNumber ?? 1;
  const peers = place(count);
  // Standalone: one record per shard (this server holds it); cluster: one per replica, each on its peer.
  if (!peers) return Array.from({ length: count }, (_, shardId) => ({ shardId, state: 'Active' as const }));
  return peers.flatMap((replicas, shardId) =>
    replicas.map((peerId) => ({ shardId, state: 'Active' as const, peerId })),
  );
}

function checkReference(name: string): void {
  const issues = new ValidationIssues();
  checkCollectionNameReference(issues, 'collection_name', name);
  issues.throwIfAny();
}

/** Byte-wise order, like Rust's BTreeMap<String, _>. */
function compareNames(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
