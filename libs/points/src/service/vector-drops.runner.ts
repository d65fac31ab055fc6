import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown, Optional } from '@nestjs/common';
import { CollectionCatalog, CollectionRecord, PEER_ID, VectorNamesService } from '@vectorstore/collections';
import { PointsStorage } from '../storage/points-storage';
import { POINTS_CLUSTER, PointsCluster } from './replication-ports';

/** How long after a failed pass the drops are tried again. */
const RETRY_MS = 1000;

/**
 * Cluster mode, second phase of deleting a vector name (docs/cluster.md, "Deleting a vector name"): whenever the
 * catalog lists a name being deleted that waits for this peer, the peer drops its vectors from every local shard
 * durably (segments written again without them, log acknowledged past them), then tells the catalog so. A peer
 * that restarts in between does it when it is back: its segments still hold the vectors on disk, are loaded
 * without them, and are written again by that flush. Peers that hold no replica of the collection any more are
 * let go by whichever peer sees it.
 */
@Injectable()
export class VectorDropsRunner implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(VectorDropsRunner.name);
  private running = false;
  private again = false;
  private stopped = false;
  private retry?: NodeJS.Timeout;

  constructor(
    private readonly catalog: CollectionCatalog,
    private readonly storage: PointsStorage,
    private readonly names: VectorNamesService,
    @Inject(PEER_ID) private readonly selfId: string,
    @Optional() @Inject(POINTS_CLUSTER) private readonly cluster?: PointsCluster,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.cluster) return;
    // After PointsStorage's listener (module init): the local shards are open when a pass runs.
    await this.catalog.subscribe(() => this.schedule());
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
  }

  /** Runs a pass soon, never two at once, and one more when the catalog changed meanwhile. */
  private schedule(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.loop();
  }

  private async loop(): Promise<void> {
    let failed = false;
    try {
      do {
        this.again = false;
        failed = !(await this.pass());
      } while (this.again && !this.stopped);
    } finally {
      this.running = false;
    }
    if (failed && !this.stopped) {
      this.retry = setTimeout(() => this.schedule(), RETRY_MS);
      this.retry.unref();
    }
  }

  /** One look at every pending drop; false when one of them failed (tried again later). */
  private async pass(): Promise<boolean> {
    let ok = true;
    for (const record of [...this.catalog.snapshot.collections.values()]) {
      for (const drop of VectorNamesService.pendingDrops(record)) {
        try {
          const holders = replicaHolders(record);
          const done = drop.waitingFor.filter((peerId) => !holders.has(peerId));
          if (drop.waitingFor.includes(this.selfId) && holders.has(this.selfId)) {
            const storage = this.storage.storageOf(record);
            await storage.schemaLock.exclusive(() => storage.dropVector(drop.name));
            // A segment build that began before the drop could install the old vectors after it: the drop is
            // confirmed only once those builds ended and were flushed without them.
            await storage.settleDroppedVector(drop.name);
            done.push(this.selfId);
            this.logger.log(`vector ${drop.name} of ${record.name} dropped from this peer's shards`);
          }
          if (done.length > 0) await this.names.confirmDrop(record.id, drop.name, done);
        } catch (error) {
          ok = false;
          this.logger.warn(`dropping vector ${drop.name} of ${record.name} failed, retrying: ${String(error)}`);
        }
      }
    }
    return ok;
  }
}

function replicaHolders(record: CollectionRecord): Set<string> {
  return new Set(record.shards.flatMap((shard) => (shard.peerId === undefined ? [] : [shard.peerId])));
}
