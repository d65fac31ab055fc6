import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import {
  CatalogState,
  CLUSTER_MEMBERSHIP,
  ClusterMembership,
  CollectionCatalog,
  CollectionRecord,
  comparePeerIds,
  PEER_ID,
  VectorNamesService,
} from '@vectorstore/collections';
import { DomainError } from '@vectorstore/common';
import { APP_CONFIG, AppConfig } from '@vectorstore/config';
import { CollectionSnapshots } from '@vectorstore/points';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { SNAPSHOT_WORK_DIR } from '../snapshot-limits';
import { SnapshotDescription, SnapshotStore } from '../snapshot-store';
import { writeSnapshot } from '../snapshot-writer';
import {
  BackupCollection,
  BackupShard,
  backupShardPath,
  CLUSTER_BACKUP_FILE,
  CLUSTER_BACKUP_FORMAT,
  CLUSTER_BACKUP_VERSION,
  ClusterBackupManifest,
  encodeClusterBackupManifest,
} from './cluster-backup-manifest';
import { SNAPSHOT_PEERS, SnapshotPeers } from './snapshot-peers';

/** One shard to copy: which replica, and where its archive goes in the backup. */
interface ShardCopy {
  collection: string;
  collectionIndex: number;
  shardId: number;
  shardKey?: CollectionRecord['shards'][number]['shardKey'];
  from: string;
}

/**
 * Cluster backups (beyond Qdrant): one archive holding every shard of some collections (or of all) once, each
 * copied from one Active replica at its own point in time, with a manifest of the peers, the placement and each
 * shard file's sha256. Works standalone too (every shard is local). See docs/cluster.md, "Snapshots and backups".
 */
@Injectable()
export class ClusterBackups {
  private readonly logger = new Logger(ClusterBackups.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly catalog: CollectionCatalog,
    private readonly collections: CollectionSnapshots,
    @Inject(PEER_ID) private readonly selfId: string,
    @Optional() @Inject(SNAPSHOT_PEERS) private readonly peers?: SnapshotPeers,
    @Optional() @Inject(CLUSTER_MEMBERSHIP) private readonly membership?: ClusterMembership,
  ) {}

  /**
   * Backs up `names` (every collection when absent) into a new archive in `store`. Every acknowledged write made
   * before the call is in it: the replicas are chosen from the catalog as the metadata store holds it when the
   * call begins (see SnapshotPeers.latestCatalog), and each copy is taken after that.
   */
  async create(store: SnapshotStore, names?: readonly string[]): Promise<SnapshotDescription> {
    if (this.membership && !this.peers) throw peersNotWired();
    const state = this.peers ? await this.peers.latestCatalog() : this.catalog.snapshot;
    const live = new Set(this.peers ? this.peers.livePeers().map((p) => p.peerId) : [this.selfId]);
    const records = this.selected(state, names);
    const copies = this.plan(records, live);
    const reservation = await store.reserveName({ kind: 'cluster' });
    const workRoot = path.join(this.config.dataDir, SNAPSHOT_WORK_DIR);
    await fs.mkdir(workRoot, { recursive: true, mode: 0o700 });
    const work = await fs.mkdtemp(path.join(workRoot, 'cluster-'));
    try {
      const shards = await this.copyAll(copies, work);
      const manifest: ClusterBackupManifest = {
        format: CLUSTER_BACKUP_FORMAT,
        version: CLUSTER_BACKUP_VERSION,
        created_at: new Date().toISOString(),
        made_by: this.selfId,
        peers: (this.peers?.livePeers() ?? [{ peerId: this.selfId, uri: '' }]).map((p) => ({
          peer_id: p.peerId,
          uri: p.uri,
        })),
        collections: records.map((record, index): BackupCollection => ({
          name: record.name,
          record: backedUpRecord(record),
          aliases: [...state.aliases].filter(([, target]) => target === record.name).map(([alias]) => alias),
          shards: shards.filter((s) => s.collectionIndex === index).map((s) => s.shard),
        })),
      };
      await fs.writeFile(path.join(work, CLUSTER_BACKUP_FILE), encodeClusterBackupManifest(manifest), { mode: 0o600 });
      await writeSnapshot({
        dir: reservation.dir,
        name: reservation.name,
        kind: 'cluster',
        peerId: this.selfId,
        collections: records.map((record) => record.name),
        directories: [{ root: work }],
      });
    } finally {
      await reservation.release();
      await fs.rm(work, { recursive: true, force: true });
    }
    this.logger.log(
      `cluster backup ${reservation.name}: ${copies.length} shards of ${records.map((r) => r.name).join(', ') || 'no collections'}`,
    );
    return store.describe({ kind: 'cluster' }, reservation.name);
  }

