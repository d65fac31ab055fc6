import { CollectionRecord } from '@vectorstore/collections';
import { matchesFilter, ringShard, type PointId, type UpdateOperation } from '@vectorstore/points';
import {
  cleanupOperation,
  disownedPoints,
  isCleanup,
  movedPoints,
  outsideScope,
  pendingCopies,
  withinScope,
  withoutIds,
} from './resharding-scope';

const NOW = '2026-11-28T12:00:00Z';

function upRecord(migrated: string[] = []): CollectionRecord {
  return {
    id: 'c1',
    name: 'books',
    createdAt: NOW,
    config: { params: { shardNumber: 2, shardingMethod: 'Auto' } } as CollectionRecord['config'],
    router: 'Ring',
    shards: [
      { shardId: 0, state: 'Active', peerId: '1' },
      { shardId: 1, state: 'Active', peerId: '2' },
      { shardId: 2, state: 'Resharding', peerId: '3' },
    ],
    shardKeys: [],
    nextShardId: 3,
    resharding: { direction: 'Up', shardId: 2, peerId: '3', stage: 'MigratingPoints', stageAt: NOW, migrated },
  };
}

const ids: PointId[] = Array.from({ length: 600 }, (_, i) => BigInt(i + 1));
const view = (id: PointId) => ({ id, payload: {}, hasVector: () => true });

