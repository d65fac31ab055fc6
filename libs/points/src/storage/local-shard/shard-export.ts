// What a shard holds, point by point, for copying it elsewhere (a transfer's batches) and for telling two copies
// apart (a checksum). Both see deferred points (`prevent_unoptimized`) as writes do: they are stored data.
import { stringifyJson } from '@vectorstore/common';
import { createHash } from 'node:crypto';
import { Filter } from '../../model/filter.model';
import { PointId } from '../../model/point-id.model';
import { PointStruct } from '../../model/point.model';
import { NamedVectors } from '../../model/vectors.model';
import { Segment } from '../segment';
import { findPoint } from './shard-points';

/** Every live point's id, in segment order (a transfer's copy plan; any order will do). */
export function livePointIds(segments: readonly Segment[], filter?: Filter): PointId[] {
  const ids: PointId[] = [];
  for (const segment of segments) {
    for (const slot of segment.matchingSlots(filter, 'stored')) ids.push(segment.pointId(slot));
  }
  return ids;
}

/**
 * The points of `ids` as they are now, whole (every vector, the payload), skipping those gone or, with a filter,
 * no longer matching. An upsert of them makes a copy hold exactly this state.
 */
export function exportPoints(segments: readonly Segment[], ids: readonly PointId[], filter?: Filter): PointStruct[] {
  const points: PointStruct[] = [];
  for (const id of ids) {
    const ref = findPoint(segments, id);
    if (!ref || (filter && !ref.segment.matches(ref.slot, filter))) continue;
    points.push({ id, vectors: ref.segment.pointVectors(ref.slot), payload: ref.segment.payload(ref.slot) });
  }
  return points;
}

/** A shard's content in two numbers: live points, and an order-free digest of every point's id, vectors and payload. */
export interface ShardChecksum {
  points: number;
  /** 16 hex digits: the sum mod 2^64 of each point's SHA-256 prefix, so the order points are stored in is irrelevant. */
  digest: string;
}

export function shardChecksum(segments: readonly Segment[]): ShardChecksum {
  let sum = 0n;
  let points = 0;
  for (const segment of segments) {
    for (const slot of segment.matchingSlots(undefined, 'stored')) {
      const hash = createHash('sha256');
      hash.update(pointIdText(segment.pointId(slot)));
      hashVectors(hash, segment.pointVectors(slot));
      hash.update(canonicalJson(segment.payload(slot)));
      sum = (sum + hash.digest().readBigUInt64BE(0)) & 0xffff_ffff_ffff_ffffn;
      points++;
    }
  }
  return { points, digest: sum.toString(16).padStart(16, '0') };
}

function pointIdText(id: PointId): string {
  return typeof id === 'bigint' ? `n${id}` : `u${id}`;
}

/** Vectors by name in name order, each as its kind and raw bytes. */
function hashVectors(hash: ReturnType<typeof createHash>, vectors: NamedVectors): void {
  for (const name of Object.keys(vectors).sort()) {
    const vector = vectors[name];
    hash.update(`|${name}:${vector.kind}:`);
    if (vector.kind === 'dense') hash.update(bytesOf(vector.values));
    else if (vector.kind === 'sparse') hash.update(bytesOf(vector.indices)).update(bytesOf(vector.values));
    else for (const row of vector.vectors) hash.update(bytesOf(row)).update(';');
  }
}

function bytesOf(array: Float32Array | Uint32Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

/** JSON with object keys sorted at every level, so two equal payloads give one text whatever their key order. */
function canonicalJson(value: unknown): string {
  return stringifyJson(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  // No prototype: a payload key `__proto__` is then an ordinary key.
  const sorted = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(value).sort()) sorted[key] = sortKeys((value as Record<string, unknown>)[key]);
  return sorted;
}
