import { CollectionRecord, describeShardKey, ShardKey, shardKeyEquals } from '@vectorstore/collections';
import { DomainError } from '@vectorstore/common';
import { createHash } from 'node:crypto';
import { PointId, pointIdKey } from '../../model/point-id.model';
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
    for (const id of ids) for (const group of byKey.values()) add(shardOf(id, group, record.router), id);
    return routes;
  }
  if (selector && selector.shardKeys.length > 0) {
    throw DomainError.invalidArgument(
      'Bad request: shard_key_selector is only valid for a collection with custom sharding',
    );
  }
  const handles = [...shards.values()].sort((a, b) => a.shardId - b.shardId);
  if (handles.length === 0) throw DomainError.failedPrecondition(`Collection \`${record.name}\` has no shards`);
  for (const id of ids) add(shardOf(id, handles, record.router), id);
  return routes;
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

/** Virtual nodes per shard on the ring, as Qdrant's consistent-hash router. */
const RING_POINTS_PER_SHARD = 100;
const rings = new Map<string, { positions: Uint32Array; owners: Uint16Array }>();

/**
 * Consistent hashing: each shard owns the arcs before its 100 points on a 32-bit ring (point `v` of
 * shard `s` sits at sha1("s/v")); a point id goes to the owner of the first ring point at or after its
 * own hash. The ring depends only on the shard ids, so every peer routes alike. Returns an index into
 * `shardIds`.
 */
export function ringShard(id: PointId, shardIds: readonly number[]): number {
  if (shardIds.length <= 1) return 0;
  const key = shardIds.join(',');
  let ring = rings.get(key);
  if (!ring) {
    const entries: Array<[number, number]> = [];
    shardIds.forEach((shardId, index) => {
      for (let v = 0; v < RING_POINTS_PER_SHARD; v++)
        entries.push([createHash('sha1').update(`${shardId}/${v}`).digest().readUInt32BE(0), index]);
    });
    entries.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    ring = { positions: Uint32Array.from(entries, (e) => e[0]), owners: Uint16Array.from(entries, (e) => e[1]) };
    if (rings.size > 1000) rings.clear();
    rings.set(key, ring);
  }
  const hash = createHash('sha1').update(pointIdKey(id)).digest().readUInt32BE(0);
  let lo = 0;
  let hi = ring.positions.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ring.positions[mid] < hash) lo = mid + 1;
    else hi = mid;
  }
  return ring.owners[lo === ring.positions.length ? 0 : lo];
}

/** Stable placement of a point among `count` shards (`sha1(id) % count`). */
export function hashToShard(id: PointId, count: number): number {
  if (count <= 1) return 0;
  const digest = createHash('sha1').update(pointIdKey(id)).digest();
  return digest.readUInt32BE(0) % count;
}
