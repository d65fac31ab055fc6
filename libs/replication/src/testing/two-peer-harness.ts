// The two-peer in-process harness of the replication specs: every peer is a real app context (catalog, points
// storage, LocalReplicas, ReplicaWriter, TransferReceiver, and the TransferDriver that runs TransferRun on the
// source), and the peers share one catalog through an in-memory store that behaves as etcd's watch does (a change
// is committed once, then published to every peer in commit order). Only the wire between peers is a stand-in (a
// structured clone of each request), plus stubs for peers that only answer writes where a scenario needs one.
import { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  CatalogConflict,
  ClusterService,
  CollectionCatalog,
  CollectionsModule,
  CollectionsService,
  emptyCatalog,
  type CatalogState,
  type CatalogStore,
  type ClusterMembership,
} from '@vectorstore/collections';
import { DomainError } from '@vectorstore/common';
import {
  CollectionContexts,
  CollectionSnapshots,
  PointsModule,
  PointsStorage,
  type ClockTag,
} from '@vectorstore/points';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalReplicas } from '../local-replicas';
import { PointsPeers, TransferApplyRequest } from '../points-peers';
import { ReplicaWriter } from '../replica-writer';
import { TransferDriver } from '../transfers/transfer-driver';
import { TransferReceiver } from '../transfers/transfer-receiver';
import { TransferSender } from '../transfers/transfer-sender';

export const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** A promise resolved from outside. */
export function gate<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((res) => (resolve = res));
  return { promise, resolve };
}

export async function until(condition: () => boolean, what = 'the condition', ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export const ticks = async (n = 10) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

export type CatalogHook = (state: CatalogState) => Promise<void> | void;

/**
 * The cluster's catalog as etcd holds it: a change made from an older state than the store's is refused as a
 * conflict (the peer builds it again), a committed change is published to every peer's watch in commit order before
 * the committing peer's call returns. Hooks stand for the round trip: `beforeCommit` runs while the change is on its
 * way, `afterCommit` once every peer has it (and may throw: the answer was lost).
 */
export class SharedCatalog {
  private state = emptyCatalog();
  private revision = 0;
  private queue: Promise<void> = Promise.resolve();
  private readonly members: Array<{ seen: WeakMap<object, number>; publish?: (state: CatalogState) => Promise<void> }> =
    [];
  private readonly hooks: Array<{
    when: 'before' | 'after';
    matches: (state: CatalogState) => boolean;
    run: CatalogHook;
  }> = [];

  /** Runs `run` once, before the first change to a state that `matches` is committed. */
  beforeCommit(matches: (state: CatalogState) => boolean, run: CatalogHook): void {
    this.hooks.push({ when: 'before', matches, run });
  }

  /** Runs `run` once, after the first change to a state that `matches` was committed and published. */
  afterCommit(matches: (state: CatalogState) => boolean, run: CatalogHook): void {
    this.hooks.push({ when: 'after', matches, run });
  }

  store(): CatalogStore {
    const member: (typeof this.members)[number] = { seen: new WeakMap() };
    this.members.push(member);
    return {
      load: () => {
        const copy = structuredClone(this.state);
        member.seen.set(copy, this.revision);
        return Promise.resolve(copy);
      },
      watch: (publish) => {
        member.publish = publish;
        return Promise.resolve();
      },
      save: async (state, base) => {
        await this.take('before', state)?.(state);
        const turn = this.queue.then(async () => {
          if (member.seen.get(base) !== this.revision) throw new CatalogConflict(this.revision);
          this.state = structuredClone(state);
          this.revision++;
          for (const each of this.members) {
            const copy = structuredClone(state);
            each.seen.set(copy, this.revision);
            await each.publish?.(copy);
          }
        });
        this.queue = turn.catch(() => undefined);
        await turn;
        await this.take('after', state)?.(state);
      },
    };
  }

  private take(when: 'before' | 'after', state: CatalogState): CatalogHook | undefined {
    const index = this.hooks.findIndex((hook) => hook.when === when && hook.matches(state));
    return index < 0 ? undefined : this.hooks.splice(index, 1)[0].run;
  }
}

/** One peer: a real app context over its own data folder, and the replication objects cluster mode binds. */
export interface Peer {
  id: string;
  dir: string;
  app: INestApplicationContext;
  catalog: CollectionCatalog;
  cluster: ClusterService;
  collections: CollectionsService;
  contexts: CollectionContexts;
  snapshots: CollectionSnapshots;
  storage: PointsStorage;
  peers: PointsPeers;
  replicas: LocalReplicas;
  writer: ReplicaWriter;
  receiver: TransferReceiver;
}

/** The wire between the peers: each request is a structured clone, as the peer service's encoding makes it. */
export class Network {
  readonly peers = new Map<string, Peer>();
  /** Peers that are not started: how they answer a write routed to them. */
  readonly stubs = new Map<string, (epoch: number | undefined, tag: ClockTag | undefined) => Promise<number>>();
  /** Every transfer batch, before it reaches its target (may hold it, or fail it). */
  onTransfer: (request: TransferApplyRequest) => Promise<void> | void = () => undefined;
  /** The batches targets applied, in order. */
  readonly delivered: TransferApplyRequest[] = [];

  of(selfId: string): PointsPeers {
    return {
      selfId,
      incarnation: `incarnation-of-${selfId}`,
      assertWritable: () => undefined,
      update: async (peerId, collection, shardId, operation, _lead, epoch, tag) => {
        const stub = this.stubs.get(peerId);
        if (stub) return stub(epoch, tag && { ...tag });
        return this.peer(peerId).replicas.apply(
          { id: collection.id, name: collection.name },
          shardId,
          structuredClone(operation),
          epoch,
          tag && { ...tag },
        );
      },
      transferApply: async (peerId, request) => {
        const copy = structuredClone(request);
        await this.onTransfer(copy);
        await this.peer(peerId).receiver.apply(copy);
        this.delivered.push(copy);
      },
      recoveryPoint: (peerId, collection, shardId) =>
        Promise.resolve(
          this.peer(peerId).contexts.resolve(collection.name).storage.shards.get(shardId)!.shard.recoveryPoint(),
        ),
      checksum: (peerId, collection, shardId) =>
        Promise.resolve(
          this.peer(peerId).contexts.resolve(collection.name).storage.shards.get(shardId)!.shard.checksum(),
        ),
      read: () => Promise.reject(new Error('no reads in these specs')),
    };
  }

  private peer(peerId: string): Peer {
    const peer = this.peers.get(peerId);
    if (!peer) throw DomainError.unavailable(`Service unavailable: peer ${peerId} is not live`);
    return peer;
  }
}

/** Membership as peer `selfId` sees it: two live peers; new shards go where `placeShards` puts them. */
export function twoPeerMembership(
  selfId: string,
  // By default new shards go where they are asked to, else on `selfId`.
  placeShards: ClusterMembership['placeShards'] = (count, _state, placement) =>
    Array.from({ length: count }, () => [...(placement ?? [selfId])]),
): ClusterMembership {
  return {
    status: () => ({ peerId: selfId, peers: [], fenced: false, sendFailures: {} }),
    livePeerCount: () => 2,
    placeShards,
    retirePeer: () => Promise.resolve(),
    peerStanding: () => Promise.resolve('live'),
  };
}

export interface PeerStart {
  id: string;
  shared: SharedCatalog;
  net: Network;
  membership: ClusterMembership;
  /** The start of the temporary data folder's name. */
  dirPrefix: string;
  /** An existing data folder (a restart keeps its data); a new one unless given. */
  dir?: string;
}

/** Starts a peer on its data folder and puts it on the network. */
export async function startPeer({ id, shared, net, membership, dirPrefix, dir }: PeerStart): Promise<Peer> {
  if (!dir) {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), `${dirPrefix}-${id}-`));
    fs.writeFileSync(path.join(dir, 'node.json'), `{"peerId": ${id}}`);
  }
  const app = await NestFactory.createApplicationContext(
    {
      module: class Root {},
      imports: [
        CollectionsModule.forRoot({ dataDir: dir, catalogStore: shared.store(), membership }),
        PointsModule.forRoot({ dataDir: dir }),
      ],
    },
    { logger: false },
  );
  const contexts = app.get(CollectionContexts);
  const catalog = app.get(CollectionCatalog);
  const cluster = app.get(ClusterService);
  const peers = net.of(id);
  const replicas = new LocalReplicas(contexts, peers);
  const peer: Peer = {
    id,
    dir,
    app,
    catalog,
    cluster,
    collections: app.get(CollectionsService),
    contexts,
    snapshots: app.get(CollectionSnapshots),
    storage: app.get(PointsStorage),
    peers,
    replicas,
    writer: new ReplicaWriter(replicas, peers, cluster, catalog),
    receiver: new TransferReceiver(contexts, app.get(CollectionSnapshots), peers),
  };
  net.peers.set(id, peer);
  return peer;
}

