import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import {
  CLUSTER_MEMBERSHIP,
  ClusterMembership,
  CollectionCatalog,
  CollectionRecord,
  PEER_ID,
} from '@vectorstore/collections';
import { DomainError, stringifyJson } from '@vectorstore/common';
import { APP_CONFIG, AppConfig } from '@vectorstore/config';
import { CollectionSnapshots } from '@vectorstore/points';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { readSnapshot } from '../snapshot-reader';
import { MAX_SNAPSHOT_BYTES } from '../snapshot-limits';
import { notLocalShard, prepareRecovery, settleRecovery, SnapshotPriority } from './recovery-priority';

/**
 * Recovers this peer's replica of one shard from a snapshot. Standalone, the shard's data is replaced. In cluster
 * mode the replica must be here, and the recovery's `priority` then decides, as in Qdrant, what the other
 * replicas of the shard do (see recovery-priority.ts): the leader's healing copies whichever side lost again.
 */
@Injectable()
export class ShardRecovery {
  private readonly logger = new Logger(ShardRecovery.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly catalog: CollectionCatalog,
    private readonly collections: CollectionSnapshots,
    @Inject(PEER_ID) private readonly selfId: string,
    @Optional() @Inject(CLUSTER_MEMBERSHIP) private readonly membership?: ClusterMembership,
  ) {}

  private get tempDir(): string {
    return path.join(this.config.snapshotsDir, 'tmp');
  }

  /** In cluster mode, throws Qdrant's 400 unless this peer holds a replica of shard `shardId`. */
  assertLocal(record: CollectionRecord, shardId: number): void {
    if (!this.membership) return;
    if (!record.shards.some((s) => s.shardId === shardId && s.peerId === this.selfId)) throw notLocalShard(shardId);
  }

  /**
   * Restores shard `shardId` of a collection from the shard snapshot archive `archive` (a `shard` archive, or a
   * cluster backup's shard file), checked against `checksum` first.
   */
  async recoverFromArchive(
    collection: string,
    shardId: number,
    archive: string,
    options: { checksum?: string; requireChecksum: boolean; priority?: SnapshotPriority },
  ): Promise<void> {
    this.assertLocal(this.catalog.require(collection), shardId);
    const extracted = await readSnapshot(archive, {
      extractParent: this.tempDir,
      checksum: options.checksum,
      requireChecksum: options.requireChecksum,
      maxTotalBytes: MAX_SNAPSHOT_BYTES,
    });
    try {
      if (extracted.manifest.kind !== 'shard') {
        throw DomainError.invalidArgument(
          `Bad request: invalid snapshot archive: a ${extracted.manifest.kind} snapshot cannot restore a shard`,
        );
      }
      await this.recoverFromTree(collection, shardId, path.join(extracted.dir, 'collection'), options.priority);
    } finally {
      await fs.rm(extracted.dir, { recursive: true, force: true });
    }
    this.logger.log(`shard ${shardId} of ${collection} recovered from snapshot ${path.basename(archive)}`);
  }

  /**
   * Restores shard `shardId` from a shard snapshot tree (`config.json` with a one-shard record, `shards/<id>/`).
   * Cluster mode: the replicas' states change around the restore as `priority` says (default `snapshot`).
   */
  async recoverFromTree(
    collection: string,
    shardId: number,
    treeDir: string,
    priority: SnapshotPriority = 'snapshot',
  ): Promise<void> {
    if (!this.membership) return this.collections.restoreShard(collection, shardId, treeDir);
    const { id } = this.catalog.require(collection);
    this.assertLocal(this.catalog.require(collection), shardId);
    await this.mutateRecord(id, (record) => prepareRecovery(record, shardId, this.selfId, priority));
    // A failure here leaves the replica as it was (the restore swaps it in only once it opens); one made Dead for
    // `replica` priority is recovered from the other replicas by the leader, which is what that priority asks.
    await this.collections.restoreShard(collection, shardId, treeDir);
    const { dead } = await this.mutateRecord(id, (record) => settleRecovery(record, shardId, this.selfId, priority));
    if (dead.length > 0)
      this.logger.log(
        `shard ${shardId} of ${collection} recovered with priority ${priority}: replicas on peers ${dead.join(', ')} are Dead and will be copied again`,
      );
  }

  /**
   * Restores shard `shardId` from the tree of a collection snapshot holding several shards: its folder is moved
   * into a one-shard tree beside it (the tree is a work copy), which is then recovered as a shard snapshot's.
   */
  async recoverFromCollectionTree(
    collection: string,
    shardId: number,
    treeDir: string,
    archived: CollectionRecord,
    priority: SnapshotPriority | undefined,
  ): Promise<void> {
    const staged = await fs.mkdtemp(path.join(path.dirname(treeDir), `shard-${shardId}-`));
    try {
      await fs.mkdir(path.join(staged, 'shards'), { mode: 0o700 });
      await fs.rename(path.join(treeDir, 'shards', String(shardId)), path.join(staged, 'shards', String(shardId)));
      const one = archived.shards.find((s) => s.shardId === shardId)!;
      const record = { ...archived, shards: [{ shardId, state: 'Active' as const, ...pickKey(one) }] };
      await fs.writeFile(path.join(staged, 'config.json'), stringifyJson({ record, aliases: [] }, 2), { mode: 0o600 });
      await this.recoverFromTree(collection, shardId, staged, priority);
    } finally {
      await fs.rm(staged, { recursive: true, force: true });
    }
  }

  private async mutateRecord<T>(collectionId: string, change: (record: CollectionRecord) => T): Promise<T> {
    return this.catalog.mutate((draft) => {
      const record = [...draft.collections.values()].find((r) => r.id === collectionId);
      if (!record) throw DomainError.notFound('Not found: the collection was deleted during the recovery');
      return change(record);
    });
  }
}

function pickKey(shard: { shardKey?: CollectionRecord['shards'][number]['shardKey'] }) {
  return shard.shardKey ? { shardKey: shard.shardKey } : {};
}
