import { CollectionRecord, describeShardKey, ShardKey, shardKeyEquals, writeRings } from '@vectorstore/collections';
import { DomainError } from '@vectorstore/common';
import { hashToShard, ringShard } from '../../filter/hash-ring';
import { PointId } from '../../model/point-id.model';
import { ShardKeySelector } from '../../model/selectors.model';
import { LocalShard } from '../local-shard';

/** What routing needs to know about a shard, wherever it is. */
export interface ShardRef {
  shardId: number;
  shardKey?: ShardKey;
}

/** A local shard with what routing needs to know about it. */
export interface ShardHandle extends ShardRef {
  shard: LocalShard;
}

/**
 * Shards a read fans out to: all of them, or those of the selected shard keys. `known`: every shard of
 * the collection (cluster mode holds some on other peers): a key is unknown only when none of them has
 * it, and a key held only elsewhere selects no local shard.
 */
export function readShards<S extends ShardRef>(
  shards: ReadonlyMap<number, S>,
  selector: ShardKeySelector | undefined,
  known: readonly ShardRef[] = [...shards.values()],
): S[] {
  if (!selector || selector.shardKeys.length === 0) return [...shards.values()];
  const wanted = new Set(keyShards(known, selector).map((s) => s.shardId));
  return [...shards.values()].filter((s) => wanted.has(s.shardId));
}

/** The shard each point is written to: by id (auto sharding) or by shard key, then id (custom sharding). */
export function routeWrite<S extends ShardRef>(
  shards: ReadonlyMap<number, S>,
  record: CollectionRecord,
  ids: readonly PointId[],
  selector: ShardKeySelector | undefined,
): Map<S, PointId[]> {
  const routes = new Map<S, PointId[]>();
  const add = (handle: S, id: PointId) => {
    const list = routes.get(handle);
    if (list) list.push(id);
    else routes.set(handle, [id]);
  };
  if (record.config.params.shardingMethod === 'Custom') {
    if (!selector || selector.shardKeys.length === 0) {
      throw DomainError.invalidArgument(
        'Bad request: shard_key_selector is required for a collection with custom sharding',
      );
    }
    const candidates = keyShards([...shards.values()], selector);
    // Within a key's shards, points spread by id; with several keys each point goes to each key.
    const byKey = new Map<string, S[]>();
    for (const handle of candidates) {
      const k = JSON.stringify(handle.shardKey);
      byKey.set(k, [...(byKey.get(k) ?? []), handle]);
    }
    for (const id of ids)
      for (const group of byKey.values()) {
        const rings = ringsFor(record, group[0].shardKey);
        if (rings) for (const owner of ringOwners(id, rings, shards)) add(owner, id);
        else add(shardOf(id, group, record.router), id);
      }
    return routes;
  }
  if (selector && selector.shardKeys.length > 0) {
    throw DomainError.invalidArgument(
      'Bad request: shard_key_selector is only valid for a collection with custom sharding',
    );
  }
  const handles = [...shards.values()].sort((a, b) => a.shardId - b.shardId);
  if (handles.length === 0) throw DomainError.failedPrecondition(`Collection \`${record.name}\` has no shards`);
  const rings = ringsFor(record, undefined);
  for (const id of ids) {
    if (rings) for (const owner of ringOwners(id, rings, shards)) add(owner, id);
    else add(shardOf(id, handles, record.router), id);
  }
  return routes;
}

/** The rings a resharding routes the group `key` by (see libs/collections cluster/resharding.ts), if it reshards it. */
function ringsFor(record: CollectionRecord, key: ShardKey | undefined): number[][] | undefined {
  const resharding = record.resharding;
  if (!resharding) return undefined;
  const same =
    key === undefined
      ? resharding.shardKey === undefined
      : resharding.shardKey !== undefined && shardKeyEquals(key, resharding.shardKey);
  return same ? writeRings(record) : undefined;
}

/** The shards a point goes to: its owner under each ring (one shard when the rings agree on it). */
function ringOwners<S extends ShardRef>(id: PointId, rings: number[][], shards: ReadonlyMap<number, S>): S[] {
  const owners = new Set<number>();
  for (const ring of rings) owners.add(ring[ringShard(id, ring)]);
  return [...owners].map((shardId) => {
    const shard = shards.get(shardId);
    if (!shard) throw DomainError.unavailable(`Service unavailable: shard ${shardId} is not known here yet`);
    return shard;
  });
}

/** Every shard, for writes chosen by filter (they touch whatever shard holds a matching point). */
export function writeShardsForFilter<S extends ShardRef>(
  shards: ReadonlyMap<number, S>,
  record: CollectionRecord,
  selector: ShardKeySelector | undefined,
): S[] {
  if (record.config.params.shardingMethod === 'Custom' && selector && selector.shardKeys.length > 0) {
    return keyShards([...shards.values()], selector);
  }
  return [...shards.values()];
}

function keyShards<S extends ShardRef>(shards: readonly S[], selector: ShardKeySelector): S[] {
  const result: S[] = [];
  for (const key of selector.shardKeys) {
    let matched = shards.filter((h) => h.shardKey && shardKeyEquals(h.shardKey, key));
    if (matched.length === 0 && selector.fallback) {
      const fallback = selector.fallback;
      matched = shards.filter((h) => h.shardKey && shardKeyEquals(h.shardKey, fallback));
    }
    if (matched.length === 0)
      throw DomainError.notFound(`Not found: Shard key ${describeShardKey(key)} does not exist`);
    for (const handle of matched) if (!result.includes(handle)) result.push(handle);
  }
  return result;
}

/** The shard of `shards` (sorted by id) a point belongs to, by the collection's router. */
function shardOf<S extends ShardRef>(id: PointId, shards: readonly S[], router: CollectionRecord['router']): S {
  return router === 'Ring'
    ? shards[
        ringShard(
          id,
          shards.map((s) => s.shardId),
        )
      ]
    : shards[hashToShard(id, shards.length)];
}

export { hashToShard, ringShard };
