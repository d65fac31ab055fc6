import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import { ClusterService, CollectionCatalog } from '@vectorstore/collections';
import { HealingSettings, planHealing } from './healing-plan';

/** What the healer needs to know of the cluster (the app binds it to its cluster node). */
export interface ClusterTopology {
  /** Whether this peer leads the cluster now: only the leader heals, so that two peers never race. */
  isLeader(): boolean;
  livePeerIds(): string[];
  /** Since when (ms since the epoch) a peer has not been live; undefined while it is. */
  goneSince(peerId: string): number | undefined;
  /** The process a live peer runs now (random per start): a new one means the peer came back. */
  incarnationOf?(peerId: string): string | undefined;
  /** Whether the last call to a peer failed: its lease may still run, but no transfer should count on it. */
  unreachable?(peerId: string): boolean;
}

export const CLUSTER_TOPOLOGY = Symbol('CLUSTER_TOPOLOGY');
export const HEALING_SETTINGS = Symbol('HEALING_SETTINGS');

/** How often the leader looks at the replicas. */
const INTERVAL_MS = 1000;

/**
 * The leader's duties toward replicas (cluster mode; design §2.4): a peer gone past `VECTORSTORE_DEAD_GRACE` has
 * its replicas marked Dead and its transfers failed; a Dead replica on a live peer is recovered from an Active one;
 * a shard with fewer replicas than its replication factor gets new ones (a raised factor, a peer that joined, or,
 * with `VECTORSTORE_AUTO_REPLICATE_AFTER`, a peer gone too long). Each step is a guarded catalog change, re-derived
 * from the catalog every second, so a new leader simply carries on.
 */
@Injectable()
export class ReplicaHealer implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ReplicaHealer.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /**
   * Automatic transfers started per target replica (`collection/shard/peer`) and when the next may start: one that
   * keeps failing (peers that cannot reach each other) is tried again after 1, 2, 4 … 60 s, not every second.
   */
  private readonly attempts = new Map<string, { count: number; nextAt: number }>();
  /** The incarnation each peer had at the last look: a peer that came back starts its back-off afresh. */
  private readonly incarnations = new Map<string, string>();

  constructor(
    private readonly catalog: CollectionCatalog,
    private readonly cluster: ClusterService,
    @Optional() @Inject(CLUSTER_TOPOLOGY) private readonly topology?: ClusterTopology,
    @Optional() @Inject(HEALING_SETTINGS) private readonly settings?: HealingSettings,
  ) {}

  onModuleInit(): void {
    if (!this.topology || !this.settings) return;
    this.timer = setInterval(() => {
      this.running ??= this.tick().finally(() => (this.running = undefined));
    }, INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** One look at the replicas; public so that tests can run one at a chosen moment. */
  async tick(): Promise<void> {
    const topology = this.topology;
    const settings = this.settings;
    if (!topology || !settings || !topology.isLeader()) return;
    const now = Date.now();
    const plan = planHealing(
      this.catalog.snapshot,
      {
        // A peer whose lease still runs but that does not answer is neither a source nor a target now.
        live: new Set(topology.livePeerIds().filter((peerId) => !topology.unreachable?.(peerId))),
        goneSince: (peerId) => topology.goneSince(peerId) ?? now,
        now,
      },
      settings,
    );
    for (const { collectionId, shardId, peerId } of plan.markDead) {
      await this.attempt(`mark the replica of shard ${shardId} on gone peer ${peerId} Dead`, async () => {
        await this.cluster.markReplicasDead(collectionId, [{ shardId, peerId }]);
        this.logger.log(`peer ${peerId} is gone: its replica of shard ${shardId} is Dead`);
      });
    }
    for (const { collectionId, transfer } of plan.fail) {
      await this.attempt(`fail the transfer of shard ${transfer.shardId} (${transfer.from} -> ${transfer.to})`, () =>
        this.cluster.failTransfer(collectionId, transfer),
      );
    }
    for (const collectionId of plan.grown) await this.attemptGrown(collectionId);
    this.forgetSettled(now);
    this.forgetRestarted(topology);
    for (const { collectionId, transfers: wanted } of plan.start) {
      const transfers = wanted.filter(
        (start) => (this.attempts.get(attemptKey(collectionId, start))?.nextAt ?? 0) <= now,
      );
      if (transfers.length === 0) continue;
      await this.attempt('start transfers', async () => {
        const begun = await this.cluster.beginTransfers(collectionId, transfers);
        for (const transfer of begun) {
          const key = attemptKey(collectionId, transfer);
          const count = (this.attempts.get(key)?.count ?? 0) + 1;
          this.attempts.set(key, { count, nextAt: now + Math.min(60_000, 1000 * 2 ** (count - 1)) });
        }
        for (const transfer of begun)
          this.logger.log(
            `${transfer.reason === 'recovery' ? 'recovering' : 'replicating'} shard ${transfer.shardId} from peer ${transfer.from} to peer ${transfer.to} (${transfer.method})`,
          );
      });
    }
  }

  /**
   * A peer that restarted (another incarnation) is worth trying at once again: attempts made while it was down, or
   * while its old lease still said it was live, say nothing about it now.
   */
  private forgetRestarted(topology: ClusterTopology): void {
    if (!topology.incarnationOf) return;
    for (const peerId of topology.livePeerIds()) {
      const incarnation = topology.incarnationOf(peerId);
      if (incarnation === undefined) continue;
      const before = this.incarnations.get(peerId);
      this.incarnations.set(peerId, incarnation);
      if (before === undefined || before === incarnation) continue;
      for (const key of [...this.attempts.keys()]) if (key.endsWith(`/${peerId}`)) this.attempts.delete(key);
    }
  }

  /** Back-off entries of target replicas that are Active now (or gone) are dropped. */
  private forgetSettled(now: number): void {
    const state = this.catalog.snapshot;
    const active = new Set<string>();
    for (const record of state.collections.values())
      for (const replica of record.shards)
        if (replica.state === 'Active' && replica.peerId !== undefined)
          active.add(`${record.id}/${replica.shardId}/${replica.peerId}`);
    for (const [key, entry] of this.attempts)
      if (active.has(key) || now - entry.nextAt > 10 * 60_000) this.attempts.delete(key);
  }

  private async attemptGrown(collectionId: string): Promise<void> {
    await this.attempt('record that the replicas grew', () => this.cluster.replicasGrown(collectionId));
  }

  private async attempt(what: string, step: () => Promise<unknown>): Promise<void> {
    try {
      await step();
    } catch (error) {
      this.logger.warn(`could not ${what}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

function attemptKey(collectionId: string, start: { shardId: number; toShardId?: number; to: string }): string {
  return `${collectionId}/${start.toShardId ?? start.shardId}/${start.to}`;
}
