import type {
  CatalogState,
  CollectionConfig,
  CollectionRecord,
  ReplicaState,
  ShardKey,
  ShardRecord,
  ShardTransferRecord,
  TransferReason,
} from '@vectorstore/collections';
import { HealingSettings, HealingView, planHealing } from './healing-plan';

// Peer ids are u64 decimal text: '9' sorts before '10' (numeric order, not text order).
const replica = (
  shardId: number,
  peerId: string,
  state: ReplicaState = 'Active',
  shardKey?: ShardKey,
): ShardRecord => ({
  shardId,
  state,
  peerId,
  ...(shardKey ? { shardKey } : {}),
});

const transfer = (
  shardId: number,
  from: string,
  to: string,
  reason: TransferReason = 'recovery',
  extra: Partial<ShardTransferRecord> = {},
): ShardTransferRecord => ({
  shardId,
  from,
  to,
  sync: true,
  method: 'StreamRecords',
  reason,
  startedAt: '2024-01-01T00:00:00.000Z',
  ...extra,
});

/** A record with only what the plan reads: id, replicas, transfers, the replication factor(s), growReplicas. */
const collection = (
  id: string,
  shards: ShardRecord[],
  options: {
    rf?: number;
    transfers?: ShardTransferRecord[];
    growReplicas?: boolean;
    shardKeys?: CollectionRecord['shardKeys'];
  } = {},
): CollectionRecord => ({
  id,
  name: `name-${id}`,
  createdAt: '2024-01-01T00:00:00.000Z',
  config: { params: { replicationFactor: options.rf ?? 1 } } as unknown as CollectionConfig,
  shards,
  shardKeys: options.shardKeys ?? [],
  nextShardId: Math.max(0, ...shards.map((s) => s.shardId + 1)),
  ...(options.transfers ? { transfers: options.transfers } : {}),
  ...(options.growReplicas ? { growReplicas: true as const } : {}),
});

const catalog = (...records: CollectionRecord[]): CatalogState => ({
  collections: new Map(records.map((record) => [record.name, record])),
  aliases: new Map(),
});

const NOW = 1_000_000;
const GRACE = 10_000;

/** `live` peers; `gone` maps each gone peer to how long (ms) it has been gone at NOW. */
const view = (live: string[], gone: Record<string, number> = {}): HealingView => ({
  live: new Set(live),
  goneSince: (peerId) => {
    if (live.includes(peerId)) throw new Error(`goneSince asked for live peer ${peerId}`);
    return NOW - (gone[peerId] ?? 0);
  },
  now: NOW,
});

const settings = (extra: Partial<HealingSettings> = {}): HealingSettings => ({
  deadGraceMs: GRACE,
  transferLimit: 1,
  ...extra,
});

const recovery = (shardId: number, from: string, to: string) => ({
  shardId,
  from,
  to,
  sync: true,
  method: 'WalDelta',
  reason: 'recovery',
});
const replication = (shardId: number, from: string, to: string) => ({
  shardId,
  from,
  to,
  sync: true,
  method: 'StreamRecords',
  reason: 'replication',
});

