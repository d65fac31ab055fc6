// Review of the resharding change (abf2c83, issue 29 item 4): the catalog side. Behaviours that hold are plain specs;
// confirmed defects are `it.failing`, each with a comment naming it (D-numbers of the review report).
import { CatalogState, emptyCatalog } from '../catalog/catalog-state';
import { bumpReplicaEpochs } from '../catalog/replica-epoch';
import { CollectionRecord } from '../model/collection.model';
import {
  abortResharding,
  commitReadRing,
  commitWriteRing,
  finishAbort,
  finishResharding,
  migrationUnits,
  startResharding,
} from './resharding';
import { finishTransfer, startTransfer } from './shard-transfers';

/** Peers for a new shard's replicas: the named one first, then 3, 1, 2. */
const place = (count: number, first?: string) => [...new Set([first ?? '3', '3', '1', '2'])].slice(0, count);
const NOW = new Date('2026-11-28T12:00:00Z');

function record(overrides: Partial<CollectionRecord> = {}): CollectionRecord {
  return {
    id: 'c1',
    name: 'books',
    createdAt: NOW.toISOString(),
    config: { params: { shardNumber: 2, shardingMethod: 'Auto', replicationFactor: 2 } } as CollectionRecord['config'],
    router: 'Ring',
    shards: [
      { shardId: 0, state: 'Active', peerId: '1' },
      { shardId: 0, state: 'Active', peerId: '2' },
      { shardId: 1, state: 'Active', peerId: '2' },
      { shardId: 1, state: 'Active', peerId: '3' },
    ],
    shardKeys: [],
    nextShardId: 2,
    ...overrides,
  };
}

const catalogOf = (r: CollectionRecord): CatalogState => {
  const state = emptyCatalog();
  state.collections.set(r.name, r);
  return state;
};

/** Runs `change` on a copy of `r` as a catalog change does; the copy, with its replica epoch bumped or not. */
function change(r: CollectionRecord, run: (draft: CollectionRecord) => void): CollectionRecord {
  const draft = structuredClone(r);
  run(draft);
  const state = catalogOf(draft);
  bumpReplicaEpochs(catalogOf(r), state);
  return draft;
}

/** Each copy of the resharding made the way the driver makes it: a resharding transfer started, then finished. */
function copyAll(r: CollectionRecord): CollectionRecord {
  let current = r;
  for (const unit of migrationUnits(r)) {
    const source = current.shards.find(
      (s) => s.shardId === unit.fromShard && (s.state === 'Active' || s.state === 'ReshardingScaleDown'),
    )!.peerId!;
    const key = { shardId: unit.fromShard, toShardId: unit.toShard, from: source, to: unit.toPeer };
    const started = change(current, (draft) => {
      startTransfer(
        draft,
        { ...key, sync: true, method: 'ReshardingStreamRecords', reason: 'resharding', filter: 'f' },
        () => 'live',
        NOW,
      );
    });
    expect(started.replicaEpoch).toBe((current.replicaEpoch ?? 0) + 1);
    const finished = change(started, (draft) => finishTransfer(draft, key));
    // A copy made changes which points its target takes directly (pendingCopies): its finish is a new epoch.
    expect(finished.replicaEpoch).toBe((started.replicaEpoch ?? 0) + 1);
    expect(finished.resharding?.migrated).toContain(unit.key);
    current = finished;
  }
  return current;
}

describe('resharding review: catalog rules', () => {
  it('holds: every stage change and every copy made is a new replica epoch (Up and Down, and an abort)', () => {
    for (const direction of ['Up', 'Down'] as const) {
      let r = change(record(), (draft) => void startResharding(draft, { direction, peerId: '3' }, place, NOW));
      expect(r.replicaEpoch).toBe(1);
      r = copyAll(r);
      for (const step of [
        (d: CollectionRecord) => commitReadRing(d, NOW),
        (d: CollectionRecord) => commitWriteRing(d, NOW),
        (d: CollectionRecord) => finishResharding(d),
      ]) {
        const next = change(r, step);
        expect(next.replicaEpoch).toBe((r.replicaEpoch ?? 0) + 1);
        r = next;
      }
      expect(r.resharding).toBeUndefined();
    }
    // A scale-down given up after reads moved: Aborting, then its end, each a new epoch.
    let down = copyAll(change(record(), (draft) => void startResharding(draft, { direction: 'Down' }, place, NOW)));
    down = change(down, (d) => commitReadRing(d, NOW));
    const aborting = change(down, (d) => abortResharding(d, NOW));
    expect(aborting.replicaEpoch).toBe((down.replicaEpoch ?? 0) + 1);
    expect(aborting.shards.filter((s) => s.shardId === 1).map((s) => s.state)).toEqual(['Active', 'Active']);
    const ended = change(aborting, (d) => finishAbort(d));
    expect(ended.replicaEpoch).toBe((aborting.replicaEpoch ?? 0) + 1);
  });

  // D2: a scale-up places the new shard on one peer only, whatever the replication factor, and nothing later brings
  // it to the factor (Qdrant's resharding replicates the new shard to the replication factor before it commits the
  // hash ring). Here a replication_factor 2 collection ends with a new shard held by a single replica: one peer's
  // loss makes ~1/(n+1) of the points unavailable (and with wcf 2 their writes fail).
  it('D2: a scale-up of a replication_factor 2 collection ends with the new shard on 2 peers', () => {
    let r = change(record(), (draft) => void startResharding(draft, { direction: 'Up', peerId: '3' }, place, NOW));
    r = copyAll(r);
    r = change(r, (d) => commitReadRing(d, NOW));
    r = change(r, (d) => commitWriteRing(d, NOW));
    r = change(r, (d) => finishResharding(d));
    expect(r.shards.filter((s) => s.shardId === 2)).toHaveLength(2);
  });
});