  /** The records to back up: the named ones (each must exist, an alias names its collection), else all. */
  private selected(state: Readonly<CatalogState>, names: readonly string[] | undefined): CollectionRecord[] {
    const wanted = names ?? [...state.collections.keys()].sort();
    const records = new Map<string, CollectionRecord>();
    for (const name of wanted) {
      const record = state.collections.get(state.aliases.get(name) ?? name);
      if (!record) throw DomainError.notFound(`Not found: Collection \`${name}\` doesn't exist!`);
      if ((record as { resharding?: unknown }).resharding !== undefined)
        throw DomainError.failedPrecondition(
          `Bad request: collection \`${record.name}\` is being resharded; back it up once the resharding ends`,
        );
      const dropping = VectorNamesService.pendingDrops(record)[0];
      if (dropping)
        throw DomainError.failedPrecondition(
          `Bad request: vector \`${dropping.name}\` of collection \`${record.name}\` is being deleted; back the collection up once every peer has dropped it`,
        );
      records.set(record.name, record);
    }
    return [...records.values()];
  }

  /**
   * One Active replica on a live peer per shard: this peer's when it has one (no copy over the network), else the
   * peer given the fewest shards so far (ties by peer id), so that the copies spread over the peers.
   */
  private plan(records: CollectionRecord[], live: ReadonlySet<string>): ShardCopy[] {
    const assigned = new Map<string, number>();
    const copies: ShardCopy[] = [];
    records.forEach((record, collectionIndex) => {
      for (const shardId of [...new Set(record.shards.map((s) => s.shardId))].sort((a, b) => a - b)) {
        const replicas = record.shards.filter((s) => s.shardId === shardId);
        const sources = replicas
          .filter((s) => s.state === 'Active' && (s.peerId === undefined || live.has(s.peerId)))
          .map((s) => s.peerId ?? this.selfId);
        if (sources.length === 0)
          throw DomainError.unavailable(
            `Service unavailable: shard ${shardId} of \`${record.name}\` has no Active replica on a live peer (${replicas
              .map((s) => `${s.peerId ?? this.selfId}: ${s.state}`)
              .join(', ')}); nothing was backed up`,
          );
        const from = sources.includes(this.selfId)
          ? this.selfId
          : sources.sort((a, b) => (assigned.get(a) ?? 0) - (assigned.get(b) ?? 0) || comparePeerIds(a, b))[0];
        assigned.set(from, (assigned.get(from) ?? 0) + 1);
        copies.push({ collection: record.name, collectionIndex, shardId, shardKey: replicas[0].shardKey, from });
      }
    });
    return copies;
  }

  /** Copies every shard: the shards of one peer one after the other, the peers side by side. */
  private async copyAll(
    copies: ShardCopy[],
    work: string,
  ): Promise<Array<{ collectionIndex: number; shard: BackupShard }>> {
    const byPeer = new Map<string, ShardCopy[]>();
    for (const copy of copies) byPeer.set(copy.from, [...(byPeer.get(copy.from) ?? []), copy]);
    const done: Array<{ collectionIndex: number; shard: BackupShard }> = [];
    await Promise.all(
      [...byPeer.values()].map(async (queue) => {
        for (const copy of queue)
          done.push({ collectionIndex: copy.collectionIndex, shard: await this.copy(copy, work) });
      }),
    );
    return done.sort((a, b) => a.collectionIndex - b.collectionIndex || a.shard.shard_id - b.shard.shard_id);
  }

  private async copy(copy: ShardCopy, work: string): Promise<BackupShard> {
    const file = backupShardPath(copy.collectionIndex, copy.shardId);
    const target = path.join(work, ...file.split('/'));
    await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    const takenAt = new Date().toISOString();
    const written =
      copy.from === this.selfId || !this.peers
        ? await this.copyLocal(copy, target)
        : await this.peers.fetchShardSnapshot(copy.from, copy.collection, copy.shardId, target);
    return {
      shard_id: copy.shardId,
      ...(copy.shardKey ? { shard_key: copy.shardKey } : {}),
      from_peer: copy.from,
      taken_at: takenAt,
      file,
      size: written.size,
      sha256: written.sha256,
    };
  }

  /** A shard snapshot of this peer's replica, written straight to `target` (no snapshot kept in the store). */
  private async copyLocal(copy: ShardCopy, target: string): Promise<{ sha256: string; size: number }> {
    const tree = await fs.mkdtemp(`${target}.tree-`);
    try {
      await this.collections.checkpointShard(copy.collection, copy.shardId, tree);
      const written = await writeSnapshot({
        dir: path.dirname(target),
        name: path.basename(target),
        kind: 'shard',
        peerId: this.selfId,
        collections: [copy.collection],
        shardId: copy.shardId,
        directories: [{ root: tree, prefix: 'collection' }],
      });
      await fs.rm(written.checksumPath, { force: true });
      return { sha256: written.sha256, size: written.size };
    } finally {
      await fs.rm(tree, { recursive: true, force: true });
    }
  }
}

/** The record as a backup keeps it: what the collection is (config, shard keys, router) and where its replicas were. */
function backedUpRecord(record: CollectionRecord): CollectionRecord {
  const copy = structuredClone(record);
  delete copy.transfers;
  delete copy.growReplicas;
  return copy;
}

/** Cluster mode without the peers' channel bound (SNAPSHOT_PEERS): a backup or restore would miss other peers' shards. */
export function peersNotWired(): DomainError {
  return DomainError.unimplemented(
    'Cluster backups are not available on this server: it cannot reach the other peers for their shards (docs/cluster.md, Snapshots)',
  );
}