describe(planHealing.name, () => {
  it('plans nothing for a healthy cluster', () => {
    const state = catalog(collection('c', [replica(0, '1'), replica(0, '2')], { rf: 2 }));
    expect(planHealing(state, view(['1', '2']), settings())).toEqual({ markDead: [], fail: [], start: [], grown: [] });
  });

  it('ignores a standalone record (replicas with no peer)', () => {
    const state = catalog(
      collection(
        'c',
        [
          { shardId: 0, state: 'Dead' },
          { shardId: 1, state: 'Active' },
        ],
        { rf: 3 },
      ),
    );
    expect(planHealing(state, view(['1', '2', '3']), settings())).toEqual({
      markDead: [],
      fail: [],
      start: [],
      grown: [],
    });
  });

  describe('marking gone peers’ replicas Dead', () => {
    const state = () => catalog(collection('c', [replica(0, '1'), replica(0, '2'), replica(1, '1'), replica(1, '2')]));

    it('waits for the grace: gone one ms less is not enough, exactly the grace is', () => {
      expect(planHealing(state(), view(['1'], { '2': GRACE - 1 }), settings()).markDead).toEqual([]);
      expect(planHealing(state(), view(['1'], { '2': GRACE }), settings()).markDead).toEqual([
        { collectionId: 'c', shardId: 0, peerId: '2' },
        { collectionId: 'c', shardId: 1, peerId: '2' },
      ]);
    });

    it('never asks how long a live peer has been gone, and never marks its replicas', () => {
      expect(planHealing(state(), view(['1', '2']), settings()).markDead).toEqual([]);
    });

    it('skips replicas already Dead and transfer targets (their transfer is failed instead)', () => {
      const record = collection(
        'c',
        [
          replica(0, '1'),
          replica(0, '2', 'Dead'),
          replica(1, '1'),
          replica(1, '2', 'Partial'),
          replica(2, '1'),
          replica(2, '2', 'Recovery'),
          replica(3, '1'),
          replica(3, '2', 'PartialSnapshot'),
          replica(4, '1'),
          replica(4, '2', 'Listener'),
        ],
        { transfers: [transfer(1, '1', '2'), transfer(2, '1', '2', 'user', { method: 'WalDelta' })] },
      );
      const plan = planHealing(catalog(record), view(['1'], { '2': GRACE }), settings());
      expect(plan.markDead).toEqual([{ collectionId: 'c', shardId: 4, peerId: '2' }]);
      expect(plan.fail).toEqual([
        { collectionId: 'c', transfer: record.transfers![0] },
        { collectionId: 'c', transfer: record.transfers![1] },
      ]);
    });

    it('never marks a shard’s last Active replica: another Active one must be on a live peer', () => {
      const record = collection('c', [
        // shard 0: the only other replica is Dead on a live peer
        replica(0, '1', 'Dead'),
        replica(0, '2'),
        // shard 1: the other Active replica's peer is gone too (within the grace)
        replica(1, '3'),
        replica(1, '2'),
        // shard 2: both gone past the grace: neither is marked, the shard waits for its peers
        replica(2, '2'),
        replica(2, '4'),
        // shard 3: the live replica takes writes but is not Active
        replica(3, '1', 'Listener'),
        replica(3, '2'),
        // shard 4: a live Active replica: the gone one goes
        replica(4, '1'),
        replica(4, '2'),
      ]);
      const plan = planHealing(catalog(record), view(['1'], { '2': GRACE, '3': GRACE - 1, '4': GRACE }), settings());
      expect(plan.markDead).toEqual([{ collectionId: 'c', shardId: 4, peerId: '2' }]);
    });

    it('marks every gone replica of a shard while one Active replica stays on a live peer', () => {
      const record = collection('c', [replica(0, '1'), replica(0, '2'), replica(0, '3', 'Initializing')], { rf: 3 });
      const plan = planHealing(catalog(record), view(['1'], { '2': GRACE, '3': GRACE * 2 }), settings());
      expect(plan.markDead).toEqual([
        { collectionId: 'c', shardId: 0, peerId: '2' },
        { collectionId: 'c', shardId: 0, peerId: '3' },
      ]);
    });
  });

  describe('failing transfers', () => {
    it('fails a transfer whose source or target is gone past the grace, not before', () => {
      const record = collection(
        'c',
        [
          replica(0, '1'),
          replica(0, '2', 'Partial'),
          replica(1, '3'),
          replica(1, '1', 'Partial'),
          replica(2, '1'),
          replica(2, '4', 'Partial'),
          replica(3, '1'),
          replica(3, '5', 'Partial'),
        ],
        {
          transfers: [
            transfer(0, '1', '2'), // target gone past the grace
            transfer(1, '3', '1', 'user'), // source gone past the grace
            transfer(2, '1', '4', 'replication'), // target gone within the grace
            transfer(3, '1', '5'), // both live
          ],
        },
      );
      const plan = planHealing(catalog(record), view(['1', '5'], { '2': GRACE, '3': GRACE + 1, '4': 1 }), settings());
      expect(plan.fail.map((f) => f.transfer.shardId)).toEqual([0, 1]);
      expect(plan.fail[0]).toEqual({ collectionId: 'c', transfer: record.transfers![0] });
    });
  });

  describe('recovering Dead replicas', () => {
    it('recovers a Dead replica on a live peer from the Active replica on a live peer with the lowest id', () => {
      const record = collection('c', [
        replica(0, '10'),
        replica(0, '9'),
        replica(0, '2'), // lowest id, but its peer is gone
        replica(0, '3', 'Listener'), // live, lower than 9, but not Active
        replica(0, '4', 'Dead'),
      ]);
      const plan = planHealing(catalog(record), view(['10', '9', '3', '4'], { '2': 1 }), settings());
      expect(plan.start).toEqual([{ collectionId: 'c', transfers: [recovery(0, '9', '4')] }]);
    });

    it('leaves a Dead replica alone while its peer is gone, or while no Active replica is on a live peer', () => {
      const record = collection('c', [
        replica(0, '1'),
        replica(0, '2', 'Dead'),
        replica(1, '3'),
        replica(1, '1', 'Dead'),
        replica(2, '1', 'Dead'),
        replica(2, '4', 'Partial'),
      ]);
      expect(planHealing(catalog(record), view(['1', '4'], { '2': 1, '3': 1 }), settings()).start).toEqual([]);
    });

    it('does not schedule a shard already in transfer a second time', () => {
      const dead = [replica(0, '1'), replica(0, '2', 'Partial'), replica(0, '3', 'Dead')];
      // The Dead replica's own shard is being sent elsewhere by the operator: the shard is busy.
      const busy = collection('c', dead, { transfers: [transfer(0, '1', '2', 'user')] });
      expect(planHealing(catalog(busy), view(['1', '2', '3']), settings({ transferLimit: 5 })).start).toEqual([]);
      // The Dead replica is named by a running transfer already.
      const named = collection('c', [replica(0, '1'), replica(0, '3', 'Dead')], { transfers: [transfer(0, '1', '3')] });
      expect(planHealing(catalog(named), view(['1', '3']), settings({ transferLimit: 5 })).start).toEqual([]);
      // A transfer into this peer's replica from another shard (replicate_points) counts too.
      const intoIt = collection('c', [replica(0, '1'), replica(1, '1'), replica(1, '3', 'Dead')], {
        transfers: [transfer(0, '1', '3', 'user', { toShardId: 1, filter: 'x' })],
      });
      expect(planHealing(catalog(intoIt), view(['1', '3']), settings({ transferLimit: 5 })).start).toEqual([]);
    });
  });

  describe('the limit on automatic transfers', () => {
    // Shards 0..2 on peer 1; a Dead replica of each on peers 2, 3, 4.
    const shards = () => [
      replica(0, '1'),
      replica(0, '2', 'Dead'),
      replica(1, '1'),
      replica(1, '3', 'Dead'),
      replica(2, '1'),
      replica(2, '4', 'Dead'),
    ];

    it('keeps at most `transferLimit` transfers out of a source', () => {
      const state = catalog(collection('c', shards()));
      expect(planHealing(state, view(['1', '2', '3', '4']), settings({ transferLimit: 1 })).start).toEqual([
        { collectionId: 'c', transfers: [recovery(0, '1', '2')] },
      ]);
      expect(planHealing(state, view(['1', '2', '3', '4']), settings({ transferLimit: 2 })).start).toEqual([
        { collectionId: 'c', transfers: [recovery(0, '1', '2'), recovery(1, '1', '3')] },
      ]);
    });

    it('keeps at most `transferLimit` transfers into a target', () => {
      // Shards 0 and 1 each have a Dead replica on peer 5, each recovered from another source.
      const record = collection('c', [
        replica(0, '1'),
        replica(0, '5', 'Dead'),
        replica(1, '2'),
        replica(1, '5', 'Dead'),
      ]);
      expect(planHealing(catalog(record), view(['1', '2', '5']), settings({ transferLimit: 1 })).start).toEqual([
        { collectionId: 'c', transfers: [recovery(0, '1', '5')] },
      ]);
    });

    it('counts the running automatic transfers of the collection, but not the operator’s', () => {
      const extra = [replica(3, '1'), replica(3, '5', 'Partial')];
      for (const reason of ['recovery', 'replication'] as const) {
        const running = collection('c', [...shards(), ...extra], { transfers: [transfer(3, '1', '5', reason)] });
        expect(planHealing(catalog(running), view(['1', '2', '3', '4', '5']), settings()).start).toEqual([]);
      }
      const user = collection('c', [...shards(), ...extra], { transfers: [transfer(3, '1', '5', 'user')] });
      expect(planHealing(catalog(user), view(['1', '2', '3', '4', '5']), settings()).start).toEqual([
        { collectionId: 'c', transfers: [recovery(0, '1', '2')] },
      ]);
    });

    it('counts per collection: another collection’s transfers do not take this one’s room', () => {
      const a = collection('a', [replica(0, '1'), replica(0, '2', 'Partial')], { transfers: [transfer(0, '1', '2')] });
      const b = collection('b', [replica(0, '1'), replica(0, '2', 'Dead')]);
      expect(planHealing(catalog(a, b), view(['1', '2']), settings()).start).toEqual([
        { collectionId: 'b', transfers: [recovery(0, '1', '2')] },
      ]);
    });

    it('gives recoveries the room before new replicas', () => {
      // Shard 0 lacks a replica (rf 2 raised); shard 1 has a Dead one. Both would go out of peer 1.
      const record = collection('c', [replica(0, '1'), replica(1, '1'), replica(1, '2', 'Dead')], {
        rf: 2,
        growReplicas: true,
      });
      expect(planHealing(catalog(record), view(['1', '2', '3']), settings()).start).toEqual([
        { collectionId: 'c', transfers: [recovery(1, '1', '2')] },
      ]);
      expect(planHealing(catalog(record), view(['1', '2', '3']), settings({ transferLimit: 2 })).start).toEqual([
        { collectionId: 'c', transfers: [recovery(1, '1', '2'), replication(0, '1', '3')] },
      ]);
    });
  });

  describe('replicas a shard lacks', () => {
    it('leaves a shard the operator dropped a replica of, and grows it once the factor is raised', () => {
      const shards = [replica(0, '1'), replica(0, '2')];
      const dropped = collection('c', shards, { rf: 3 });
      expect(planHealing(catalog(dropped), view(['1', '2', '3']), settings()).start).toEqual([]);
      const raised = collection('c', shards, { rf: 3, growReplicas: true });
      const plan = planHealing(catalog(raised), view(['1', '2', '3']), settings());
      expect(plan.start).toEqual([{ collectionId: 'c', transfers: [replication(0, '1', '3')] }]);
      expect(plan.grown).toEqual([]);
    });

    it('places new replicas on the least loaded live peers without one (over all collections), then by id', () => {
      const other = collection('other', [replica(0, '3'), replica(1, '3'), replica(2, '10')]);
      const grow = collection('c', [replica(0, '1'), replica(1, '1')], { rf: 2, growReplicas: true });
      // 9 and 20 hold nothing, 10 holds one, 3 holds two; peer 4 (empty) is gone.
      const plan = planHealing(catalog(other, grow), view(['1', '3', '9', '10', '20'], { '4': 1 }), settings());
      // Shard 0 to 9 (empty, and 9 < 20 numerically); shard 1 would go to 20 (9 has one now), but both copy from
      // peer 1 and the limit is 1.
      expect(plan.start).toEqual([{ collectionId: 'c', transfers: [replication(0, '1', '9')] }]);
      const wide = planHealing(
        catalog(other, grow),
        view(['1', '3', '9', '10', '20'], { '4': 1 }),
        settings({ transferLimit: 5 }),
      );
      expect(wide.start).toEqual([
        { collectionId: 'c', transfers: [replication(0, '1', '9'), replication(1, '1', '20')] },
      ]);
    });

    it('does not place a new replica on a live peer that holds one of the shard in any state', () => {
      const record = collection('c', [replica(0, '1'), replica(0, '2', 'Listener')], { rf: 3, growReplicas: true });
      expect(planHealing(catalog(record), view(['1', '2']), settings({ transferLimit: 5 })).start).toEqual([]);
      expect(planHealing(catalog(record), view(['1', '2', '3']), settings({ transferLimit: 5 })).start).toEqual([
        { collectionId: 'c', transfers: [replication(0, '1', '3')] },
      ]);
    });

    it('recovers a Dead replica rather than adding one elsewhere for the same shard', () => {
      const record = collection('c', [replica(0, '1'), replica(0, '2', 'Dead')], { rf: 3, growReplicas: true });
      expect(planHealing(catalog(record), view(['1', '2', '3']), settings({ transferLimit: 5 })).start).toEqual([
        { collectionId: 'c', transfers: [recovery(0, '1', '2')] },
      ]);
    });

    it('starts one transfer per shard at a time, even when it lacks several replicas', () => {
      const record = collection('c', [replica(0, '1')], { rf: 3, growReplicas: true });
      expect(planHealing(catalog(record), view(['1', '2', '3']), settings({ transferLimit: 5 })).start).toEqual([
        { collectionId: 'c', transfers: [replication(0, '1', '2')] },
      ]);
    });

    it('needs an Active replica on a live peer to copy from', () => {
      const record = collection('c', [replica(0, '1', 'Listener'), replica(0, '2')], { rf: 3, growReplicas: true });
      expect(planHealing(catalog(record), view(['1', '3'], { '2': 1 }), settings()).start).toEqual([]);
    });

    it('uses the shard key’s replication factor for a custom shard', () => {
      const key = { keyword: 'k' };
      const record = collection('c', [replica(0, '1', 'Active', key), replica(1, '1')], {
        rf: 1,
        growReplicas: true,
        shardKeys: [{ key, shardsNumber: 1, replicationFactor: 2 }],
      });
      const plan = planHealing(catalog(record), view(['1', '2']), settings());
      expect(plan.start).toEqual([{ collectionId: 'c', transfers: [replication(0, '1', '2')] }]);
    });

    describe('grown', () => {
      it('reports a raised factor met on every shard once no replication transfer runs', () => {
        const met = collection('c', [replica(0, '1'), replica(0, '2'), replica(1, '1'), replica(1, '2', 'Dead')], {
          rf: 2,
          growReplicas: true,
        });
        expect(planHealing(catalog(met), view(['1', '2']), settings()).grown).toEqual(['c']);
        const copying = collection('c', [replica(0, '1'), replica(0, '2', 'Partial')], {
          rf: 2,
          growReplicas: true,
          transfers: [transfer(0, '1', '2', 'replication')],
        });
        expect(planHealing(catalog(copying), view(['1', '2']), settings()).grown).toEqual([]);
        // A recovery running does not hold the request back.
        const recovering = collection('c', [replica(0, '1'), replica(0, '2', 'Partial')], {
          rf: 2,
          growReplicas: true,
          transfers: [transfer(0, '1', '2', 'recovery')],
        });
        expect(planHealing(catalog(recovering), view(['1', '2']), settings()).grown).toEqual(['c']);
      });

      it('does not report a shard short of the factor (too few live peers), nor a record not growing', () => {
        const short = collection('c', [replica(0, '1'), replica(0, '2'), replica(1, '1')], {
          rf: 2,
          growReplicas: true,
        });
        const plan = planHealing(catalog(short), view(['1', '2']), settings());
        expect(plan.grown).toEqual([]);
        expect(plan.start).toEqual([{ collectionId: 'c', transfers: [replication(1, '1', '2')] }]);
        expect(planHealing(catalog(short), view(['1']), settings()).grown).toEqual([]);
        const steady = collection('c', [replica(0, '1'), replica(0, '2')], { rf: 2 });
        expect(planHealing(catalog(steady), view(['1', '2']), settings()).grown).toEqual([]);
      });

      it('does not count a replica whose peer is gone longer than autoReplicateAfterMs', () => {
        const record = collection('c', [replica(0, '1'), replica(0, '2')], { rf: 2, growReplicas: true });
        const after = settings({ autoReplicateAfterMs: 60_000 });
        expect(planHealing(catalog(record), view(['1'], { '2': 59_999 }), after).grown).toEqual(['c']);
        expect(planHealing(catalog(record), view(['1'], { '2': 60_000 }), after).grown).toEqual([]);
      });
    });

    describe('autoReplicateAfterMs', () => {
      const shards = () => [replica(0, '1'), replica(0, '2')];

      it('replaces a replica whose peer has been gone that long, not a moment before', () => {
        const state = catalog(collection('c', shards(), { rf: 2 }));
        const after = settings({ autoReplicateAfterMs: 60_000, deadGraceMs: 120_000 });
        expect(planHealing(state, view(['1', '3'], { '2': 59_999 }), after).start).toEqual([]);
        expect(planHealing(state, view(['1', '3'], { '2': 60_000 }), after).start).toEqual([
          { collectionId: 'c', transfers: [replication(0, '1', '3')] },
        ]);
      });

      it('never replaces without the setting: a gone peer counts forever', () => {
        const state = catalog(collection('c', shards(), { rf: 2 }));
        expect(planHealing(state, view(['1', '3'], { '2': 10 * 60_000 }), settings()).start).toEqual([]);
      });

      it('replaces only as many replicas as are long gone, not those the operator dropped', () => {
        // rf 3, but the operator dropped one: two replicas, one long gone → one new replica, not two.
        const state = catalog(collection('c', shards(), { rf: 3 }));
        const plan = planHealing(
          state,
          view(['1', '3', '4'], { '2': 60_000 }),
          settings({ autoReplicateAfterMs: 1, transferLimit: 5 }),
        );
        expect(plan.start).toEqual([{ collectionId: 'c', transfers: [replication(0, '1', '3')] }]);
      });

      it('counts the replacement once it is placed (a Partial target), so it is not replaced twice', () => {
        const record = collection('c', [...shards(), replica(0, '3', 'Partial')], {
          rf: 2,
          transfers: [transfer(0, '1', '3', 'replication')],
        });
        const plan = planHealing(
          catalog(record),
          view(['1', '3', '4'], { '2': 60_000 }),
          settings({ autoReplicateAfterMs: 1, transferLimit: 5 }),
        );
        expect(plan.start).toEqual([]);
        // And once it is Active, the long-gone replica is not replaced again.
        const done = collection('c', [...shards(), replica(0, '3')], { rf: 2 });
        expect(
          planHealing(catalog(done), view(['1', '3', '4'], { '2': 60_000 }), settings({ autoReplicateAfterMs: 1 }))
            .start,
        ).toEqual([]);
      });
    });
  });
});

describe(`${planHealing.name}: regressions`, () => {
  // Regression: starts dropped by the limit used to count as load for the collections planned after them.
  it('places new replicas by the replicas that exist or are started, not by dropped starts', () => {
    const other = collection('other', [replica(0, '3')]);
    const x = collection(
      'x',
      [replica(0, '1'), replica(0, '5', 'Partial'), replica(1, '1'), replica(1, '5', 'Partial')],
      { rf: 3, growReplicas: true, transfers: [transfer(0, '1', '5', 'user'), transfer(1, '1', '5', 'user')] },
    );
    const y = collection('y', [replica(0, '1')], { rf: 2, growReplicas: true });
    const plan = planHealing(catalog(other, x, y), view(['1', '2', '3', '5']), settings());
    expect(plan.start).toEqual([{ collectionId: 'y', transfers: [replication(0, '1', '2')] }]);
  });
});
