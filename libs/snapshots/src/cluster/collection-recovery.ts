import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { CLUSTER_MEMBERSHIP, ClusterMembership, CollectionCatalog, PEER_ID } from '@vectorstore/collections';
import { DomainError } from '@vectorstore/common';
import { readCollectionTree, shardIdsOf } from './collection-tree';
import { SnapshotPriority } from './recovery-priority';
import { putRestoredRecord } from './restored-placement';
import { ShardRecovery } from './shard-recovery';

/**
 * A collection snapshot recovered on one peer of a cluster, as Qdrant's `_do_recover_from_snapshot`: the
 * collection is made from the snapshot's config when it does not exist (its shards placed over the live peers as
 * a create would); an existing one must have the same shards and router. Then each shard the snapshot holds data
 * for and this peer holds a replica of is recovered with `priority` (recovery-priority.ts); the others are left as
 * they are. So a collection snapshot restores the shards of the peer it is recovered on: recover each peer's
 * snapshot on a peer holding the same shards, or use a cluster backup (docs/cluster.md).
 */
@Injectable()
export class CollectionRecovery {
  private readonly logger = new Logger(CollectionRecovery.name);

  constructor(
    private readonly catalog: CollectionCatalog,
    private readonly shards: ShardRecovery,
    @Inject(PEER_ID) private readonly selfId: string,
    @Optional() @Inject(CLUSTER_MEMBERSHIP) private readonly membership?: ClusterMembership,
  ) {}

  /** Recovers collection `name` from the `collection/` tree `treeDir` of an extracted collection snapshot. */
  async recover(name: string, treeDir: string, priority: SnapshotPriority | undefined): Promise<void> {
    const tree = await readCollectionTree(treeDir);
    let record = this.catalog.resolve(name);
    if (record === undefined) {
      if (this.catalog.snapshot.aliases.has(name))
        throw DomainError.invalidArgument(
          `Wrong input: Can't create collection with name ${name}. Alias with the same name already exists`,
        );
      await this.membership?.probePeers?.();
      record = await this.catalog.mutate((draft) => {
        const existing = draft.collections.get(name);
        // The shards the snapshot holds go on this peer (among their replicas): it is the one with their data.
        return (
          existing ??
          putRestoredRecord(draft, tree.record, name, this.membership, {
            first: 'Active',
            others: 'Active',
            holder: { peerId: this.selfId, shardIds: tree.shardIds },
          })
        );
      });
    } else {
      const have = shardIdsOf(record);
      const snapshot = shardIdsOf(tree.record);
      if (have.join(',') !== snapshot.join(','))
        throw DomainError.invalidArgument(
          `Bad request: Snapshot is not compatible with existing collection: Collection shards: ${have.join(', ')} Snapshot shards: ${snapshot.join(', ')}`,
        );
      if ((record.router ?? 'sha1-mod') !== (tree.record.router ?? 'sha1-mod'))
        throw DomainError.invalidArgument(
          `Bad request: Snapshot is not compatible with existing collection: its points are routed to shards by ${describeRouter(tree.record.router)}, the collection's by ${describeRouter(record.router)}`,
        );
    }
    const target = record;
    const local = tree.shardIds.filter((id) => target.shards.some((s) => s.shardId === id && s.peerId === this.selfId));
    const skipped = tree.shardIds.filter((id) => !local.includes(id));
    if (local.length === 0 && skipped.length > 0)
      throw DomainError.invalidArgument(
        `Bad request: none of the snapshot's shards (${skipped.join(', ')}) has a replica on this peer (${this.selfId}); recover it on a peer holding them (GET /collections/${target.name}/cluster lists where they are)`,
      );
    for (const shardId of local)
      await this.shards.recoverFromCollectionTree(target.name, shardId, treeDir, tree.record, priority);
    if (skipped.length > 0)
      this.logger.warn(
        `collection ${target.name}: the snapshot's shards ${skipped.join(', ')} have no replica on this peer and were not recovered`,
      );
  }
}

function describeRouter(router: 'Ring' | undefined): string {
  return router === 'Ring' ? 'a consistent-hash ring' : 'sha1 % shards';
}
