import { JsonObject } from '@vectorstore/common';
import { UpdateOperation } from '../../model/operations.model';
import { PointId } from '../../model/point-id.model';
import { PointsSelector } from '../../model/selectors.model';
import { NamedVectors } from '../../model/vectors.model';
import { Segment } from '../segment';
import { FieldIndexSchema } from './field-index-schema';
import { deleteKeys, omitVectors, setAtPath } from './point-edits';
import { findPoint, PointRef, selectPoints } from './shard-query';
import { ShardSegments } from './shard-segments';

/** What operations change: the shard's segments (writes go to the active one) and its payload indexes. */
export interface OperationTarget {
  readonly segments: ShardSegments;
  readonly fieldIndexes: Map<string, FieldIndexSchema>;
}

/** Applies one logged operation (deterministic: replay reproduces the same state). */
export function applyOperation(shard: OperationTarget, opNum: number, operation: UpdateOperation): void {
  const { segments, fieldIndexes } = shard;
  const find = (id: PointId) => findPoint(segments.all, id);
  const select = (selector: PointsSelector) => selectPoints(segments.all, selector);
  if ('upsert' in operation) {
    const { points, updateFilter, updateMode } = operation.upsert;
    for (const point of points) {
      const found = find(point.id);
      if (found && updateMode === 'InsertOnly') continue;
      if (!found && updateMode === 'UpdateOnly') continue;
      if (found && updateFilter && !found.segment.matches(found.slot, updateFilter)) continue;
      if (found && found.segment !== segments.active) found.segment.delete(opNum, found.slot);
      segments.active.upsert(opNum, point.id, point.vectors, point.payload);
    }
  } else if ('deletePoints' in operation) {
    for (const ref of select(operation.deletePoints.selector)) ref.segment.delete(opNum, ref.slot);
  } else if ('updateVectors' in operation) {
    const { points, updateFilter } = operation.updateVectors;
    for (const point of points) {
      const found = find(point.id);
      if (!found || (updateFilter && !found.segment.matches(found.slot, updateFilter))) continue;
      rewritePoint(segments.active, opNum, found, (vectors, payload) => ({
        vectors: { ...vectors, ...point.vectors },
        payload,
      }));
    }
  } else if ('deleteVectors' in operation) {
    const { selector, vectorNames } = operation.deleteVectors;
    for (const ref of select(selector)) {
      rewritePoint(segments.active, opNum, ref, (vectors, payload) => ({
        vectors: omitVectors(vectors, vectorNames),
        payload,
      }));
    }
  } else if ('setPayload' in operation) {
    const { selector, payload: update, key } = operation.setPayload;
    for (const ref of select(selector)) {
      rewritePoint(segments.active, opNum, ref, (vectors, payload) => ({
        vectors,
        payload: key ? setAtPath(payload, key, update) : { ...payload, ...update },
      }));
    }
  } else if ('overwritePayload' in operation) {
    const { selector, payload: update, key } = operation.overwritePayload;
    for (const ref of select(selector)) {
      rewritePoint(segments.active, opNum, ref, (vectors, payload) => ({
        vectors,
        payload: key ? setAtPath(payload, key, update) : update,
      }));
    }
  } else if ('deletePayload' in operation) {
    const { selector, keys } = operation.deletePayload;
    for (const ref of select(selector)) {
      rewritePoint(segments.active, opNum, ref, (vectors, payload) => ({
        vectors,
        payload: deleteKeys(payload, keys),
      }));
    }
  } else if ('clearPayload' in operation) {
    for (const ref of select(operation.clearPayload.selector))
      rewritePoint(segments.active, opNum, ref, (vectors) => ({ vectors, payload: {} }));
  } else if ('createFieldIndex' in operation) {
    const { field, type, params } = operation.createFieldIndex;
    fieldIndexes.set(field, { type, params });
    for (const segment of segments.all) segment.createFieldIndex(field, type, params);
  } else if ('deleteFieldIndex' in operation) {
    fieldIndexes.delete(operation.deleteFieldIndex.field);
    for (const segment of segments.all) segment.deleteFieldIndex(operation.deleteFieldIndex.field);
  }
}

/** Changes a point's vectors/payload: in place in the active segment, else copied there (copy-on-write). */
function rewritePoint(
  active: Segment,
  opNum: number,
  ref: PointRef,
  change: (vectors: NamedVectors, payload: JsonObject) => { vectors: NamedVectors; payload: JsonObject },
): void {
  const id = ref.segment.pointId(ref.slot);
  const current = ref.segment.pointVectors(ref.slot);
  const next = change(current, ref.segment.payload(ref.slot));
  if (ref.segment !== active) {
    ref.segment.delete(opNum, ref.slot);
    active.upsert(opNum, id, next.vectors, next.payload);
  } else {
    // Unchanged vectors keep their identity through `change`, so only changed ones are re-added.
    active.rewrite(opNum, ref.slot, current, next.vectors, next.payload);
  }
}
