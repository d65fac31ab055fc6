import { CollectionRecord, migrationUnits, reshardingRings } from '@vectorstore/collections';
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

/** `operation` limited to the points of `scope` (undefined: it touches none). Field index changes stay whole. */
export function withinScope(operation: UpdateOperation, scope: PointScope): UpdateOperation | undefined {
  return narrow(operation, scope.has, { must: [{ filter: scope.filter }] });
}

/** `operation` without the points of `scope` (undefined: it touches none). Field index changes stay whole. */
export function outsideScope(operation: UpdateOperation, scope: PointScope): UpdateOperation | undefined {
  return narrow(operation, (id) => !scope.has(id), { mustNot: [{ filter: scope.filter }] });
}

type Selector = { ids: PointId[] } | { filter: Filter };

function narrow(
  operation: UpdateOperation,
  keep: (id: PointId) => boolean,
  within: Filter,
): UpdateOperation | undefined {
  const selector = (selector: Selector): Selector | undefined => {
    if ('ids' in selector) {
      const ids = selector.ids.filter(keep);
      return ids.length === 0 ? undefined : { ids };
    }
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
