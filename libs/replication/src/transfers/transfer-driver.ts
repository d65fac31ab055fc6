import { Inject, Injectable, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import {
  CatalogState,
  ClusterService,
  CollectionCatalog,
  ShardTransferKey,
  ShardTransferRecord,
} from '@vectorstore/collections';
import { CollectionContexts, CollectionSnapshots, PointsStorage } from '@vectorstore/points';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { LocalReplicas } from '../local-replicas';
import { POINTS_PEERS, PointsPeers } from '../points-peers';
import { TransferRun } from './transfer-run';

/**
 * Runs the transfers whose source is this peer (cluster mode), as the catalog shows them: a new transfer (or a
 * restarted one: a new start time) gets a run; a run whose transfer left the catalog stops. Cluster info asks it
 * for a running transfer's progress.
 */
@Injectable()
export class TransferDriver implements OnModuleInit, OnApplicationShutdown {
  private readonly runs = new Map<string, TransferRun>();
  private closing = false;
  private resync: NodeJS.Timeout | undefined;
  /** When each run that ended by itself ended: the catalog may not show the outcome it recorded yet. */
  private readonly ended = new Map<string, number>();

  constructor(
    private readonly catalog: CollectionCatalog,
    private readonly cluster: ClusterService,
    private readonly contexts: CollectionContexts,
    private readonly snapshots: CollectionSnapshots,
    private readonly replicas: LocalReplicas,
    private readonly storage: PointsStorage,
    @Optional() @Inject(POINTS_PEERS) private readonly peers?: PointsPeers,
  ) {}

  async onModuleInit(): Promise<void> {
    if (!this.peers) return;
    await this.removeLeftovers();
    this.cluster.transferProgress = (collectionId, transfer) =>
      this.runs.get(runKey(collectionId, transfer))?.progress.comment();
    await this.catalog.subscribe((state) => this.follow(state));
    // A run that ended without the catalog changing (its failure could not be recorded) is started again.
    this.resync = setInterval(() => this.follow(this.catalog.snapshot), RESYNC_MS);
    this.resync.unref();
  }

  /**
   * Transfers do not outlive their process: snapshot files a source was sending (`outgoing/`) and a target was
   * receiving (`incoming/`) when it stopped are of no use now, and `outgoing/` holds links to old segment files.
   */
  private async removeLeftovers(): Promise<void> {
    const root = this.storage.collectionsDirectory;
    const folders = await fs.readdir(root).catch(() => [] as string[]);
    for (const folder of folders)
      for (const leftover of ['outgoing', 'incoming'])
        await fs.rm(path.join(root, folder, leftover), { recursive: true, force: true });
  }

  onApplicationShutdown(): void {
    this.closing = true;
    clearInterval(this.resync);
    for (const run of this.runs.values()) run.stop();
    this.runs.clear();
  }

  /** Runs of this peer now, for tests and the leader's view of what is moving. */
  running(): Array<{ collectionId: string; transfer: ShardTransferKey }> {
    return [...this.runs.values()].map((run) => ({ collectionId: run.collection.id, transfer: run.key }));
  }

  private follow(state: Readonly<CatalogState>): void {
    const peers = this.peers;
    if (!peers || this.closing) return;
    const wanted = new Map<string, { collection: { id: string; name: string }; transfer: ShardTransferRecord }>();
    for (const record of state.collections.values()) {
      for (const transfer of record.transfers ?? []) {
        if (transfer.from === peers.selfId)
          wanted.set(runKey(record.id, transfer), { collection: { id: record.id, name: record.name }, transfer });
      }
    }
    // Runs whose transfer ended (finished by the run itself, aborted, restarted: another start time) stop; a run that
    // finished its transfer keeps forwarding writes routed before the finish until they are applied, then ends.
    for (const [key, run] of this.runs) {
      if (!wanted.has(key) && !run.finishing) {
        run.stop();
        this.runs.delete(key);
      }
    }
    for (const key of this.ended.keys()) if (!wanted.has(key)) this.ended.delete(key);
    for (const [key, { collection, transfer }] of wanted) {
      // A run that just ended is not started again before the catalog had time to show what it recorded.
      if (this.runs.has(key) || (this.ended.get(key) ?? 0) > Date.now() - SETTLE_MS) continue;
      const run = new TransferRun(
        {
          contexts: this.contexts,
          replicas: this.replicas,
          peers,
          cluster: this.cluster,
          snapshots: this.snapshots,
        },
        collection,
        { ...transfer },
      );
      this.runs.set(key, run);
      void run.run().finally(() => {
        if (this.runs.get(key) !== run) return;
        this.runs.delete(key);
        this.ended.set(key, Date.now());
      });
    }
  }
}

/** How often the driver checks that every transfer of this peer has a run. */
const RESYNC_MS = 5000;
/** How long a run that ended by itself leaves the catalog to show the outcome it recorded (a watch's delay). */
const SETTLE_MS = 2000;

/** A run is one transfer started at one time. */
function runKey(collectionId: string, transfer: ShardTransferRecord): string {
  return `${collectionId}|${transfer.shardId}>${transfer.toShardId ?? transfer.shardId}|${transfer.from}->${transfer.to}|${transfer.startedAt}`;
}
