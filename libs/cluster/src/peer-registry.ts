// Membership: this peer's `members/` and `peers/` keys, and the live peers as the watch reports them.
import { Logger } from '@nestjs/common';
import { DomainError } from '@vectorstore/common';
import { ClusterKeys } from './cluster-keys';
import { Guard, MetadataStore, MetadataWatch, WatchEvent } from './metadata/metadata-store';

/** What a peer publishes about itself. */
export interface PeerInfo {
  peerId: string;
  /** Random per process start: tells a restarted peer from its previous run. */
  incarnation: string;
  /** The internal peer service, as other peers dial it. */
  p2pUri: string;
  /** The public APIs. */
  httpUri: string;
  grpcUri: string;
  version: string;
  startedAt: string;
}

export class PeerRegistry {
  private readonly logger = new Logger(PeerRegistry.name);
  private readonly live = new Map<string, PeerInfo>();
  /** When each peer seen live by this process left (its registration was deleted). */
  private readonly left = new Map<string, number>();
  /** When this process started following the peers: a peer never seen live has been gone at least since then. */
  private followingSince: number | undefined;
  private watcher: MetadataWatch | undefined;
  private closed = false;
  /** Create revision of this peer's current registration key. */
  private registeredAt: number | undefined;

  constructor(
    private readonly store: MetadataStore,
    private readonly keys: ClusterKeys,
    readonly self: PeerInfo,
  ) {}

  /** The live peers by id, this one included once registered. */
  get peers(): ReadonlyMap<string, PeerInfo> {
    return this.live;
  }

  /**
   * Records this peer as a member (refused if it was removed) and registers it on `leaseId`. A key
   * left by this peer's previous process (whose data folder lock we now hold, so it is gone) is
   * replaced after revoking its lease.
   */
  async register(leaseId: string): Promise<void> {
    const memberKey = this.keys.member(this.self.peerId);
    const member = await this.store.get(memberKey);
    if (member && (JSON.parse(member.value) as { removed?: boolean }).removed)
      throw DomainError.failedPrecondition(`peer ${this.self.peerId} was removed from the cluster; it cannot rejoin`);
    if (!member) {
      const { p2pUri, httpUri, grpcUri } = this.self;
      const value = JSON.stringify({ p2pUri, httpUri, grpcUri, firstSeen: new Date().toISOString() });
      await this.store.txn([{ key: memberKey, absent: true }], [{ put: memberKey, value }]);
    }
    const peerKey = this.keys.peer(this.self.peerId);
    for (let attempt = 0; attempt < 5; attempt++) {
      const result = await this.store.txn(
        [{ key: peerKey, absent: true }],
        [{ put: peerKey, value: JSON.stringify(this.self), lease: leaseId }],
      );
      if (result.succeeded) {
        this.registeredAt = result.revision;
        return;
      }
      const previous = await this.store.get(peerKey);
      if (previous?.lease === leaseId) {
        this.registeredAt = previous.createRevision;
        return;
      }
      if (previous?.lease !== undefined) {
        // Our previous process left it (the data-folder lock proves that process gone) only if it
        // registered the same addresses; otherwise another machine has the same peer id.
        const other = JSON.parse(previous.value) as Partial<PeerInfo>;
        if (other.p2pUri !== this.self.p2pUri || other.httpUri !== this.self.httpUri)
          throw DomainError.failedPrecondition(
            `peer id ${this.self.peerId} is already registered by a live peer at ${String(other.p2pUri)}: ` +
              'was this data folder copied? Give each peer its own data folder (its node.json holds the peer id)',
          );
        this.logger.log(`replacing the registration of this peer's previous process (lease ${previous.lease})`);
        await this.store.revokeLease(previous.lease);
      }
    }
    throw DomainError.unavailable(`could not register peer ${this.self.peerId} in the cluster metadata store`);
  }

  /**
   * A guard that holds only while this peer's registration is the one it made: etcd deletes the key when
   * the lease expires, so a metadata write carrying it fails at etcd, not only by our local deadline.
   */
  registrationGuard(): Guard | undefined {
    return this.registeredAt === undefined
      ? undefined
      : { key: this.keys.peer(this.self.peerId), createRevision: this.registeredAt };
  }

  /**
   * Marks `peerId` removed for good (it may never register again) and ends its live registration by
   * revoking its lease. Carries this peer's own registration guard: a fenced peer cannot retire others.
   */
  async retire(peerId: string): Promise<void> {
    const memberKey = this.keys.member(peerId);
    const member = await this.store.get(memberKey);
    if (!member) throw DomainError.notFound(`Peer ${peerId} is not a member of the cluster`);
    const own = this.registrationGuard();
    const value = JSON.stringify({ ...(JSON.parse(member.value) as object), removed: true });
    const result = await this.store.txn(
      [{ key: memberKey, modRevision: member.modRevision }, ...(own ? [own] : [])],
      [{ put: memberKey, value }],
    );
    if (!result.succeeded)
      throw DomainError.unavailable(
        `the membership of peer ${peerId} changed meanwhile, or this peer is fenced; retry`,
      );
    const live = await this.store.get(this.keys.peer(peerId));
    if (live?.lease !== undefined) await this.store.revokeLease(live.lease);
  }

  /**
   * Since when (ms since the epoch) `peerId` has not been live, as this process saw it: the moment its registration
   * went, or, for a peer not live since this process started following, that start. Undefined while live.
   */
  goneSince(peerId: string): number | undefined {
    if (this.live.has(peerId)) return undefined;
    return this.left.get(peerId) ?? this.followingSince ?? Date.now();
  }

  /** Whether `peerId` joined the cluster once and was not removed. */
  async isMember(peerId: string): Promise<boolean> {
    const member = await this.store.get(this.keys.member(peerId));
    return member !== undefined && !(JSON.parse(member.value) as { removed?: boolean }).removed;
  }

  /** Loads the live peers and follows them. */
  async follow(): Promise<void> {
    const { keys, revision } = await this.store.range(this.keys.peers);
    this.followingSince ??= Date.now();
    const before = new Set(this.live.keys());
    this.live.clear();
    for (const k of keys) this.live.set(k.key.slice(this.keys.peers.length), JSON.parse(k.value) as PeerInfo);
    for (const peerId of before) if (!this.live.has(peerId)) this.left.set(peerId, Date.now());
    for (const peerId of this.live.keys()) this.left.delete(peerId);
    this.watcher = await this.store.watch(this.keys.peers, revision + 1, {
      onEvents: (events) => this.apply(events),
      onLost: (error) => void this.refollow(error),
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.watcher?.cancel();
  }

  private apply(events: WatchEvent[]): void {
    for (const event of events) {
      const peerId = event.key.slice(this.keys.peers.length);
      if (event.type === 'put') {
        this.live.set(peerId, JSON.parse(event.value) as PeerInfo);
        this.left.delete(peerId);
      } else if (this.live.delete(peerId)) this.left.set(peerId, Date.now());
    }
  }

  private async refollow(error: Error): Promise<void> {
    if (this.closed) return;
    this.logger.warn({ err: error }, 'peer watch lost: re-reading the peers');
    for (let delay = 200; !this.closed; delay = Math.min(delay * 2, 5000)) {
      try {
        await this.follow();
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }
}
