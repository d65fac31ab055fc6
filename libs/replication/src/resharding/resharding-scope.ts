import {
  CollectionRecord,
  groupShardIds,
  migrationUnits,
  reshardingRings,
  shardKeyEquals,
  writeRings,
} from '@vectorstore/collections';
import { type Filter, type PointId, ringShard, type UpdateOperation } from '@vectorstore/points';

/**
 * The points one copy of a resharding moves (libs/collections cluster/resharding.ts): those whose owner is
 * `fromShard` on the old ring and `toShard` on the new one. As an id test and as a filter, the same rule.
 */
export interface PointScope {
  has(id: PointId): boolean;
  filter: Filter;
}

export function movedPoints(record: CollectionRecord, fromShard: number, toShard: number): PointScope | undefined {
  const rings = reshardingRings(record);
  if (!rings) return undefined;
  const { oldIds, newIds } = rings;
  return {
    has: (id) => oldIds[ringShard(id, oldIds)] === fromShard && newIds[ringShard(id, newIds)] === toShard,
    filter: {
      must: [
        { ringOwner: { shardIds: oldIds, owner: fromShard } },
        { ringOwner: { shardIds: newIds, owner: toShard } },
      ],
    },
  };
}

/**
 * The points the replica of `shardId` on `peerId` gets from a copy still running or not yet begun. Until its copy
 * ends (a catalog change, so a new replica epoch), such a point reaches this replica only through the copy's
 * source, in the order the source applied its writes; a write routed here directly would race with it (a copy
 * read before the write could land after it). From that epoch on, writes come directly, as after any transfer.
 */
export function pendingCopies(record: CollectionRecord, shardId: number, peerId: string): PointScope | undefined {
  const resharding = record.resharding;
  if (!resharding || resharding.stage !== 'MigratingPoints') return undefined;
  const done = new Set(resharding.migrated ?? []);
  const scopes = migrationUnits(record)
    .filter((unit) => unit.toShard === shardId && unit.toPeer === peerId && !done.has(unit.key))
    .flatMap((unit) => movedPoints(record, unit.fromShard, unit.toShard) ?? []);
  if (scopes.length === 0) return undefined;
  if (scopes.length === 1) return scopes[0];
  return {
    has: (id) => scopes.some((scope) => scope.has(id)),
    filter: { should: scopes.map((scope) => ({ filter: scope.filter })) },
  };
}

/**
 * The points of a write reaching a replica of `shardId` that no write ring in force gives its shard (collections on
 * the hash ring). A coordinator routes a write that turned out stale again unchanged, so a part split by both rings
 * of a resharding can reach an old shard after writes follow the new ring, even after the cleanup and the end:
 * applied there, it would leave a copy behind. Writes by filter stay whole: they only touch points the replica holds.
 */
export function disownedPoints(record: CollectionRecord, shardId: number): PointScope | undefined {
  if (record.router !== 'Ring') return undefined;
  const key = record.shards.find((shard) => shard.shardId === shardId)?.shardKey;
  const resharding = record.resharding;
  const reshards =
    resharding !== undefined &&
    (key === undefined
      ? resharding.shardKey === undefined
      : resharding.shardKey !== undefined && shardKeyEquals(key, resharding.shardKey));
  const rings = (reshards ? writeRings(record) : undefined) ?? [groupShardIds(record, key)];
  // One shard owns every point; and a scale-down's removed shard, in no ring once writes follow the new one, is
  // dropped at the end whatever it gets.
  if (rings.every((ring) => ring.length <= 1) || !rings.some((ring) => ring.includes(shardId))) return undefined;
  const owns = (id: PointId) => rings.some((ring) => ring[ringShard(id, ring)] === shardId);
  return {
    has: (id) => !owns(id),
    filter: {
      must: rings.map((ring) => ({ filter: { mustNot: [{ ringOwner: { shardIds: ring, owner: shardId } }] } })),
    },
  };
}

/** The delete that removes from a shard the copies of the points `owner` holds under `ring` (a resharding's cleanup). */
export function cleanupOperation(ring: number[], owner: number): UpdateOperation {
  return { deletePoints: { selector: { filter: { must: [{ ringOwner: { shardIds: ring, owner } }] } } } };
}

/** Whether `operation` is a resharding's cleanup ({@link cleanupOperation}; clients cannot send a ring filter). */
export function isCleanup(operation: UpdateOperation): boolean {
  if (!('deletePoints' in operation)) return false;
  const selector = operation.deletePoints.selector;
  if (!('filter' in selector)) return false;
  const { must, ...rest } = selector.filter;
  return Object.keys(rest).length === 0 && must?.length === 1 && 'ringOwner' in must[0];
}

/** `operation` without the points of `scope` given by id; writes by filter stay whole (undefined: it touches none). */
export function withoutIds(operation: UpdateOperation, scope: PointScope): UpdateOperation | undefined {
  return narrow(operation, (id) => !scope.has(id), undefined);
}

/** `operation` limited to the points of `scope` (undefined: it touches none). Field index changes stay whole. */
export function withinScope(operation: UpdateOperation, scope: PointScope): UpdateOperation | undefined {
  return narrow(operation, scope.has, { must: [{ filter: scope.filter }] });
}

/** `operation` without the points of `scope` (undefined: it touches none). Field index changes stay whole. */
export function outsideScope(operation: UpdateOperation, scope: PointScope): UpdateOperation | undefined {
  return narrow(operation, (id) => !scope.has(id), { mustNot: [{ filter: scope.filter }] });
}

type Selector = { ids: PointId[] } | { filter: Filter };

/** `within` undefined: a selector by filter stays whole. */
function narrow(
  operation: UpdateOperation,
  keep: (id: PointId) => boolean,
  within: Filter | undefined,
): UpdateOperation | undefined {
  const selector = (selector: Selector): Selector | undefined => {
    if ('ids' in selector) {
      const ids = selector.ids.filter(keep);
      return ids.length === 0 ? undefined : { ids };
    }
    if (!within) return selector;
    return { filter: { must: [{ filter: selector.filter }, { filter: within }] } };
  };
  if ('upsert' in operation) {
    const points = operation.upsert.points.filter((point) => keep(point.id));
    return points.length === 0 ? undefined : { upsert: { ...operation.upsert, points } };
  }
  if ('updateVectors' in operation) {
    const points = operation.updateVectors.points.filter((point) => keep(point.id));
    return points.length === 0 ? undefined : { updateVectors: { ...operation.updateVectors, points } };
  }
  if ('deletePoints' in operation) {
    const narrowed = selector(operation.deletePoints.selector);
    return narrowed && { deletePoints: { selector: narrowed } };
  }
  if ('deleteVectors' in operation) {
    const narrowed = selector(operation.deleteVectors.selector);
    return narrowed && { deleteVectors: { ...operation.deleteVectors, selector: narrowed } };
  }
  if ('setPayload' in operation) {
    const narrowed = selector(operation.setPayload.selector);
    return narrowed && { setPayload: { ...operation.setPayload, selector: narrowed } };
  }
  if ('overwritePayload' in operation) {
    const narrowed = selector(operation.overwritePayload.selector);
    return narrowed && { overwritePayload: { ...operation.overwritePayload, selector: narrowed } };
  }
  if ('deletePayload' in operation) {
    const narrowed = selector(operation.deletePayload.selector);
    return narrowed && { deletePayload: { ...operation.deletePayload, selector: narrowed } };
  }
  if ('clearPayload' in operation) {
    const narrowed = selector(operation.clearPayload.selector);
    return narrowed && { clearPayload: { selector: narrowed } };
  }
  return operation;
}