describe('resharding scopes', () => {
  it('should give each moved point to exactly one copy, and its filter the same points as its id test', () => {
    const record = upRecord();
    const scopes = [movedPoints(record, 0, 2)!, movedPoints(record, 1, 2)!];
    let moved = 0;
    for (const id of ids) {
      const owners = scopes.filter((scope) => scope.has(id)).length;
      expect(owners).toBeLessThanOrEqual(1);
      moved += owners;
      for (const scope of scopes) expect(matchesFilter(scope.filter, view(id))).toBe(scope.has(id));
    }
    // About a third of the points go to the third shard.
    expect(moved / ids.length).toBeGreaterThan(0.2);
    expect(moved / ids.length).toBeLessThan(0.45);
  });

  it("should hold back from a target's direct writes the points its copies still bring, until each copy is made", () => {
    expect(pendingCopies(upRecord(), 0, '1')).toBeUndefined();
    const pending = pendingCopies(upRecord(), 2, '3')!;
    const fromZero = movedPoints(upRecord(), 0, 2)!;
    const fromOne = movedPoints(upRecord(), 1, 2)!;
    for (const id of ids) expect(pending.has(id)).toBe(fromZero.has(id) || fromOne.has(id));
    // Once shard 0's copy is made, only shard 1's points are held back.
    const half = pendingCopies(upRecord(['0>2@3']), 2, '3')!;
    for (const id of ids) expect(half.has(id)).toBe(fromOne.has(id));
    for (const id of ids) expect(matchesFilter(half.filter, view(id))).toBe(half.has(id));
    expect(pendingCopies(upRecord(['0>2@3', '1>2@3']), 2, '3')).toBeUndefined();
  });

  it('should split every kind of write by the scope: ids by test, filters by condition, index changes whole', () => {
    const scope = movedPoints(upRecord(), 0, 2)!;
    const inside = ids.filter((id) => scope.has(id)).slice(0, 2);
    const outside = ids.filter((id) => !scope.has(id)).slice(0, 2);
    const both = [...inside, ...outside];
    const upsert: UpdateOperation = {
      upsert: { points: both.map((id) => ({ id, vectors: {}, payload: {} })) as never },
    };
    expect(withinScope(upsert, scope)).toEqual({ upsert: { points: upsert.upsert.points.slice(0, 2) } });
    expect(outsideScope(upsert, scope)).toEqual({ upsert: { points: upsert.upsert.points.slice(2) } });
    const onlyOutside: UpdateOperation = { deletePoints: { selector: { ids: outside } } };
    expect(withinScope(onlyOutside, scope)).toBeUndefined();
    expect(outsideScope(onlyOutside, scope)).toEqual(onlyOutside);
    expect(withinScope({ setPayload: { selector: { ids: both }, payload: { a: 1 } } }, scope)).toEqual({
      setPayload: { selector: { ids: inside }, payload: { a: 1 } },
    });
    const byFilter = withinScope({ clearPayload: { selector: { filter: { must: [{ hasId: both }] } } } }, scope)!;
    const selector = (byFilter as unknown as { clearPayload: { selector: { filter: never } } }).clearPayload.selector;
    for (const id of both) expect(matchesFilter(selector.filter, view(id))).toBe(inside.includes(id));
    const excluded = outsideScope({ deleteVectors: { selector: { filter: {} }, vectorNames: ['v'] } }, scope)!;
    const kept = (excluded as unknown as { deleteVectors: { selector: { filter: never } } }).deleteVectors.selector
      .filter;
    for (const id of both) expect(matchesFilter(kept, view(id))).toBe(outside.includes(id));
    const index: UpdateOperation = { createFieldIndex: { field: 'a', type: 'Keyword' } };
    expect(withinScope(index, scope)).toBe(index);
    expect(outsideScope(index, scope)).toBe(index);
  });

  it('should leave out of a write to a shard the points by id no write ring in force gives it', () => {
    const ring = (shardIds: number[]) => (id: PointId) => shardIds[ringShard(id, shardIds)];
    const upsertOf = (points: PointId[]): UpdateOperation => ({
      upsert: { points: points.map((id) => ({ id, vectors: {}, payload: {} })) as never },
    });
    const kept = (record: CollectionRecord, shardId: number) => {
      const scope = disownedPoints(record, shardId);
      if (!scope) return ids;
      for (const id of ids) expect(matchesFilter(scope.filter, view(id))).toBe(scope.has(id));
      const narrowed = withoutIds(upsertOf(ids), scope);
      return narrowed && 'upsert' in narrowed ? narrowed.upsert.points.map((point) => point.id) : [];
    };
    // While points migrate (and until writes commit) a write goes by both rings: an old shard keeps what either gives it.
    const both = kept(upRecord(), 0);
    expect(both).toEqual(ids.filter((id) => ring([0, 1])(id) === 0 || ring([0, 1, 2])(id) === 0));
    // Once writes follow the new ring, and after the end (three shards, no resharding), only the new ring's.
    const newRing = ids.filter((id) => ring([0, 1, 2])(id) === 0);
    const writes = {
      ...upRecord(),
      resharding: { ...upRecord().resharding!, stage: 'WriteHashRingCommitted' as const },
    };
    expect(kept(writes, 0)).toEqual(newRing);
    expect(kept({ ...upRecord(), resharding: undefined }, 0)).toEqual(newRing);
    expect(newRing.length).toBeLessThan(both.length);
    // A scale-down's removed shard, in no ring once writes follow the new one, and a collection routed by modulo.
    const down = { ...writes, resharding: { ...writes.resharding, direction: 'Down' as const } };
    expect(disownedPoints(down, 2)).toBeUndefined();
    expect(disownedPoints({ ...upRecord(), router: undefined }, 0)).toBeUndefined();
    // Writes by filter stay whole.
    const byFilter: UpdateOperation = { deletePoints: { selector: { filter: { must: [{ hasId: ids }] } } } };
    expect(withoutIds(byFilter, disownedPoints(writes, 0)!)).toEqual(byFilter);
  });

  it('should tell a resharding cleanup from a client delete', () => {
    expect(isCleanup(cleanupOperation([0, 1, 2], 2))).toBe(true);
    expect(isCleanup({ deletePoints: { selector: { filter: { must: [{ hasId: ids }] } } } })).toBe(false);
    expect(isCleanup({ deletePoints: { selector: { ids } } })).toBe(false);
    const widened = cleanupOperation([0, 1, 2], 2) as { deletePoints: { selector: { filter: object } } };
    widened.deletePoints.selector.filter = { ...widened.deletePoints.selector.filter, should: [] };
    expect(isCleanup(widened as UpdateOperation)).toBe(false);
  });
});
