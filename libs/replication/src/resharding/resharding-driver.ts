import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit, Optional } from '@nestjs/common';
import {
  ClusterService,
  CollectionCatalog,
  CollectionRecord,
  migrationUnits,
  MigrationUnit,
  reshardingRings,
  ShardRecord,
} from '@vectorstore/collections';
import { CollectionContexts } from '@vectorstore/points';
import { serialize } from 'node:v8';
import { HealingSettings } from '../healing/healing-plan';
import { CLUSTER_TOPOLOGY, ClusterTopology, HEALING_SETTINGS } from '../healing/replica-healer';
import { ReplicaWriter } from '../replica-writer';
import { cleanupOperation, movedPoints } from './resharding-scope';

/** How often the leader looks at reshardings. */
const INTERVAL_MS = 1000;
/**
 * How long reads follow the new ring before writes do, and an abort before its copies are deleted: every peer's
 * catalog watch has shown the step by then (a peer cut off from etcd is fenced well within it).
 */
export const RESHARDING_SETTLE_MS = 2000;
/** The dead grace when none is configured (unit tests): a new shard's peer gone this long ends a scale-up. */
const DEFAULT_DEAD_GRACE_MS = 10_000;

/**
 * The leader's side of resharding (cluster mode; libs/collections cluster/resharding.ts has the rules): it copies
 * the points the new hash ring moves, one transfer at a time, then commits reads to the new ring, then writes, then
 * deletes the copies left behind and ends it; a scale-down given up has its copies removed. Each step is a guarded
 * catalog change re-derived from the catalog every second, so a new leader carries on where the last one stopped.
 */
