// Review of the resharding change (abf2c83, issue 29 item 4): the replication side. Behaviours that hold are plain
// specs; confirmed defects are `it.failing`, each with a comment naming it (D-numbers of the review report).
//
// The harness is ../testing/two-peer-harness.ts: two peers in one process, each a real app context, sharing one
// catalog through an in-memory store that publishes like etcd's watch; only the wire is a stand-in. The leader's
// ReshardingDriver is run one tick at a time.
import { ModuleRef } from '@nestjs/core';
import {
  emptyCollectionStats,
  readExclusions,
  unreadShardIds,
  type CollectionRecord,
  type ReplicaState,
} from '@vectorstore/collections';
import { DomainError } from '@vectorstore/common';
import { ringShard, type Filter, type UpdateOperation } from '@vectorstore/points';
import { serialize } from 'node:v8';
import { ClusterStatsGatherer } from '../cluster-stats';
import type { ClusterTopology } from '../healing/replica-healer';
import { PointsPeers, type ShardRead } from '../points-peers';
import {
  gate,
  holdCopy,
  Network,
  range,
  SharedCatalog,
  startDriver as startHarnessDriver,
  startPeer as startHarnessPeer,
  stopPeers,
  twoPeerMembership,
  until,
  type Peer,
} from '../testing/two-peer-harness';
import { TransferDriver } from '../transfers/transfer-driver';
import { ReshardingDriver } from './resharding-driver';
import { movedPoints } from './resharding-scope';

const A = '101';
const B = '202';

const dense = (...values: number[]) => ({ kind: 'dense' as const, values: Float32Array.from(values) });
const upsert = (ids: number[]): UpdateOperation => ({
  upsert: { points: ids.map((id) => ({ id: BigInt(id), vectors: { a: dense(id, 1) }, payload: { n: id } })) },
});

