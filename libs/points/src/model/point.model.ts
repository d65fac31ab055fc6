import { JsonObject } from '@vectorstore/common';
import { ShardKey } from '@vectorstore/collections';
import { PointId } from './point-id.model';
import { NamedVectors } from './vectors.model';

/** A point as written by Upsert. */
export interface PointStruct {
  id: PointId;
  vectors: NamedVectors;
  payload: JsonObject;
}

/** A value a point is ordered by (order_by): integers and floats keep their kind. */
export type OrderValue = { int: bigint } | { float: number };

/** A point as read back. `payload`/`vectors` are present when selected. */
export interface RetrievedPoint {
  id: PointId;
  payload?: JsonObject;
  vectors?: NamedVectors;
  shardKey?: ShardKey;
  orderValue?: OrderValue;
}

/** A search hit. */
export interface ScoredPoint extends RetrievedPoint {
  score: number;
  /** The operation number that last wrote the point. */
  version: number;
}
