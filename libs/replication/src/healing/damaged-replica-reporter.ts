import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { AWAITING_COPY_REPLICA_STATES, ClusterService, CollectionCatalog } from '@vectorstore/collections';
import { PointsStorage } from '@vectorstore/points';
import { POINTS_PEERS, PointsPeers } from '../points-peers';

/** How often this peer looks for replicas it set aside as damaged. */
const INTERVAL_MS = 1000;

/**
 * Cluster mode (issue 28): a replica this peer could not open because a file of it is damaged beyond a rebuild from
 * its log is set aside by its collection's storage; this peer then marks it Dead in the catalog, so that no read or
 * write counts on it and the leader's healer copies it again from an Active replica (the copy's reset opens it
 * afresh). Every peer does this for its own replicas, on every look until the catalog shows it, so a catalog write
 * that failed (etcd unreachable, a lost race) is simply made again.
 */
@Injectable()
export class DamagedReplicaReporter implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(DamagedReplicaReporter.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** When a refusal to mark a replica Dead was last logged, per replica: once a minute, not every second. */
  private readonly warned = new Map<string, number>();

  constructor(
    private readonly storage: PointsStorage,
    private readonly catalog: CollectionCatalog,
    private readonly cluster: ClusterService,
    @Optional() @Inject(POINTS_PEERS) private readonly peers?: PointsPeers,
  ) {}

  onModuleInit(): void {
    if (!this.peers) return;
    this.timer = setInterval(() => {
      this.running ??= this.tick().finally(() => (this.running = undefined));
    }, INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** One look; public so that tests can run one at a chosen moment. */
  async tick(): Promise<void> {
    const selfId = this.peers?.selfId;
    if (selfId === undefined) return;
    for (const storage of this.storage.openStorages()) {
      for (const [shardId, damage] of storage.damaged) {
        const record = [...this.catalog.snapshot.collections.values()].find((r) => r.id === storage.record.id);
        const replica = record?.shards.find((s) => s.shardId === shardId && s.peerId === selfId);
        if (!record || !replica || AWAITING_COPY_REPLICA_STATES.has(replica.state)) continue;
        const key = `${record.id}/${shardId}`;
        try {
          // The state is checked again inside the catalog change: a copy may have started since this peer's look.
          await this.cluster.markReplicasDead(record.id, [{ shardId, peerId: selfId }], AWAITING_COPY_REPLICA_STATES);
          this.warned.delete(key);
          this.logger.warn(
            `the replica of shard ${shardId} of ${record.name} on this peer is damaged (${damage.message}): marked Dead, to be copied again`,
          );
        } catch (error) {
          if (Date.now() - (this.warned.get(key) ?? 0) < 60_000) continue;
          this.warned.set(key, Date.now());
          this.logger.error(
            `the damaged replica of shard ${shardId} of ${record.name} on this peer could not be marked Dead: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
    }
  }
}
