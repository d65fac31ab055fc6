// The catalog side of resharding (cluster mode): the rules for starting, stepping, finishing and aborting one, and
// what routing makes of it. A resharding changes the shards of one group (the collection's shards, or those of one
// shard key) by one: Up adds a shard, Down removes the group's highest shard id. Points are routed by a
// consistent-hash ring over the group's shard ids (collections made in cluster mode), so adding a shard to n moves
// about 1/(n+1) of the points, all of them into the new shard, and removing one moves only that shard's points.
//
// Stages (Qdrant's): MigratingPoints — writes go by both rings, reads by the old one, and the points the new ring
// puts elsewhere are copied there (transfers with a ring filter); ReadHashRingCommitted — reads follow the new
// ring; WriteHashRingCommitted — writes follow it too, and the copies left behind are deleted; then it ends. While
// a shard holds copies the ring in force does not give it, reads of it leave them out (a filter on the ring).
import { DomainError } from '@vectorstore/common';
import {
  ReshardingDirection,
  ReshardingInfo,
  ReshardingRecord,
  ShardKey,
  shardKeyEquals,
  ShardRecord,
  describeShardKey,
} from '../model/cluster.model';
import { CollectionRecord } from '../model/collection.model';

/** The shard ids of the group a resharding changes: before it (`oldIds`) and after it (`newIds`), ascending. */
export interface ReshardingRings {
  shardKey?: ShardKey;
  oldIds: number[];
  newIds: number[];
}

/** Points of `shardIds` whose owner under `ring` is `owner` are copies a read leaves out. */
export interface ReadExclusion {
  shardIds: number[];
  ring: number[];
  owner: number;
}

/** One copy a resharding makes: the points of `fromShard` the new ring gives `toShard`, into its replica on `toPeer`. */
export interface MigrationUnit {
  key: string;
  fromShard: number;
  toShard: number;
  toPeer: string;
}

export interface StartReshardingRequest {
  direction: ReshardingDirection;
  peerId?: string;
  shardKey?: ShardKey;
}

/** The shards (by id, ascending) of the group `key` names: a shard key's, or every shard without a key. */
export function groupShardIds(record: CollectionRecord, key: ShardKey | undefined): number[] {
  const inGroup = (shard: ShardRecord) =>
    key === undefined
      ? shard.shardKey === undefined
      : shard.shardKey !== undefined && shardKeyEquals(shard.shardKey, key);
  return [...new Set(record.shards.filter(inGroup).map((shard) => shard.shardId))].sort((a, b) => a - b);
}

export function reshardingRings(record: CollectionRecord): ReshardingRings | undefined {
  const resharding = record.resharding;
  if (!resharding) return undefined;
  const ids = groupShardIds(record, resharding.shardKey);
  const without = ids.filter((id) => id !== resharding.shardId);
  const rings = resharding.direction === 'Up' ? { oldIds: without, newIds: ids } : { oldIds: ids, newIds: without };
  return { ...(resharding.shardKey ? { shardKey: resharding.shardKey } : {}), ...rings };
}

/**
 * The rings a write of the resharding's group is routed by, each point going to its owner under every one of them
 * (undefined: no resharding, the group's shards as they are). Both while points migrate and until writes commit
 * to the new ring (an abort then still finds the old shards whole); the old one alone while a scale-down is
 * given up.
 */
export function writeRings(record: CollectionRecord): number[][] | undefined {
  const rings = reshardingRings(record);
  if (!rings) return undefined;
  switch (record.resharding!.stage) {
    case 'MigratingPoints':
    case 'ReadHashRingCommitted':
      return [rings.oldIds, rings.newIds];
    case 'WriteHashRingCommitted':
      return [rings.newIds];
    case 'Aborting':
      return [rings.oldIds];
  }
}

/** The shard ids a read leaves out altogether (a shard the ring in force for reads does not have). */
export function unreadShardIds(record: CollectionRecord): Set<number> {
  const resharding = record.resharding;
  if (!resharding) return new Set();
  const readsOld = resharding.stage === 'MigratingPoints' || resharding.stage === 'Aborting';
  // Up adds the shard to the new ring; Down takes it out of it.
  const unread = resharding.direction === 'Up' ? readsOld : !readsOld;
  return unread ? new Set([resharding.shardId]) : new Set();
}

/**
 * Copies a read must leave out: Up, once reads follow the new ring, the old shards still hold the points moved to
 * the new one (until the cleanup); Down, while reads follow the old ring, the other shards already hold copies of
 * the removed shard's points.
 */
export function readExclusions(record: CollectionRecord): ReadExclusion[] {
  const rings = reshardingRings(record);
  const resharding = record.resharding;
  if (!rings || !resharding) return [];
  const readsOld = resharding.stage === 'MigratingPoints' || resharding.stage === 'Aborting';
  if (resharding.direction === 'Up')
    return readsOld ? [] : [{ shardIds: rings.oldIds, ring: rings.newIds, owner: resharding.shardId }];
  return readsOld ? [{ shardIds: rings.newIds, ring: rings.oldIds, owner: resharding.shardId }] : [];
}

