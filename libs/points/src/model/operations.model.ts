import { PayloadIndexParams, PayloadSchemaType } from '@vectorstore/collections';
import { JsonObject } from '@vectorstore/common';
import { Filter } from './filter.model';
import { PointId } from './point-id.model';
import { PointStruct } from './point.model';
import { PointsSelector, ShardKeySelector } from './selectors.model';
import { NamedVectors } from './vectors.model';

export type UpdateMode = 'Upsert' | 'InsertOnly' | 'UpdateOnly';

/**
 * One write against a shard, exactly as logged in the WAL and replayed after a crash.
 * Operations are idempotent under replay: each carries the op number that orders it.
 */
export type UpdateOperation =
  | { upsert: { points: PointStruct[]; updateFilter?: Filter; updateMode?: UpdateMode } }
  | { deletePoints: { selector: PointsSelector } }
  | { updateVectors: { points: Array<{ id: PointId; vectors: NamedVectors }>; updateFilter?: Filter } }
  | { deleteVectors: { selector: PointsSelector; vectorNames: string[] } }
  | { setPayload: { selector: PointsSelector; payload: JsonObject; key?: string } }
  | { overwritePayload: { selector: PointsSelector; payload: JsonObject; key?: string } }
  | { deletePayload: { selector: PointsSelector; keys: string[] } }
  | { clearPayload: { selector: PointsSelector } }
  | { createFieldIndex: { field: string; type: PayloadSchemaType; params?: PayloadIndexParams } }
  | { deleteFieldIndex: { field: string } };

export type UpdateStatus = 'Acknowledged' | 'Completed' | 'WaitTimeout';

export interface UpdateResult {
  operationId: number;
  status: UpdateStatus;
}

/** How a write waits: `wait` false answers once logged (Acknowledged); true once applied (Completed). */
export interface WriteOptions {
  wait: boolean;
  /** Seconds; with wait, WaitTimeout is answered when applying takes longer. */
  timeout?: number;
}

/** A write as the API hands it to the points service. */
/**
 * Write ordering (cluster mode, with replicas), as Qdrant: Weak applies a write on each replica as it
 * arrives; Medium and Strong send it through one replica of the shard (its ordering leader), which
 * passes writes on one at a time, so every replica applies them in the same order.
 */
export type WriteOrdering = 'Weak' | 'Medium' | 'Strong';

export interface UpdateRequest {
  operation: UpdateOperation;
  wait: boolean;
  ordering?: WriteOrdering;
  /** Seconds (see WriteOptions). */
  timeout?: number;
  shardKeySelector?: ShardKeySelector;
}
