// One peer in cluster mode: its connection to the metadata store, lease, registration, leader
// election and catalog store, started before the app and stopped after it.
import { Logger } from '@nestjs/common';
import { DomainError } from '@vectorstore/common';
import {
  CatalogState,
  ClusterMembership,
  ClusterStatusView,
  comparePeerIds,
  type PeerStanding,
} from '@vectorstore/collections';
import type { ClusterConfig } from '@vectorstore/config';
import { randomBytes } from 'node:crypto';
import { ClusterKeys } from './cluster-keys';
import { EtcdCatalogStore } from './etcd-catalog.store';
import { LeaderElection } from './leader-election';
import { EtcdMetadataStore } from './metadata/etcd-metadata-store';
import { MetadataStore } from './metadata/metadata-store';
import { PeerContacts, PeerTransport } from './peer-contacts';
import { checkPeerCompatible, nodeMajor, PeerIdentity } from './peer-hello';
import { PeerLease } from './peer-lease';
import { PeerInfo, PeerRegistry } from './peer-registry';
import { placeShards } from './shard-placement';
import type { UserRecord } from '@vectorstore/auth';
import { EtcdRefreshRecords } from './auth/etcd-refresh-records';
import { EtcdUserStore } from './auth/etcd-user-store';

const FORMAT = { v: 1 };

export interface ClusterNodeOptions {
  config: ClusterConfig;
  peerId: string;
  /** Public addresses, published for other peers and clients. */
  httpUri: string;
  grpcUri: string;
  version: string;
  /** The store to use; the etcd client by default. */
  store?: MetadataStore;
  /** The catalog this data folder had in standalone mode, imported into an empty cluster. */
  standaloneCatalog?: CatalogState;
  /** The users this data folder had in standalone mode, imported into a cluster without users. */
  standaloneUsers?: UserRecord[];
  /** How long a used refresh token's seal may live (the reuse grace): the leader's sweep drops older ones. */
  sealLifetimeMs?: number;
}

/** How often the leader sweeps expired refresh sessions and old seals out of etcd. */
const AUTH_SWEEP_INTERVAL_MS = 30_000;

export class ClusterNode implements ClusterMembership {
  private readonly logger = new Logger(ClusterNode.name);

  /** Whether this start moved the data folder's standalone catalog into the cluster. */
  importedStandalone = false;
  /** Whether this start moved the data folder's standalone users into the cluster. */
  importedUsers = false;
  private contacts: PeerContacts | undefined;
  private joined = false;
  private sweepTimer: NodeJS.Timeout | undefined;
  /** The cluster's users and refresh sessions, in etcd: every peer logs in and refreshes the same ones. */
  readonly users: EtcdUserStore;
  readonly refreshRecords: EtcdRefreshRecords;
  private sealLifetimeMs = 0;

  private constructor(
    readonly clusterName: string,
    readonly store: MetadataStore,
    readonly lease: PeerLease,
    readonly registry: PeerRegistry,
    readonly leader: LeaderElection,
    readonly catalogStore: EtcdCatalogStore,
    /** Signs and checks calls between peers. */
    readonly secret: string,
    private readonly leaseTtlSeconds: number,
    keys: ClusterKeys,
  ) {
    // Before it joins, a peer has no lease to lose: its first admin (made while the app starts) may be written.
    this.users = new EtcdUserStore(
      store,
      keys,
      () => {
        if (this.joined) this.lease.assertValid();
      },
      () => (this.joined ? this.registry.registrationGuard() : undefined),
    );
    this.refreshRecords = new EtcdRefreshRecords(store, keys);
  }

  /** This peer as it introduces itself to others. */
  get identity(): PeerIdentity {
    const { peerId, incarnation, version } = this.registry.self;
    return { clusterName: this.clusterName, peerId, incarnation, version, nodeMajor: nodeMajor() };
  }

  /** Answers another peer's Hello: refuses one from another cluster, version or Node.js major. */
  hello(from: PeerIdentity): { peer: PeerIdentity; catalogRevision: number } {
    checkPeerCompatible(this.identity, from);
    return { peer: this.identity, catalogRevision: this.catalogStore.revision };
  }

  /** Starts saying Hello to the other peers over `transport`, every lease TTL. */
  connectPeers(transport: PeerTransport): void {
    this.contacts = new PeerContacts(
      {
        close: () => transport.close(),
        hello: async (peer, timeoutMs) => {
          const reply = await transport.hello(peer, timeoutMs);
          checkPeerCompatible(this.identity, reply.peer);
          return reply;
        },
      },
      () => this.registry.peers.values(),
      this.registry.self.peerId,
      this.leaseTtlSeconds * 1000,
    );
    this.contacts.start();
  }

