// The leader: whoever creates the `leader` key (on its own lease) leads until that key goes. Others
// watch it and campaign again, with jitter, when it is deleted. Leader-only writes must guard on the
// key's create revision, so a deposed leader's late writes fail (docs/cluster.md).
import { Logger } from '@nestjs/common';
import { ClusterKeys } from './cluster-keys';
import { MetadataStore, MetadataWatch } from './metadata/metadata-store';

export interface LeaderInfo {
  peerId: string;
  incarnation: string;
}

export class LeaderElection {
  private readonly logger = new Logger(LeaderElection.name);
  private current: (LeaderInfo & { createRevision: number }) | undefined;
  private watcher: MetadataWatch | undefined;
  private closed = false;
  private campaigning: Promise<void> | undefined;

  constructor(
    private readonly store: MetadataStore,
    private readonly keys: ClusterKeys,
    private readonly self: LeaderInfo,
    private readonly leaseId: () => string,
    private readonly jitterMs = 500,
  ) {}

  /** The leader as this peer last saw it. */
  get leader(): LeaderInfo | undefined {
    return this.current && { peerId: this.current.peerId, incarnation: this.current.incarnation };
  }

  get isLeader(): boolean {
    return this.current?.peerId === this.self.peerId && this.current.incarnation === this.self.incarnation;
  }

  /** The guard a leader-only write carries: it fails if this peer has lost the leadership since. */
  get leaderGuard(): { key: string; createRevision: number } | undefined {
    return this.isLeader && this.current
      ? { key: this.keys.leader, createRevision: this.current.createRevision }
      : undefined;
  }

  async start(): Promise<void> {
    await this.campaign();
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.watcher?.cancel();
    await this.campaigning?.catch(() => undefined);
  }

  /** Steps down (on shutdown) by deleting the key if it is still ours. */
  async resign(): Promise<void> {
    // A leaving peer does not campaign again when it sees its own key go.
    this.closed = true;
    const guard = this.leaderGuard;
    if (guard) await this.store.txn([guard], [{ delete: this.keys.leader }]).catch(() => undefined);
  }

  /** Re-creates the key after the lease was re-granted, if nobody else leads now. */
  campaign(): Promise<void> {
    this.campaigning ??= this.campaignOnce().finally(() => (this.campaigning = undefined));
    return this.campaigning;
  }

  private async campaignOnce(): Promise<void> {
    const campaign = await this.store.txn(
      [{ key: this.keys.leader, absent: true }],
      [{ put: this.keys.leader, value: JSON.stringify(this.self), lease: this.leaseId() }],
    );
    const found = await this.store.get(this.keys.leader);
    await this.watcher?.cancel();
    this.current = found && { ...(JSON.parse(found.value) as LeaderInfo), createRevision: found.createRevision };
    if (this.current && this.isLeader) this.logger.log(`this peer (${this.self.peerId}) is the cluster leader`);
    const from = (found?.modRevision ?? campaign.revision) + 1;
    this.watcher = await this.store.watch(this.keys.leader, from, {
      onEvents: (events) => {
        for (const event of events) {
          if (event.key !== this.keys.leader) continue;
          if (event.type === 'put') {
            this.current = { ...(JSON.parse(event.value) as LeaderInfo), createRevision: event.modRevision };
          } else {
            this.current = undefined;
            if (!this.closed) this.retryLater();
          }
        }
      },
      onLost: () => this.retryLater(),
    });
  }

  private retryLater(): void {
    const delay = Math.random() * this.jitterMs;
    setTimeout(() => {
      if (this.closed) return;
      this.campaign().catch((error: unknown) => {
        this.logger.warn({ err: error }, 'leader campaign failed; retrying');
        this.retryLater();
      });
    }, delay).unref();
  }
}