/**
 * Stops `peer` and starts it again on its data with `start`. `crash`: its shards are not flushed on the way down, so
 * only what the last flush wrote (the manifest, with its recovery point) and the fsynced log are there at the start.
 */
export async function restartPeer(
  peer: Peer,
  { crash }: { crash: boolean },
  net: Network,
  start: (id: string, dir: string) => Promise<Peer>,
): Promise<Peer> {
  if (crash)
    for (const storage of peer.storage.openStorages())
      for (const handle of storage.shards.values()) jest.spyOn(handle.shard, 'flush').mockResolvedValue();
  net.peers.delete(peer.id);
  await peer.app.close();
  return start(peer.id, peer.dir);
}

/** Starts the transfer driver of `peer` (a process of it), kept in `drivers`: it runs the transfers whose source it is. */
export async function startDriver(peer: Peer, drivers: TransferDriver[]): Promise<TransferDriver> {
  const driver = new TransferDriver(
    peer.catalog,
    peer.cluster,
    peer.contexts,
    peer.snapshots,
    peer.replicas,
    peer.storage,
    peer.peers,
  );
  drivers.push(driver);
  await driver.onModuleInit();
  return driver;
}

/** Holds the copy before its second batch until `open`; later calls (another run) pass. */
export function holdCopy() {
  const opened = gate();
  const reached = gate();
  const original = TransferSender.prototype.roomFor;
  let calls = 0;
  jest.spyOn(TransferSender.prototype, 'roomFor').mockImplementation(async function (this: TransferSender, bytes) {
    if (++calls === 2) {
      reached.resolve();
      await opened.promise;
    }
    return original.call(this, bytes);
  });
  return { reached: reached.promise, open: () => opened.resolve() };
}

/** What every spec's afterEach does: stops the drivers, restores the mocks, closes the peers and removes their data. */
export async function stopPeers(net: Network, drivers: TransferDriver[], peers: Peer[]): Promise<void> {
  net.onTransfer = () => undefined;
  for (const driver of drivers) driver.onApplicationShutdown();
  jest.restoreAllMocks();
  for (const peer of peers) {
    await peer.app.close();
    fs.rmSync(peer.dir, { recursive: true, force: true });
  }
}