/** The copies a resharding makes, one per target replica (see {@link MigrationUnit}). */
export function migrationUnits(record: CollectionRecord): MigrationUnit[] {
  const rings = reshardingRings(record);
  const resharding = record.resharding;
  if (!rings || !resharding) return [];
  const targetsOf = (shardId: number) =>
    record.shards.filter((shard) => shard.shardId === shardId && shard.peerId !== undefined && shard.state !== 'Dead');
  const units: MigrationUnit[] = [];
  const add = (fromShard: number, toShard: number) => {
    for (const target of targetsOf(toShard))
      units.push({ key: `${fromShard}>${toShard}@${target.peerId}`, fromShard, toShard, toPeer: target.peerId! });
  };
  if (resharding.direction === 'Up') for (const from of rings.oldIds) add(from, resharding.shardId);
  else for (const to of rings.newIds) add(resharding.shardId, to);
  return units;
}

/**
 * Starts a resharding of `record` (inside a catalog change). `placeOn` gives the peers of a new shard's `count`
 * replicas (distinct, fewer when fewer are live), `first` first when the request names it.
 */
export function startResharding(
  record: CollectionRecord,
  request: StartReshardingRequest,
  placeOn: (count: number, first?: string) => string[],
  now: Date,
): ReshardingRecord {
  if (record.router !== 'Ring')
    throw DomainError.invalidArgument(
      `Bad request: collection \`${record.name}\` routes points by sha1(id) % shard count (it was made standalone), so a change of its shard count would move nearly every point; only collections made in cluster mode (a consistent-hash ring) can be resharded`,
    );
  if (record.resharding)
    throw DomainError.invalidArgument(`Bad request: resharding is already in progress for collection ${record.name}`);
  if ((record.transfers ?? []).length > 0)
    throw DomainError.invalidArgument(
      `Bad request: shard transfers of collection ${record.name} are in progress: resharding starts once they end`,
    );
  const custom = record.config.params.shardingMethod === 'Custom';
  if (custom && request.shardKey === undefined)
    throw DomainError.invalidArgument(
      'Bad request: shard_key is required to reshard a collection with custom sharding',
    );
  if (!custom && request.shardKey !== undefined)
    throw DomainError.invalidArgument('Bad request: shard_key is only valid for a collection with custom sharding');
  if (request.shardKey && !record.shardKeys.some((entry) => shardKeyEquals(entry.key, request.shardKey!)))
    throw DomainError.notFound(`Not found: Shard key ${describeShardKey(request.shardKey)} does not exist`);
  const ids = groupShardIds(record, request.shardKey);
  const key = request.shardKey ? { shardKey: request.shardKey } : {};
  let resharding: ReshardingRecord;
  if (request.direction === 'Up') {
    // The new shard gets the group's replication factor from the start: each replica is a copy's target, and all
    // of them become Active together when reads move to it (as Qdrant replicates it before that commit).
    const keyEntry = request.shardKey
      ? record.shardKeys.find((entry) => shardKeyEquals(entry.key, request.shardKey!))
      : undefined;
    const factor = keyEntry?.replicationFactor ?? record.config.params.replicationFactor ?? 1;
    const peers = placeOn(factor, request.peerId);
    if (peers.length === 0)
      throw DomainError.unavailable(`Service unavailable: no live peer to place the new shard of ${record.name} on`);
    const shardId = record.nextShardId++;
    for (const peerId of peers) record.shards.push({ shardId, state: 'Resharding', peerId, ...key });
    resharding = {
      direction: 'Up',
      shardId,
      peerId: peers[0],
      ...key,
      stage: 'MigratingPoints',
      stageAt: now.toISOString(),
    };
  } else {
    if (ids.length < 2)
      throw DomainError.invalidArgument(
        `Bad request: collection ${record.name} has ${ids.length} shard${request.shardKey ? ' for this shard key' : ''}: resharding down needs at least 2`,
      );
    const shardId = ids[ids.length - 1];
    const replicas = record.shards.filter((shard) => shard.shardId === shardId);
    const active = replicas.filter((shard) => shard.state === 'Active');
    if (active.length === 0)
      throw DomainError.invalidArgument(
        `Bad request: shard ${shardId} of ${record.name} has no Active replica to move its points from`,
      );
    if (request.peerId !== undefined && !active.some((shard) => shard.peerId === request.peerId))
      throw DomainError.invalidArgument(
        `Bad request: peer ${request.peerId} holds no Active replica of shard ${shardId}, the shard resharding down removes`,
      );
    for (const replica of active) replica.state = 'ReshardingScaleDown';
    resharding = {
      direction: 'Down',
      shardId,
      peerId: request.peerId ?? active[0].peerId!,
      ...key,
      stage: 'MigratingPoints',
      stageAt: now.toISOString(),
    };
  }
  record.resharding = resharding;
  return resharding;
}