describe('resharding review: replication', () => {
  let shared: SharedCatalog;
  let net: Network;
  let peerA: Peer;
  let peerB: Peer;
  let drivers: TransferDriver[];
  /** Where new shards go: one list of peers per shard, in order. */
  let placement: string[][];

  const membership = twoPeerMembership(A, (count) => Array.from({ length: count }, (_, i) => placement[i] ?? [A]));
  const startPeer = (id: string) =>
    startHarnessPeer({ id, shared, net, membership, dirPrefix: 'vs-resharding-review' });
  const startDriver = (peer: Peer) => startHarnessDriver(peer, drivers);

  /** The leader's resharding driver on peer A, with `live` peers (the others gone for an hour). */
  function leader(live: string[]): ReshardingDriver {
    const topology: ClusterTopology = {
      isLeader: () => true,
      livePeerIds: () => live,
      goneSince: (peerId) => (live.includes(peerId) ? undefined : Date.now() - 3_600_000),
    };
    return new ReshardingDriver(peerA.catalog, peerA.cluster, peerA.contexts, peerA.writer, topology);
  }

  const record = (): CollectionRecord => peerA.catalog.resolve('c')!;
  const stateOf = (peerId: string, shardId: number): ReplicaState | undefined =>
    record().shards.find((s) => s.shardId === shardId && s.peerId === peerId)?.state;
  const shardOf = (peer: Peer, shardId: number) => peer.contexts.resolve('c').storage.shards.get(shardId)?.shard;
  const has = (peer: Peer, shardId: number, id: number) => shardOf(peer, shardId)?.find(BigInt(id)) !== undefined;
  /** A client's write through peer A, one shard's part. */
  const write = (operation: UpdateOperation, shardId: number) =>
    peerA.writer.apply(peerA.contexts.resolve('c'), shardId, operation, undefined);
  const reshard = (direction: 'up' | 'down', peerId?: string) =>
    peerA.cluster.updateClusterSetup('c', {
      peerOperation: 'startResharding',
      resharding: { direction: direction === 'up' ? 'Up' : 'Down', ...(peerId ? { peerId } : {}) },
    });
  /** Starts the resharding copy `fromShard` -> `toShard` (on `to`) from `from`, as the driver starts it. */
  const beginCopy = (fromShard: number, toShard: number, from: string, to: string) =>
    peerA.cluster.beginTransfers(record().id, [
      {
        shardId: fromShard,
        toShardId: toShard,
        from,
        to,
        sync: true,
        method: 'ReshardingStreamRecords',
        reason: 'resharding',
        filter: serialize(movedPoints(record(), fromShard, toShard)!.filter).toString('base64'),
      },
    ]);
  const noTransfers = () =>
    until(
      () => !record().transfers && drivers.every((driver) => driver.running().length === 0),
      'the transfers to end',
    );

  beforeEach(async () => {
    shared = new SharedCatalog();
    net = new Network();
    drivers = [];
    placement = [];
    peerA = await startPeer(A);
    peerB = await startPeer(B);
  });

  afterEach(() => stopPeers(net, drivers, [peerA, peerB]));

  async function create(shardNumber: number, replicationFactor = 1): Promise<void> {
    await peerA.collections.create({
      name: 'c',
      vectors: { paramsMap: { a: { size: 2, distance: 'Dot' } } },
      shardNumber,
      replicationFactor,
    });
    expect(record().router).toBe('Ring');
  }

  // D1: a resharding copy into another shard never deletes there (transfer-run.ts copyRecords: nothing is reset or
  // deleted when a filter is set), and while its unit is not migrated the target's direct writes leave out the
  // unit's points (local-replicas.ts pendingCopies). So when a copy fails after some batches and is run again, a point
  // it had copied and that was deleted in between stays on the target: the new run copies only what the source still
  // has. Once reads follow the new ring, the deleted point is back (Up: read from the new shard; Down: read from the
  // target shard). The same holds for a Down target replica that went Dead and was rebuilt before its copy ran.
  it('D1: a point deleted between a failed copy and its retry is not left on the new shard', async () => {
    await create(1);
    await write(upsert(range(1, 300)), 0);
    await reshard('up', B);
    const newShard = record().resharding!.shardId;
    await until(() => shardOf(peerB, newShard) !== undefined, 'the new shard open on B');
    const moved = range(1, 300).filter((id) => movedPoints(record(), 0, newShard)!.has(BigInt(id)));
    expect(moved.length).toBeGreaterThan(100);
    const hold = holdCopy();
    await startDriver(peerA);
    await beginCopy(0, newShard, A, B);
    await hold.reached;
    const first = moved[0];
    await until(() => has(peerB, newShard, first), 'the first batch on B');
    // The copy fails on its second batch; its target keeps its state (and what it got).
    net.onTransfer = () => {
      throw DomainError.failedPrecondition('Failed precondition: the link broke');
    };
    hold.open();
    await noTransfers();
    expect(stateOf(B, newShard)).toBe('Resharding');
    net.onTransfer = () => undefined;
    // The client deletes the point: routed to its owner under both rings.
    await write({ deletePoints: { selector: { ids: [BigInt(first)] } } }, 0);
    await write({ deletePoints: { selector: { ids: [BigInt(first)] } } }, newShard);
    expect(has(peerA, 0, first)).toBe(false);
    // The copy runs again, to its end.
    await beginCopy(0, newShard, A, B);
    await noTransfers();
    expect(record().resharding!.migrated).toEqual([`0>${newShard}@${B}`]);
    expect(moved.slice(1).every((id) => has(peerB, newShard, id))).toBe(true);
    expect(has(peerB, newShard, first)).toBe(false);
  });

  // D3: markReplicasDead (cluster.service.ts) refuses to mark a replica Dead unless another replica of its shard is
  // `Active`; a scale-down's shard has only ReshardingScaleDown replicas. With replication_factor 2, a write that one
  // of them fails is answered INTERNAL ("could not be marked Dead") though the other applied it, and the replica that
  // missed it stays ReshardingScaleDown: it is still read from and may be chosen as the copy's source
  // (resharding-driver.ts sourceOf), spreading what it missed. Same for the healer (activeSource wants Active).
  it('D3: a failed replica of the shard a scale-down removes can be marked Dead', async () => {
    placement = [
      [A, B],
      [A, B],
    ];
    await create(2, 2);
    await reshard('down');
    const removed = record().resharding!.shardId;
    expect(stateOf(A, removed)).toBe('ReshardingScaleDown');
    expect(stateOf(B, removed)).toBe('ReshardingScaleDown');
    await peerA.cluster.markReplicasDead(record().id, [{ shardId: removed, peerId: B }]);
    expect(stateOf(B, removed)).toBe('Dead');
  });

  // D4: the driver gives a scale-up up only when the new shard's replica is Dead (resharding-driver.ts migrate), but
  // nothing ever marks it Dead: it is its shard's only replica, and markReplicasDead and the healer both keep a
  // shard's last replica. With the new shard's peer gone, the resharding stays in MigratingPoints for good, and every
  // write to a point the new ring gives the new shard fails (its part has no replica to take it) until the peer
  // returns or an operator aborts.
  it('D4: a scale-up whose new shard peer is gone for good is given up by the leader', async () => {
    await create(1);
    await write(upsert(range(1, 50)), 0);
    await reshard('up', B);
    const driver = leader([A]);
    await driver.tick();
    await driver.tick();
    expect(record().resharding).toBeUndefined();
  });

  // D5: a resharding copy into another shard that is aborted keeps being applied on its target: TransferReceiver
  // takes a known run's batch when the transfer is gone and the target replica is not Dead ("finished"), which is
  // what an aborted scale-down leaves (its targets stay Active). The leader's Aborting step deletes the copies at once
  // (no settle, unlike the cleanup after the write ring), so a batch on its way lands after the cleanup: the removed
  // shard's points are then in two shards for good (read twice, counted twice).
  it('D5: a batch of an aborted scale-down copy that arrives after the cleanup is not applied', async () => {
    placement = [[A], [B]];
    await create(2);
    // Each point written to its shard on the ring [0, 1]: shard 0 on A, shard 1 on B.
    const ofShard1 = range(1, 400).filter((id) => ringShard(BigInt(id), [0, 1]) === 1);
    await write(upsert(range(1, 400).filter((id) => !ofShard1.includes(id))), 0);
    await write(upsert(ofShard1), 1);
    expect(ofShard1.length).toBeGreaterThan(150);
    await reshard('down');
    expect(record().resharding!.shardId).toBe(1);
    const hold = holdCopy();
    await startDriver(peerB);
    await beginCopy(1, 0, B, A);
    await hold.reached;
    await until(() => has(peerA, 0, ofShard1[0]), 'the first batch on A');
    const held = gate();
    const arrived = gate();
    net.onTransfer = async (request) => {
      if (request.seq < 2) return;
      arrived.resolve();
      await held.promise;
    };
    hold.open();
    await arrived.promise;
    // The operator aborts; the leader removes the copies and ends the resharding.
    await peerA.cluster.updateClusterSetup('c', { peerOperation: 'abortResharding' });
    // The leader removes the copies once the abort has settled (every peer's catalog shows it).
    await new Promise((resolve) => setTimeout(resolve, 2100));
    await leader([A, B]).tick();
    expect(record().resharding).toBeUndefined();
    expect(ofShard1.some((id) => has(peerA, 0, id))).toBe(false);
    // The batch that was on its way arrives.
    held.resolve();
    await noTransfers();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ofShard1.filter((id) => has(peerA, 0, id))).toEqual([]);
  });

  /** A scale-up 1 -> 2 shards (the new one on B) driven to ReadHashRingCommitted; the points the new shard got. */
  async function scaleUpToReadRing(driver: ReshardingDriver): Promise<number[]> {
    await create(1);
    await write(upsert(range(1, 300)), 0);
    await reshard('up', B);
    await until(() => shardOf(peerB, 1) !== undefined, 'the new shard open on B');
    const moved = range(1, 300).filter((id) => movedPoints(record(), 0, 1)!.has(BigInt(id)));
    await startDriver(peerA);
    await driver.tick();
    await noTransfers();
    await driver.tick();
    expect(record().resharding!.stage).toBe('ReadHashRingCommitted');
    return moved;
  }

  // D7 (fixed): the cleanup after writes follow the new ring waited a fixed 2 s (RESHARDING_SETTLE_MS), not for the
  // writes routed to the old shards before it: one still on its way there when the cleanup ran landed after it and
  // left a copy of a moved point on the old shard for good (read twice once the resharding ends).
  it('D7: the cleanup waits for a write routed to an old shard before it', async () => {
    const driver = leader([A, B]);
    const moved = await scaleUpToReadRing(driver);
    // A new point the new ring gives the new shard: written to both shards while reads follow the new ring.
    const late = range(1001, 1300).find((id) => ringShard(BigInt(id), [0, 1]) === 1)!;
    const shard0 = shardOf(peerA, 0)!;
    const original = shard0.update.bind(shard0);
    const reached = gate();
    const released = gate();
    jest.spyOn(shard0, 'update').mockImplementation(async (operation, tag) => {
      if ('upsert' in operation && operation.upsert.points.some((point) => point.id === BigInt(late))) {
        reached.resolve();
        await released.promise;
      }
      return original(operation, tag);
    });
    const toOld = write(upsert([late]), 0);
    await write(upsert([late]), 1);
    await reached.promise;
    // Writes follow the new ring; the leader looks every 100 ms for longer than the old fixed settle.
    await peerA.cluster.stepResharding(record().id, 'commitWrite');
    const deadline = Date.now() + 2300;
    while (Date.now() < deadline) {
      await Promise.race([driver.tick(), new Promise((resolve) => setTimeout(resolve, 100))]);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    released.resolve();
    await toOld;
    await until(() => record().resharding === undefined, 'the resharding to end');
    await driver.tick();
    expect([...moved, late].filter((id) => has(peerA, 0, id))).toEqual([]);
    expect([...moved, late].every((id) => has(peerB, 1, id))).toBe(true);
  });

  // D7 (fixed): a part split by both rings is routed again unchanged when its first routing was stale; arriving at an
  // old shard once writes follow the new ring (here after the cleanup), it must not bring a moved point back there.
  it('D7: a write split by both rings and routed again after writes follow the new ring leaves the old shard out', async () => {
    const driver = leader([A, B]);
    await scaleUpToReadRing(driver);
    const late = range(1001, 1300).find((id) => ringShard(BigInt(id), [0, 1]) === 1)!;
    const stay = range(1001, 1300).find((id) => ringShard(BigInt(id), [0, 1]) === 0)!;
    await peerA.cluster.stepResharding(record().id, 'commitWrite');
    for (const deadline = Date.now() + 5000; record().resharding && Date.now() < deadline;) {
      await driver.tick();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(record().resharding).toBeUndefined();
    // The part for shard 0 of a write split while writes went by both rings, as routed again at the current epoch.
    await peerA.replicas.apply({ id: record().id, name: 'c' }, 0, upsert([late, stay]), record().replicaEpoch ?? 0);
    expect(has(peerA, 0, late)).toBe(false);
    expect(has(peerA, 0, stay)).toBe(true);
  });

  it('holds: with no copy failing, a scale-up copy leaves the new shard exactly the moved points, under writes', async () => {
    await create(1);
    await write(upsert(range(1, 300)), 0);
    await reshard('up', B);
    const newShard = record().resharding!.shardId;
    await until(() => shardOf(peerB, newShard) !== undefined, 'the new shard open on B');
    const scope = movedPoints(record(), 0, newShard)!;
    const moved = range(1, 300).filter((id) => scope.has(BigInt(id)));
    const hold = holdCopy();
    await startDriver(peerA);
    await beginCopy(0, newShard, A, B);
    await hold.reached;
    // During the copy: a delete by id (both rings), a filtered payload update and a filtered delete (every shard).
    const gone = moved[moved.length - 1];
    await write({ deletePoints: { selector: { ids: [BigInt(gone)] } } }, 0);
    await write({ deletePoints: { selector: { ids: [BigInt(gone)] } } }, newShard);
    const byFilter = { must: [{ field: { key: 'n', range: { gte: 250 } } }] };
    for (const shardId of [0, newShard]) {
      await write({ setPayload: { selector: { filter: byFilter }, payload: { late: true } } }, shardId);
      await write(
        { deletePoints: { selector: { filter: { must: [{ field: { key: 'n', range: { gte: 290 } } }] } } } },
        shardId,
      );
    }
    hold.open();
    await noTransfers();
    const expected = moved.filter((id) => id !== gone && id < 290);
    const onB = range(1, 300).filter((id) => has(peerB, newShard, id));
    expect(onB).toEqual(expected);
    for (const id of expected.filter((id) => id >= 250)) {
      const ref = shardOf(peerB, newShard)!.find(BigInt(id))!;
      expect(ref.segment.payload(ref.slot)).toEqual({ n: id, late: true });
    }
  });
});

describe('resharding review: reads see each point once at every stage', () => {
  const NOW = new Date('2026-11-28T12:00:00Z');
  const ids = range(1, 3000).map(BigInt);
  const owner = (id: bigint, ring: number[]) => ring[ringShard(id, ring)];

  function base(): CollectionRecord {
    return {
      id: 'c1',
      name: 'c',
      createdAt: NOW.toISOString(),
      config: { params: { shardNumber: 3, shardingMethod: 'Auto' } } as CollectionRecord['config'],
      router: 'Ring',
      shards: [0, 1, 2].map((shardId) => ({ shardId, state: 'Active' as const, peerId: A })),
      shardKeys: [],
      nextShardId: 3,
    };
  }

  /** What each shard holds: its points under the `old` ring, and (`copied`) copies where the `fresh` ring puts them. */
  function contents(old: number[], fresh: number[], copied: (id: bigint) => boolean) {
    const held = new Map<number, Set<bigint>>();
    const put = (shardId: number, id: bigint) => held.set(shardId, (held.get(shardId) ?? new Set()).add(id));
    for (const id of ids) {
      put(owner(id, old), id);
      if (copied(id)) put(owner(id, fresh), id);
    }
    return held;
  }

  /** The points a read over every shard returns (a multiset, as ids). */
  function read(r: CollectionRecord, held: Map<number, Set<bigint>>): bigint[] {
    const unread = unreadShardIds(r);
    const exclusions = readExclusions(r);
    const out: bigint[] = [];
    for (const [shardId, points] of held) {
      if (unread.has(shardId)) continue;
      for (const id of points)
        if (!exclusions.some((e) => e.shardIds.includes(shardId) && owner(id, e.ring) === e.owner)) out.push(id);
    }
    return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  /** The record at `stage` of a resharding (as the catalog rules leave it; their own spec covers the steps). */
  function at(
    direction: 'Up' | 'Down',
    stage: 'MigratingPoints' | 'ReadHashRingCommitted' | 'WriteHashRingCommitted' | 'Aborting',
  ) {
    const r = base();
    const shardId = direction === 'Up' ? 3 : 2;
    if (direction === 'Up')
      r.shards.push({ shardId, state: stage === 'MigratingPoints' ? 'Resharding' : 'Active', peerId: A });
    r.resharding = { direction, shardId, peerId: A, stage, stageAt: NOW.toISOString() };
    return r;
  }

  it('holds: Up and Down, while points migrate (half copied), once reads and writes follow the new ring, and abort', () => {
    const old = [0, 1, 2];
    const half = (id: bigint) => id % 2n === 0n;
    for (const direction of ['Up', 'Down'] as const) {
      const fresh = direction === 'Up' ? [0, 1, 2, 3] : [0, 1];
      // Half the copies made while points migrate: a read must neither miss nor double any point.
      expect(read(at(direction, 'MigratingPoints'), contents(old, fresh, half))).toEqual(ids);
      for (const stage of ['ReadHashRingCommitted', 'WriteHashRingCommitted'] as const)
        expect(
          read(
            at(direction, stage),
            contents(old, fresh, () => true),
          ),
        ).toEqual(ids);
    }
    // A scale-down given up: the copies made so far (half) hidden until they are removed.
    expect(read(at('Down', 'Aborting'), contents(old, [0, 1], half))).toEqual(ids);
  });
});

describe('resharding review: collection info', () => {
  const NOW = new Date('2026-11-28T12:00:00Z');
  const ids = range(1, 300).map(BigInt);
  const owner = (id: bigint, ring: number[]) => ring[ringShard(id, ring)];
  /** Where the points are, by shard: every shard holds the points either ring gives it (the copies made). */
  const heldBy = (shardId: number) =>
    ids.filter((id) => owner(id, [0, 1, 2]) === shardId || owner(id, [0, 1, 2, 3]) === shardId);
  const countOf = (shardId: number, filter: Filter | undefined) => {
    const rules = (filter?.must ?? []).map(
      (condition) => (condition as { ringOwner: { shardIds: number[]; owner: number } }).ringOwner,
    );
    return heldBy(shardId).filter((id) => rules.every((rule) => owner(id, rule.shardIds) === rule.owner)).length;
  };
  const local = (record: CollectionRecord) => (shardIds: readonly number[]) => {
    const stats = emptyCollectionStats(record);
    for (const shardId of shardIds) {
      stats.pointsCount += heldBy(shardId).length;
      stats.shards[shardId] = { ...stats.shards[shardId], pointsCount: heldBy(shardId).length };
    }
    return stats;
  };
  /** This peer's count reads (ShardEndpoint.read), answered from `heldBy`. */
  let countReads = 0;
  const endpoint = {
    read: (_record: CollectionRecord, shardIds: readonly number[], read: ShardRead) => {
      if (read.kind !== 'count') throw new Error(`unexpected ${read.kind} read`);
      countReads++;
      return Promise.resolve(shardIds.reduce((sum, shardId) => sum + countOf(shardId, read.request.filter), 0));
    },
  };
  const peers = { selfId: A, read: () => Promise.reject(new Error('one peer only')) } as unknown as PointsPeers;
  const gatherer = () => new ClusterStatsGatherer(peers, { get: () => endpoint } as unknown as ModuleRef);

  function resharding(
    direction: 'Up' | 'Down',
    stage: NonNullable<CollectionRecord['resharding']>['stage'],
  ): CollectionRecord {
    const readsNew = stage === 'ReadHashRingCommitted' || stage === 'WriteHashRingCommitted';
    const shard3 = direction === 'Up' ? (readsNew ? 'Active' : 'Resharding') : 'ReshardingScaleDown';
    return {
      id: 'c1',
      name: 'c',
      createdAt: NOW.toISOString(),
      config: { params: { shardNumber: 3, shardingMethod: 'Auto' } } as CollectionRecord['config'],
      router: 'Ring',
      shards: [
        ...[0, 1, 2].map((shardId) => ({ shardId, state: 'Active' as const, peerId: A })),
        { shardId: 3, state: shard3, peerId: A },
      ],
      shardKeys: [],
      nextShardId: 4,
      resharding: { direction, shardId: 3, peerId: A, stage, stageAt: NOW.toISOString() },
    };
  }

  // D6 (fixed): collection info (cluster-stats.ts) knew nothing of resharding. While points migrate, the new shard
  // (Resharding, not readable) was reported as "has no readable replica: the counts leave it out"; once reads followed
  // the new ring, points_count added the copies the old shards still held until the cleanup (Up), and while a
  // scale-down's points migrated, the copies made so far (Down).
  it('D6: collection info gives no warning while a new shard is filled', async () => {
    const record = resharding('Up', 'MigratingPoints');
    const stats = await gatherer().gather(record, local(record));
    expect(stats.warnings).toEqual([]);
    expect(stats.pointsCount).toBe(300);
  });

  it('D6: collection info counts each point once once reads follow the new ring', async () => {
    // The old shards still hold the ~75 points copied to shard 3: 375 points held in all.
    expect([0, 1, 2, 3].reduce((sum, shardId) => sum + heldBy(shardId).length, 0)).toBeGreaterThan(350);
    for (const stage of ['ReadHashRingCommitted', 'WriteHashRingCommitted'] as const) {
      const record = resharding('Up', stage);
      const stats = await gatherer().gather(record, local(record));
      expect(stats.pointsCount).toBe(300);
      // Each shard's own count is what it owns under the new ring.
      for (const shardId of [0, 1, 2, 3])
        expect(stats.shards[shardId].pointsCount).toBe(ids.filter((id) => owner(id, [0, 1, 2, 3]) === shardId).length);
    }
  });

  it('D6: collection info counts the copies of a replica again once it changed, at most once a second', async () => {
    const record = resharding('Up', 'ReadHashRingCommitted');
    const gathering = gatherer();
    countReads = 0;
    expect((await gathering.gather(record, local(record))).pointsCount).toBe(300);
    expect(countReads).toBe(3);
    expect((await gathering.gather(record, local(record))).pointsCount).toBe(300);
    expect(countReads).toBe(3);
    // Shard 0 applied a write: its copies are counted again, but at most once a second while it changes.
    const written = (shardIds: readonly number[]) => {
      const stats = local(record)(shardIds);
      stats.shards[0] = { ...stats.shards[0], appliedOpNum: 7 };
      return stats;
    };
    expect((await gathering.gather(record, written)).pointsCount).toBe(300);
    expect(countReads).toBe(3);
    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now + 1500);
    expect((await gathering.gather(record, written)).pointsCount).toBe(300);
    expect(countReads).toBe(4);
    jest.restoreAllMocks();
  });

  it('D6: collection info counts each point once while a scale-down copies the removed shard', async () => {
    // Down 4 -> 3: shard 3's points are copied to the shards the ring [0, 1, 2] gives them; reads still follow 4.
    for (const stage of ['MigratingPoints', 'Aborting'] as const) {
      const record = resharding('Down', stage);
      const stats = await gatherer().gather(record, local(record));
      expect(stats.pointsCount).toBe(300);
    }
  });
});
