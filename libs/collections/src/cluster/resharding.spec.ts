import { DomainError, ErrorKind } from '@vectorstore/common';
import { CollectionRecord } from '../model/collection.model';
import {
  abortResharding,
  commitReadRing,
  commitWriteRing,
  finishAbort,
  finishResharding,
  markMigrated,
  migrationUnits,
  readExclusions,
  reshardingInfo,
  reshardingRings,
  startResharding,
  unitKeyOf,
  unreadShardIds,
  writeRings,
} from './resharding';

/** Peers for a new shard's replicas: the named one first, then 3, 1, 2. */
const place = (count: number, first?: string) => [...new Set([first ?? '3', '3', '1', '2'])].slice(0, count);
const NOW = new Date('2026-11-28T12:00:00Z');

function record(overrides: Partial<CollectionRecord> = {}): CollectionRecord {
  return {
    id: 'c1',
    name: 'books',
    createdAt: NOW.toISOString(),
    config: { params: { shardNumber: 2, shardingMethod: 'Auto' } } as CollectionRecord['config'],
    router: 'Ring',
    shards: [
      { shardId: 0, state: 'Active', peerId: '1' },
      { shardId: 0, state: 'Active', peerId: '2' },
      { shardId: 1, state: 'Active', peerId: '2' },
    ],
    shardKeys: [],
    nextShardId: 2,
    ...overrides,
  };
}

function errorOf(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    return error as DomainError;
  }
  throw new Error('expected a failure');
}

const migrateAll = (r: CollectionRecord) => {
  for (const unit of migrationUnits(r)) markMigrated(r, unit.key);
};