  /**
   * Connects and readies the shared catalog, before the app starts. The peer joins (lease,
   * registration, leader election) with {@link join} once the app is up: the app's start blocks the
   * event loop for longer than a short lease lives.
   */
  static async start(options: ClusterNodeOptions): Promise<ClusterNode> {
    const { config, peerId } = options;
    const store = options.store ?? (await connectEtcd(config));
    try {
      const keys = new ClusterKeys(config.name);
      await checkFormat(store, keys);
      const lease = new PeerLease(store, config.leaseTtlSeconds);
      const self: PeerInfo = {
        peerId,
        incarnation: randomBytes(8).toString('hex'),
        p2pUri: `http://${config.advertiseHost}:${config.p2p.port}`,
        httpUri: options.httpUri,
        grpcUri: options.grpcUri,
        version: options.version,
        startedAt: new Date().toISOString(),
      };
      const registry = new PeerRegistry(store, keys, self);
      const catalogStore = new EtcdCatalogStore(
        store,
        keys,
        config.etcd.timeoutMs,
        () => lease.assertValid(),
        () => registry.registrationGuard(),
      );
      // The imported shards are this peer's: its data folder holds them.
      const imported = await catalogStore.importStandalone(ownedBy(options.standaloneCatalog, peerId));
      const leader = new LeaderElection(store, keys, { peerId, incarnation: self.incarnation }, () => lease.id);
      const node = new ClusterNode(
        config.name,
        store,
        lease,
        registry,
        leader,
        catalogStore,
        config.secret,
        config.leaseTtlSeconds,
        keys,
      );
      node.importedStandalone = imported;
      node.importedUsers = await importUsers(store, keys, options.standaloneUsers);
      node.sealLifetimeMs = options.sealLifetimeMs ?? 0;
      return node;
    } catch (error) {
      await store.close().catch(() => undefined);
      throw error;
    }
  }

