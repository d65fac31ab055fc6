// Where a point id lives among a group of shards: a consistent-hash ring over the shard ids (collections made in
// cluster mode), or sha1(id) % count (collections made standalone). Pure: routing, resharding's copies and the
// filters that hide copies during a resharding all ask the same question the same way.
import { createHash } from 'node:crypto';
import { PointId, pointIdKey } from '../model/point-id.model';

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
