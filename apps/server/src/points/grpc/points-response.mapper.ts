import type { FacetHit, OrderValue, PointId, RetrievedPoint, ScoredPoint, UpdateResult } from '@vectorstore/points';
import type { BatchResult } from '../../grpc/generated/vectorstore/BatchResult';
import type { CountResponse } from '../../grpc/generated/vectorstore/CountResponse';
import type { FacetHit as ProtoFacetHit } from '../../grpc/generated/vectorstore/FacetHit';
import type { FacetResponse } from '../../grpc/generated/vectorstore/FacetResponse';
import type { GetResponse } from '../../grpc/generated/vectorstore/GetResponse';
import type { OrderValue as ProtoOrderValue } from '../../grpc/generated/vectorstore/OrderValue';
import type { PointsOperationResponse } from '../../grpc/generated/vectorstore/PointsOperationResponse';
import type { QueryBatchResponse } from '../../grpc/generated/vectorstore/QueryBatchResponse';
import type { QueryResponse } from '../../grpc/generated/vectorstore/QueryResponse';
import type { RetrievedPoint as ProtoRetrievedPoint } from '../../grpc/generated/vectorstore/RetrievedPoint';
import type { ScoredPoint as ProtoScoredPoint } from '../../grpc/generated/vectorstore/ScoredPoint';
import type { ScrollResponse } from '../../grpc/generated/vectorstore/ScrollResponse';
import type { UpdateBatchResponse } from '../../grpc/generated/vectorstore/UpdateBatchResponse';
import type { UpdateResult as ProtoUpdateResult } from '../../grpc/generated/vectorstore/UpdateResult';
import { shardKeyToProto } from '../../cluster/grpc/shard-key.grpc.mapper';
import { toProtoStruct } from '../../core/grpc/json-value.mapper';
import { defined } from '../../core/scalars';
import { pointIdToProto } from './point-id.mapper';
import { namedVectorsToProto, VectorOutputOptions } from './vectors.mapper';

/**
 * Domain results to proto responses. `time` (and `usage`) are left to the timing interceptor.
 * Vectors are written in the `vector` oneof only, as Qdrant 1.17+ does; pass
 * `{ legacyFields: true }` to also fill the deprecated flat fields.
 */

export function orderValueToProto(value: OrderValue): ProtoOrderValue {
  return 'int' in value ? { int: value.int.toString() } : { float: value.float };
}

/** A retrieved point: payload is always present on the wire (an empty map when not selected). */
// Built field by field, without spreads or a `defined` pass: these run once per point of every answer.
export function retrievedPointToProto(p: RetrievedPoint, options?: VectorOutputOptions): ProtoRetrievedPoint {
  const out: ProtoRetrievedPoint = { id: pointIdToProto(p.id), payload: toProtoStruct(p.payload ?? {}) };
  if (p.vectors) out.vectors = namedVectorsToProto(p.vectors, options);
  if (p.shardKey) out.shardKey = shardKeyToProto(p.shardKey);
  if (p.orderValue) out.orderValue = orderValueToProto(p.orderValue);
  return out;
}

export function scoredPointToProto(p: ScoredPoint, options?: VectorOutputOptions): ProtoScoredPoint {
  const out: ProtoScoredPoint = retrievedPointToProto(p, options);
  out.score = p.score;
  out.version = p.version;
  return out;
}

export function updateResultToProto(r: UpdateResult): ProtoUpdateResult {
  return { operationId: r.operationId, status: r.status };
}

export function pointsOperationResponseToProto(r: UpdateResult): PointsOperationResponse {
  return { result: updateResultToProto(r) };
}

export function updateBatchResponseToProto(results: readonly UpdateResult[]): UpdateBatchResponse {
  return { result: results.map(updateResultToProto) };
}

export function getResponseToProto(points: readonly RetrievedPoint[], options?: VectorOutputOptions): GetResponse {
  return { result: points.map((p) => retrievedPointToProto(p, options)) };
}

/** Scroll: `next_page_offset` is left unset when there are no more points. */
export function scrollResponseToProto(
  points: readonly RetrievedPoint[],
  nextPageOffset: PointId | undefined,
  options?: VectorOutputOptions,
): ScrollResponse {
  return defined({
    result: points.map((p) => retrievedPointToProto(p, options)),
    nextPageOffset: nextPageOffset === undefined ? undefined : pointIdToProto(nextPageOffset),
  });
}

/** Search, Recommend, Discover and Query responses share this shape (`result: ScoredPoint[]`). */
export function scoredPointsResponseToProto(
  points: readonly ScoredPoint[],
  options?: VectorOutputOptions,
): QueryResponse {
  return { result: points.map((p) => scoredPointToProto(p, options)) };
}

/** SearchBatch, RecommendBatch and QueryBatch responses (`result: BatchResult[]`). */
export function batchResponseToProto(
  batches: ReadonlyArray<readonly ScoredPoint[]>,
  options?: VectorOutputOptions,
): QueryBatchResponse {
  return {
    result: batches.map((points): BatchResult => ({ result: points.map((p) => scoredPointToProto(p, options)) })),
  };
}

export function countResponseToProto(count: number): CountResponse {
  return { result: { count } };
}

export function facetHitToProto(hit: FacetHit): ProtoFacetHit {
  const v = hit.value;
  const value =
    'keyword' in v
      ? { stringValue: v.keyword }
      : 'integer' in v
        ? { integerValue: v.integer.toString() }
        : { boolValue: v.bool };
  return { value, count: hit.count };
}

export function facetResponseToProto(hits: readonly FacetHit[]): FacetResponse {
  return { hits: hits.map(facetHitToProto) };
}