  /** Takes a lease, registers this peer and campaigns for leadership. */
  async join(): Promise<void> {
    // Set first: a lease lost while joining must bring the registration back too.
    this.lease.onRegranted = async (leaseId) => {
      await this.registry.register(leaseId);
      await this.leader.campaign();
    };
    await this.lease.start();
    await this.registry.register(this.lease.id);
    await this.registry.follow();
    await this.leader.start();
    this.joined = true;
    this.sweepTimer = setInterval(() => void this.sweepAuth(), AUTH_SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
    this.logger.log(
      `joined cluster "${this.clusterName}" as peer ${this.registry.self.peerId} (${this.registry.peers.size} peers live${this.importedStandalone ? '; imported the standalone catalog' : ''})`,
    );
  }

  livePeerCount(): number {
    return this.registry.peers.size;
  }

  /** The live peers' ids. */
  livePeerIds(): string[] {
    return [...this.registry.peers.keys()];
  }

  /** Since when `peerId` has not been live (ms since the epoch), as this peer saw it; undefined while live. */
  goneSince(peerId: string): number | undefined {
    return this.registry.goneSince(peerId);
  }

  /** Whether the last call to a live peer failed (it may have died before its lease ran out). */
  unreachable(peerId: string): boolean {
    if (peerId === this.registry.self.peerId) return false;
    const peer = this.registry.peers.get(peerId);
    return peer !== undefined && this.contacts?.unreachable(peer.p2pUri) === true;
  }

  /** The process a live peer runs now (its registration's incarnation). */
  incarnationOf(peerId: string): string | undefined {
    return this.registry.peers.get(peerId)?.incarnation;
  }

  /** Whether this peer holds the leadership now (and may act on it: its lease is confirmed). */
  isLeader(): boolean {
    return this.leader.leader?.peerId === this.registry.self.peerId && !this.lease.fenced;
  }

  placeShards(
    count: number,
    state: Readonly<CatalogState>,
    placement?: readonly string[],
    replicationFactor = 1,
  ): string[][] {
    // Not a peer whose last call failed: its lease may not have run out yet, but it is gone for all we know.
    const candidates = [...this.registry.peers.values()]
      .filter((peer) => peer.peerId === this.registry.self.peerId || !this.contacts?.unreachable(peer.p2pUri))
      .map((peer) => peer.peerId);
    return placeShards(count, state, candidates, placement, replicationFactor);
  }

  /** Says Hello to every live peer now (at most 1 s each), so that placement knows who answers. */
  async probePeers(): Promise<void> {
    await this.contacts?.probe(1000);
  }

  async peerStanding(peerId: string): Promise<PeerStanding> {
    if (this.registry.peers.has(peerId)) return 'live';
    return (await this.registry.isMember(peerId)) ? 'gone' : 'unknown';
  }

  async retirePeer(peerId: string): Promise<void> {
    this.lease.assertValid();
    await this.registry.retire(peerId);
  }

  /** Throws UNAVAILABLE unless this peer is registered and its lease is confirmed (it may acknowledge writes). */
  assertWritable(): void {
    this.lease.assertValid();
  }

  /** The internal peer service address of a live peer. */
  peerAddress(peerId: string): string | undefined {
    return this.registry.peers.get(peerId)?.p2pUri;
  }

  status(): ClusterStatusView {
    const peers = [...this.registry.peers.values()]
      .map((peer) => ({ peerId: peer.peerId, uri: peer.p2pUri }))
      .sort((a, b) => comparePeerIds(a.peerId, b.peerId));
    return {
      peerId: this.registry.self.peerId,
      peers,
      leaderId: this.leader.leader?.peerId,
      fenced: this.lease.fenced,
      sendFailures: Object.fromEntries(this.contacts?.sendFailures ?? []),
    };
  }

  /**
   * Leaves the cluster before the app drains: steps down and revokes the lease, so other peers see this
   * one gone at once; from then on it is fenced (no metadata changes).
   */
  async leave(): Promise<void> {
    await this.leader.resign();
    await this.lease.stop(true);
  }

  /** The leader's sweep of refresh sessions nobody can use any more (see EtcdRefreshRecords.sweep). */
  private async sweepAuth(): Promise<void> {
    if (!this.isLeader()) return;
    try {
      const swept = await this.refreshRecords.sweep(this.sealLifetimeMs);
      if (swept.tokens + swept.families + swept.seals > 0)
        this.logger.debug(
          `swept ${swept.tokens} expired refresh tokens, ${swept.families} sessions, ${swept.seals} seals`,
        );
    } catch (error) {
      this.logger.warn(`refresh session sweep failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Stops watching and disconnects, after the app has closed. */
  async close(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await this.users.close();
    await this.contacts?.stop();
    await this.leader.close();
    await this.registry.close();
    await this.catalogStore.close();
    await this.lease.stop(false);
    await this.store.close();
  }

  async stop(): Promise<void> {
    await this.leave();
    await this.close();
  }
}

/**
 * Brings the data folder's standalone users into a cluster that has none (a server switched to cluster mode keeps
 * its accounts), in one guarded write: when another peer made or imported users first, nothing is imported.
 */
async function importUsers(store: MetadataStore, keys: ClusterKeys, users: UserRecord[] | undefined): Promise<boolean> {
  if (!users || users.length === 0) return false;
  const result = await store.txn(
    [{ key: keys.users, absent: true }],
    [{ put: keys.users, value: JSON.stringify({ version: 1, users }) }],
  );
  return result.succeeded;
}

function connectEtcd(config: ClusterConfig): Promise<MetadataStore> {
  return EtcdMetadataStore.connect(config.etcd);
}

/** The first peer writes the layout version; later peers refuse a layout they do not know. */
async function checkFormat(store: MetadataStore, keys: ClusterKeys): Promise<void> {
  await store.txn([{ key: keys.format, absent: true }], [{ put: keys.format, value: JSON.stringify(FORMAT) }]);
  const found = await store.get(keys.format);
  const version = found ? (JSON.parse(found.value) as { v?: unknown }).v : undefined;
  if (version !== FORMAT.v)
    throw DomainError.failedPrecondition(
      `cluster metadata under ${keys.root} has layout version ${String(version)}; this server knows version ${FORMAT.v}`,
    );
}

/** A standalone catalog with every shard placed on `peerId` (a standalone record names no peer). */
function ownedBy(catalog: CatalogState | undefined, peerId: string): CatalogState | undefined {
  if (!catalog) return undefined;
  const collections = new Map(
    [...catalog.collections].map(([name, record]) => [
      name,
      { ...record, shards: record.shards.map((shard) => ({ ...shard, peerId: shard.peerId ?? peerId })) },
    ]),
  );
  return { ...catalog, collections };
}
