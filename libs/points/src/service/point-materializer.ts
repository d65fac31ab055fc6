import { ShardKey } from '@vectorstore/collections';
import { OrderValue, RetrievedPoint, ScoredPoint } from '../model/point.model';
import { PayloadSelector, VectorSelector } from '../model/selectors.model';
import { Segment } from '../storage/segment';
import { selectedVectorNames, selectPayload } from './payload-selection';

/** A live point located in storage (valid until the next await). */
export interface PointLocation {
  segment: Segment;
  slot: number;
  shardKey?: ShardKey;
}

/** Builds the point a client sees, with the payload and vectors it asked for. */
export function retrievedPoint(
  location: PointLocation,
  withPayload: PayloadSelector,
  withVectors: VectorSelector,
  orderValue?: OrderValue,
): RetrievedPoint {
  const { segment, slot } = location;
  const point: RetrievedPoint = { id: segment.pointId(slot) };
  // The payload is read (from disk, for on-disk payloads) only when the client asked for it.
  if (!('enable' in withPayload) || withPayload.enable) {
    const payload = selectPayload(segment.payload(slot), withPayload);
    if (payload !== undefined) point.payload = payload;
  }
  const names = selectedVectorNames(withVectors);
  if (names !== undefined) point.vectors = segment.pointVectors(slot, names === 'all' ? undefined : names);
  if (location.shardKey) point.shardKey = location.shardKey;
  if (orderValue) point.orderValue = orderValue;
  return point;
}

export function scoredPoint(
  location: PointLocation,
  score: number,
  withPayload: PayloadSelector,
  withVectors: VectorSelector,
  orderValue?: OrderValue,
): ScoredPoint {
  const point = retrievedPoint(location, withPayload, withVectors, orderValue) as ScoredPoint;
  point.score = score;
  point.version = location.segment.pointVersion(location.slot);
  return point;
}
