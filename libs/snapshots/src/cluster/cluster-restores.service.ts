import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import {
  AliasesService,
  CLUSTER_MEMBERSHIP,
  ClusterMembership,
  CollectionCatalog,
  CollectionRecord,
  PEER_ID,
} from '@vectorstore/collections';
import { DomainError } from '@vectorstore/common';
import { APP_CONFIG, AppConfig } from '@vectorstore/config';
import { CollectionSnapshots } from '@vectorstore/points';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { readSnapshot } from '../snapshot-reader';
import { MAX_SNAPSHOT_BYTES } from '../snapshot-limits';
import { BackupCollection, readClusterBackupManifest } from './cluster-backup-manifest';
import { peersNotWired } from './cluster-backups.service';
import { putRestoredRecord, restoreTargets } from './restored-placement';
import { ShardRecovery } from './shard-recovery';
import { SNAPSHOT_PEERS, SnapshotPeers } from './snapshot-peers';
import { writeStandaloneTree } from './standalone-backup-tree';

/**
 * Restores a cluster backup into this cluster, whatever its size: each collection is made again (replacing one of
 * the same name) with the backup's config, shard ids and router, its replicas placed on this cluster's live peers;
 * each shard's data is recovered on one of its replicas (with `snapshot` priority), whose peer then copies it to
 * the others (the leader's healing). Standalone, each collection is built aside from all its shards and swapped in
 * whole (as a collection snapshot's restore).
 */
@Injectable()
export class ClusterRestores {
  private readonly logger = new Logger(ClusterRestores.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly catalog: CollectionCatalog,
    private readonly aliases: AliasesService,
    private readonly shards: ShardRecovery,
    private readonly collections: CollectionSnapshots,
    @Inject(PEER_ID) private readonly selfId: string,
    @Optional() @Inject(CLUSTER_MEMBERSHIP) private readonly membership?: ClusterMembership,
    @Optional() @Inject(SNAPSHOT_PEERS) private readonly peers?: SnapshotPeers,
  ) {}

  /**
   * Restores the cluster backup `archive` (checked against `checksum` first); the restored collections' names.
   * Everything in it is checked before anything changes: a damaged or foreign archive changes nothing.
   */
  async restore(archive: string, checksum: string | undefined, requireChecksum: boolean): Promise<string[]> {
    if (this.membership && !this.peers) throw peersNotWired();
    const extracted = await readSnapshot(archive, {
      extractParent: path.join(this.config.snapshotsDir, 'tmp'),
      checksum,
      requireChecksum,
      maxTotalBytes: MAX_SNAPSHOT_BYTES,
    });
    try {
      if (extracted.manifest.kind !== 'cluster')
        throw DomainError.invalidArgument(
          `Bad request: invalid snapshot archive: a ${extracted.manifest.kind} snapshot is not a cluster backup`,
        );
      const files = new Map(extracted.manifest.files.map((f) => [f.path, { size: f.size, sha256: f.sha256 }]));
      const backup = await readClusterBackupManifest(extracted.dir, files);
      this.checkNames(backup.collections);
      for (const collection of backup.collections) await this.restoreCollection(collection, extracted.dir);
      const aliases = backup.collections.flatMap((c) =>
        c.aliases.map((alias) => ({ createAlias: { aliasName: alias, collectionName: c.name } })),
      );
      if (aliases.length > 0) await this.aliases.update(aliases);
      const names = backup.collections.map((c) => c.name);
      this.logger.log(`cluster backup ${path.basename(archive)} restored: ${names.join(', ') || 'no collections'}`);
      return names;
    } finally {
      await fs.rm(extracted.dir, { recursive: true, force: true });
    }
  }

  /** A collection of the backup may not take the name of an alias here, nor an alias the name of a collection. */
  private checkNames(collections: readonly BackupCollection[]): void {
    const state = this.catalog.snapshot;
    const restored = new Set(collections.map((c) => c.name));
    for (const { name, aliases } of collections) {
      if (state.aliases.has(name))
        throw DomainError.invalidArgument(
          `Wrong input: Can't restore collection ${name}: an alias with the same name exists`,
        );
      for (const alias of aliases)
        if (restored.has(alias) || state.collections.has(alias))
          throw DomainError.invalidArgument(
            `Wrong input: Can't restore alias ${alias} of collection ${name}: a collection with the same name exists`,
          );
    }
  }

  /**
   * Makes the collection (its shards' first replicas waiting in ManualRecovery, the others Dead, so that nothing
   * reads or writes it before its data is back), then recovers each shard on its first replica; the shards of one
   * peer one after the other, the peers side by side.
   */
  private async restoreCollection(collection: BackupCollection, dir: string): Promise<void> {
    if (!this.membership) return this.restoreStandalone(collection, dir);
    await this.membership.probePeers?.();
    const record: CollectionRecord = await this.catalog.mutate((draft) =>
      putRestoredRecord(draft, collection.record, collection.name, this.membership, {
        first: 'ManualRecovery',
        others: 'Dead',
      }),
    );
    const byPeer = new Map<string, Array<{ shardId: number; file: string; sha256: string }>>();
    const targets = restoreTargets(record);
    for (const shard of collection.shards) {
      const peer = targets.get(shard.shard_id) ?? this.selfId;
      const file = path.join(dir, ...shard.file.split('/'));
      byPeer.set(peer, [...(byPeer.get(peer) ?? []), { shardId: shard.shard_id, file, sha256: shard.sha256 }]);
    }
    await Promise.all(
      [...byPeer].map(async ([peer, queue]) => {
        for (const { shardId, file, sha256 } of queue) {
          if (peer === this.selfId || !this.peers)
            await this.shards.recoverFromArchive(collection.name, shardId, file, {
              checksum: sha256,
              requireChecksum: true,
              priority: 'snapshot',
            });
          else await this.peers.recoverShardOn(peer, collection.name, shardId, file, sha256, 'snapshot');
        }
      }),
    );
    this.logger.log(
      `collection ${collection.name} restored from a cluster backup (${collection.shards.length} shards)`,
    );
  }

  /**
   * Standalone, a replica's state guards nothing (reads and writes go to the shards whatever it is): the collection
   * is assembled from all its shards first and replaces one of the same name only once it opens, with one catalog
   * change. A failure leaves the collection of that name as it was.
   */
  private async restoreStandalone(collection: BackupCollection, dir: string): Promise<void> {
    const extractParent = path.join(this.config.snapshotsDir, 'tmp');
    const tree = await fs.mkdtemp(path.join(extractParent, 'backup-collection-'));
    try {
      await writeStandaloneTree(collection, dir, tree, extractParent);
      await this.collections.restore(collection.name, tree);
    } finally {
      await fs.rm(tree, { recursive: true, force: true });
    }
    this.logger.log(
      `collection ${collection.name} restored from a cluster backup (${collection.shards.length} shards)`,
    );
  }
}