/** Every copy is made: reads follow the new ring (the new shard's replicas become Active). */
export function commitReadRing(record: CollectionRecord, now: Date): void {
  const resharding = requireStage(record, 'MigratingPoints');
  const units = migrationUnits(record);
  const done = new Set(resharding.migrated ?? []);
  const missing = units.find((unit) => !done.has(unit.key));
  if (units.length === 0 || missing)
    throw DomainError.failedPrecondition(
      `Failed precondition: resharding of ${record.name} has not copied ${missing ? missing.key : 'anything'} yet`,
    );
  if (resharding.direction === 'Up')
    for (const replica of record.shards)
      if (replica.shardId === resharding.shardId && replica.state === 'Resharding') replica.state = 'Active';
  resharding.stage = 'ReadHashRingCommitted';
  resharding.stageAt = now.toISOString();
}

/** Writes follow the new ring: from here the resharding can only finish. */
export function commitWriteRing(record: CollectionRecord, now: Date): void {
  const resharding = requireStage(record, 'ReadHashRingCommitted');
  resharding.stage = 'WriteHashRingCommitted';
  resharding.stageAt = now.toISOString();
}

/**
 * The copies left behind are gone: the resharding ends. Down drops the removed shard's replicas. The group's
 * shard count (the collection's `shard_number`, or the shard key's) follows.
 */
export function finishResharding(record: CollectionRecord): void {
  const resharding = requireStage(record, 'WriteHashRingCommitted');
  const delta = resharding.direction === 'Up' ? 1 : -1;
  if (resharding.direction === 'Down') record.shards = record.shards.filter((s) => s.shardId !== resharding.shardId);
  const keyEntry = resharding.shardKey
    ? record.shardKeys.find((entry) => shardKeyEquals(entry.key, resharding.shardKey!))
    : undefined;
  if (keyEntry) keyEntry.shardsNumber += delta;
  else record.config.params.shardNumber += delta;
  delete record.resharding;
}

/**
 * Gives the resharding up (an operator's abort, or the new shard lost its only replica). Up: the new shard goes.
 * Down: the shard stays, its replicas Active again, and the copies made of its points elsewhere are removed
 * (`Aborting`, then {@link finishAbort}). Not once writes follow the new ring.
 */
export function abortResharding(record: CollectionRecord, now: Date): void {
  const resharding = record.resharding;
  if (!resharding)
    throw DomainError.invalidArgument(`Bad request: there is no resharding in progress for collection ${record.name}`);
  if (resharding.stage === 'WriteHashRingCommitted')
    throw DomainError.invalidArgument(
      `Bad request: resharding of collection ${record.name} can no longer be aborted: writes already follow the new hash ring (it is finishing)`,
    );
  if (resharding.stage === 'Aborting') return;
  // Its copies stop: a transfer of the resharding ends with it.
  record.transfers = (record.transfers ?? []).filter((transfer) => transfer.reason !== 'resharding');
  if (record.transfers.length === 0) delete record.transfers;
  if (resharding.direction === 'Up') {
    record.shards = record.shards.filter((shard) => shard.shardId !== resharding.shardId);
    delete record.resharding;
    return;
  }
  for (const replica of record.shards)
    if (replica.shardId === resharding.shardId && replica.state === 'ReshardingScaleDown') replica.state = 'Active';
  resharding.stage = 'Aborting';
  resharding.stageAt = now.toISOString();
  delete resharding.migrated;
}

/** A given-up scale-down's copies are removed: it ends. */
export function finishAbort(record: CollectionRecord): void {
  requireStage(record, 'Aborting');
  delete record.resharding;
}

/** The copy `unitKey` is made (its transfer finished). */
export function markMigrated(record: CollectionRecord, unitKey: string): void {
  const resharding = record.resharding;
  if (!resharding || resharding.stage !== 'MigratingPoints') return;
  resharding.migrated = [...new Set([...(resharding.migrated ?? []), unitKey])];
}

/** The unit a resharding transfer makes. */
export function unitKeyOf(transfer: { shardId: number; toShardId?: number; to: string }): string {
  return `${transfer.shardId}>${transfer.toShardId ?? transfer.shardId}@${transfer.to}`;
}

export function reshardingInfo(record: CollectionRecord): ReshardingInfo[] {
  const resharding = record.resharding;
  if (!resharding) return [];
  return [
    {
      direction: resharding.direction,
      shardId: resharding.shardId,
      peerId: resharding.peerId,
      ...(resharding.shardKey ? { shardKey: resharding.shardKey } : {}),
    },
  ];
}

function requireStage(record: CollectionRecord, stage: ReshardingRecord['stage']): ReshardingRecord {
  const resharding = record.resharding;
  if (!resharding || resharding.stage !== stage)
    throw DomainError.failedPrecondition(
      `Failed precondition: resharding of ${record.name} is ${resharding ? `at ${resharding.stage}` : 'not running'}, not at ${stage}`,
    );
  return resharding;
}