@Injectable()
export class ReshardingDriver implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(ReshardingDriver.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** Copies that failed, by unit, and when the next try may start (1, 2, 4 … 60 s). */
  private readonly attempts = new Map<string, { count: number; nextAt: number }>();

  constructor(
    private readonly catalog: CollectionCatalog,
    private readonly cluster: ClusterService,
    private readonly contexts: CollectionContexts,
    private readonly writer: ReplicaWriter,
    @Optional() @Inject(CLUSTER_TOPOLOGY) private readonly topology?: ClusterTopology,
    @Optional() @Inject(HEALING_SETTINGS) private readonly settings?: HealingSettings,
  ) {}

  onModuleInit(): void {
    if (!this.topology) return;
    this.timer = setInterval(() => {
      this.running ??= this.tick().finally(() => (this.running = undefined));
    }, INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  /** One look at every resharding; public so that tests can run one at a chosen moment. */
  async tick(): Promise<void> {
    if (!this.topology?.isLeader()) return;
    for (const record of this.catalog.snapshot.collections.values()) {
      if (!record.resharding) continue;
      try {
        await this.step(record);
      } catch (error) {
        this.logger.warn(
          `resharding of ${record.name} (${record.resharding.stage}): ${error instanceof Error ? error.message : String(error)}; trying again`,
        );
      }
    }
  }

  private async step(record: CollectionRecord): Promise<void> {
    const resharding = record.resharding!;
    const settled = Date.now() - Date.parse(resharding.stageAt) >= RESHARDING_SETTLE_MS;
    switch (resharding.stage) {
      case 'MigratingPoints':
        return this.migrate(record);
      case 'ReadHashRingCommitted':
        if (settled) await this.cluster.stepResharding(record.id, 'commitWrite');
        return;
      case 'WriteHashRingCommitted': {
        // At once: each replica applies the cleanup only after every write routed to it before (LocalReplicas), and
        // a part split by both rings that comes later is cut to the points its shard still owns.
        // Up: the old shards drop the points the new shard now holds. Down: the removed shard just goes.
        if (resharding.direction === 'Up') {
          const rings = reshardingRings(record)!;
          for (const shardId of rings.oldIds) await this.deleteOwned(record, shardId, rings.newIds, resharding.shardId);
        }
        await this.cluster.stepResharding(record.id, 'finish');
        this.logger.log(`resharding ${resharding.direction.toLowerCase()} of ${record.name} is done`);
        return;
      }
      case 'Aborting': {
        // A scale-down given up: the other shards drop the copies they got of the shard that stays, once every peer
        // shows the abort (a copy's batch on its way is then refused by its target).
        if (!settled) return;
        const rings = reshardingRings(record)!;
        for (const shardId of rings.newIds) await this.deleteOwned(record, shardId, rings.oldIds, resharding.shardId);
        await this.cluster.stepResharding(record.id, 'finishAbort');
        this.logger.log(`resharding down of ${record.name} is aborted; its copies are removed`);
        return;
      }
    }
  }

  /** Starts the next copy, or commits reads to the new ring once every copy is made. */
  private async migrate(record: CollectionRecord): Promise<void> {
    const resharding = record.resharding!;
    if (resharding.direction === 'Up' && this.newShardLost(record)) {
      this.logger.warn(`the new shard ${resharding.shardId} of ${record.name} lost its replica: resharding is aborted`);
      await this.cluster.stepResharding(record.id, 'abort');
      return;
    }
    const units = migrationUnits(record);
    const done = new Set(resharding.migrated ?? []);
    const pending = units.filter((unit) => !done.has(unit.key));
    if (units.length > 0 && pending.length === 0) {
      await this.cluster.stepResharding(record.id, 'commitRead');
      this.logger.log(`resharding of ${record.name}: every point is copied; reads follow the new hash ring`);
      return;
    }
    // One copy at a time: each reads a whole source shard.
    if ((record.transfers ?? []).some((transfer) => transfer.reason === 'resharding')) return;
    const now = Date.now();
    const live = new Set(this.topology!.livePeerIds().filter((peerId) => !this.topology!.unreachable?.(peerId)));
    for (const unit of pending) {
      const key = `${record.id}/${unit.key}`;
      if ((this.attempts.get(key)?.nextAt ?? 0) > now || !live.has(unit.toPeer)) continue;
      const source = sourceOf(record, unit, live);
      if (!source) continue;
      const begun = await this.cluster.beginTransfers(record.id, [
        {
          shardId: unit.fromShard,
          toShardId: unit.toShard,
          from: source,
          to: unit.toPeer,
          sync: true,
          method: 'ReshardingStreamRecords',
          reason: 'resharding',
          filter: serialize(movedPoints(record, unit.fromShard, unit.toShard)!.filter).toString('base64'),
        },
      ]);
      if (begun.length === 0) continue;
      const count = (this.attempts.get(key)?.count ?? 0) + 1;
      this.attempts.set(key, { count, nextAt: now + Math.min(60_000, 1000 * 2 ** (count - 1)) });
      this.logger.log(
        `resharding of ${record.name}: copying the points of shard ${unit.fromShard} (peer ${source}) that go to shard ${unit.toShard} (peer ${unit.toPeer})`,
      );
      return;
    }
  }

  /**
   * The new shard of a scale-up has no replica left: each is Dead, or on a peer gone longer than the dead grace (the
   * healer never marks a shard's last replica Dead, so a gone peer alone must end it).
   */
  private newShardLost(record: CollectionRecord): boolean {
    const resharding = record.resharding!;
    const grace = this.settings?.deadGraceMs ?? DEFAULT_DEAD_GRACE_MS;
    const now = Date.now();
    return record.shards
      .filter((replica) => replica.shardId === resharding.shardId)
      .every((replica) => {
        if (replica.state === 'Dead') return true;
        const gone = replica.peerId === undefined ? undefined : this.topology!.goneSince(replica.peerId);
        return gone !== undefined && now - gone > grace;
      });
  }

  /** Deletes from every replica of shard `shardId` the points whose owner under `ring` is `owner`. */
  private async deleteOwned(record: CollectionRecord, shardId: number, ring: number[], owner: number): Promise<void> {
    const context = this.contexts.resolve(record.name);
    if (context.record.id !== record.id) return;
    await this.writer.apply(context, shardId, cleanupOperation(ring, owner), undefined);
  }
}

/** A replica of the unit's source shard to copy from: Active (or being drained, Down) on a live peer. */
function sourceOf(record: CollectionRecord, unit: MigrationUnit, live: ReadonlySet<string>): string | undefined {
  const candidates = record.shards.filter(
    (replica: ShardRecord) =>
      replica.shardId === unit.fromShard &&
      replica.peerId !== undefined &&
      live.has(replica.peerId) &&
      (replica.state === 'Active' || replica.state === 'ReshardingScaleDown'),
  );
  // Another peer than the target's when there is one (a copy within one peer goes through the peer service too).
  const other = candidates.find((replica) => replica.peerId !== unit.toPeer) ?? candidates[0];
  return other?.peerId;
}