describe('resharding in the catalog', () => {
  it('should refuse a collection routed by sha1 % n, a second resharding, and a scale-down below two shards', () => {
    expect(
      errorOf(() => startResharding(record({ router: undefined }), { direction: 'Up' }, place, NOW)).message,
    ).toMatch(/sha1\(id\) % shard count/);
    const r = record();
    startResharding(r, { direction: 'Up' }, place, NOW);
    expect(errorOf(() => startResharding(r, { direction: 'Down' }, place, NOW)).message).toMatch(/already in progress/);
    const single = record({ shards: [{ shardId: 0, state: 'Active', peerId: '1' }], nextShardId: 1 });
    const error = errorOf(() => startResharding(single, { direction: 'Down' }, place, NOW));
    expect(error.kind).toBe(ErrorKind.InvalidArgument);
    expect(error.message).toMatch(/has 1 shard: resharding down needs at least 2/);
  });

  it('should refuse a shard key on auto sharding, and require one on custom sharding', () => {
    expect(
      errorOf(() => startResharding(record(), { direction: 'Up', shardKey: { keyword: 'a' } }, place, NOW)).message,
    ).toMatch(/only valid for a collection with custom sharding/);
    const custom = record({ config: { params: { shardNumber: 1, shardingMethod: 'Custom' } } as never });
    expect(errorOf(() => startResharding(custom, { direction: 'Up' }, place, NOW)).message).toMatch(
      /shard_key is required/,
    );
    expect(
      errorOf(() => startResharding(custom, { direction: 'Up', shardKey: { keyword: 'none' } }, place, NOW)).kind,
    ).toBe(ErrorKind.NotFound);
  });

  it('should run an Up through its stages: both rings for writes, reads moving once every copy is made', () => {
    const r = record();
    const started = startResharding(r, { direction: 'Up' }, place, NOW);
    expect(started).toMatchObject({ direction: 'Up', shardId: 2, peerId: '3', stage: 'MigratingPoints' });
    expect(r.shards).toContainEqual({ shardId: 2, state: 'Resharding', peerId: '3' });
    expect(reshardingRings(r)).toEqual({ oldIds: [0, 1], newIds: [0, 1, 2] });
    expect(writeRings(r)).toEqual([
      [0, 1],
      [0, 1, 2],
    ]);
    expect([...unreadShardIds(r)]).toEqual([2]);
    expect(readExclusions(r)).toEqual([]);
    // One copy per old shard into the new shard's replica.
    expect(migrationUnits(r).map((unit) => unit.key)).toEqual(['0>2@3', '1>2@3']);
    expect(reshardingInfo(r)).toEqual([{ direction: 'Up', shardId: 2, peerId: '3' }]);

    // Reads cannot move before every copy is made.
    markMigrated(r, '0>2@3');
    expect(errorOf(() => commitReadRing(r, NOW)).kind).toBe(ErrorKind.FailedPrecondition);
    markMigrated(r, unitKeyOf({ shardId: 1, toShardId: 2, to: '3' }));
    commitReadRing(r, NOW);
    expect(r.shards).toContainEqual({ shardId: 2, state: 'Active', peerId: '3' });
    expect([...unreadShardIds(r)]).toEqual([]);
    // The old shards still hold the moved points: reads leave them out.
    expect(readExclusions(r)).toEqual([{ shardIds: [0, 1], ring: [0, 1, 2], owner: 2 }]);

    commitWriteRing(r, NOW);
    expect(writeRings(r)).toEqual([[0, 1, 2]]);
    expect(errorOf(() => abortResharding(r, NOW)).message).toMatch(/can no longer be aborted/);
    finishResharding(r);
    expect(r.resharding).toBeUndefined();
    expect(r.config.params.shardNumber).toBe(3);
    expect(writeRings(r)).toBeUndefined();
  });

  it('should run a Down: the highest shard drained into the others, then dropped', () => {
    const r = record();
    startResharding(r, { direction: 'Down' }, place, NOW);
    expect(r.shards.filter((s) => s.shardId === 1).map((s) => s.state)).toEqual(['ReshardingScaleDown']);
    expect(reshardingRings(r)).toEqual({ oldIds: [0, 1], newIds: [0] });
    // Copies into every replica of shard 0.
    expect(migrationUnits(r).map((unit) => unit.key)).toEqual(['1>0@1', '1>0@2']);
    // While reads follow the old ring, shard 0's copies of shard 1's points are left out.
    expect(readExclusions(r)).toEqual([{ shardIds: [0], ring: [0, 1], owner: 1 }]);
    expect([...unreadShardIds(r)]).toEqual([]);
    migrateAll(r);
    commitReadRing(r, NOW);
    expect([...unreadShardIds(r)]).toEqual([1]);
    expect(readExclusions(r)).toEqual([]);
    commitWriteRing(r, NOW);
    finishResharding(r);
    expect(r.shards.map((s) => s.shardId)).toEqual([0, 0]);
    expect(r.config.params.shardNumber).toBe(1);
  });

  it('should abort an Up by dropping the new shard, and a Down by removing its copies first', () => {
    const up = record({ transfers: [{ shardId: 0, toShardId: 2, from: '1', to: '3', reason: 'resharding' } as never] });
    up.resharding = { direction: 'Up', shardId: 2, peerId: '3', stage: 'MigratingPoints', stageAt: NOW.toISOString() };
    up.shards.push({ shardId: 2, state: 'Resharding', peerId: '3' });
    abortResharding(up, NOW);
    expect(up.resharding).toBeUndefined();
    expect(up.transfers).toBeUndefined();
    expect(up.shards.map((s) => s.shardId)).toEqual([0, 0, 1]);

    const down = record();
    startResharding(down, { direction: 'Down' }, place, NOW);
    abortResharding(down, NOW);
    expect(down.resharding?.stage).toBe('Aborting');
    expect(down.shards.filter((s) => s.shardId === 1).map((s) => s.state)).toEqual(['Active']);
    expect(writeRings(down)).toEqual([[0, 1]]);
    expect(readExclusions(down)).toEqual([{ shardIds: [0], ring: [0, 1], owner: 1 }]);
    finishAbort(down);
    expect(down.resharding).toBeUndefined();
    expect(down.config.params.shardNumber).toBe(2);
  });
});
