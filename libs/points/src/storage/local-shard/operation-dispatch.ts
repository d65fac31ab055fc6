import { JsonObject } from '@vectorstore/common';
import { UpdateOperation } from '../../model/operations.model';
import { PointId } from '../../model/point-id.model';
import { PointsSelector } from '../../model/selectors.model';
import { NamedVectors } from '../../model/vectors.model';
import { Segment } from '../segment';
import { FieldIndexSchema } from './field-index-schema';
import { deleteKeys, omitVectors, setAtPath } from './point-edits';
import { findPoint, PointRef, selectPoints } from './shard-points';
import { ShardSegments } from './shard-segments';
import { requireKnownOperation } from './tagged-operation';

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
  const rewrite = (ref: PointRef, change: PointChange) => rewritePoint(segments.active, opNum, ref, change);
  // Writes and replay check the shape first, so this throws only on a bug; it never skips an operation silently.
  const op = requireKnownOperation(operation);
  switch (op.kind) {
    case 'upsert': {
      const { points, updateFilter, updateMode } = op.body;
      for (const point of points) {
        const found = find(point.id);
        if (found && updateMode === 'InsertOnly') continue;
        if (!found && updateMode === 'UpdateOnly') continue;
        if (found && updateFilter && !found.segment.matches(found.slot, updateFilter)) continue;
        const moved = found !== undefined && found.segment !== segments.active;
        if (moved) found.segment.delete(opNum, found.slot);
        const slot = segments.active.upsert(opNum, point.id, point.vectors, point.payload);
        // A point readers could see stays visible when a write moves it past the deferral cutoff.
        if (moved && found.segment.isVisible(found.slot)) segments.active.keepVisible(slot);
      }
      return;
    }
    case 'deletePoints':
      for (const ref of select(op.body.selector)) ref.segment.delete(opNum, ref.slot);
      return;
    case 'updateVectors': {
      const { points, updateFilter } = op.body;
      for (const point of points) {
        const found = find(point.id);
        if (!found || (updateFilter && !found.segment.matches(found.slot, updateFilter))) continue;
        rewrite(found, (vectors, payload) => ({ vectors: { ...vectors, ...point.vectors }, payload }));
      }
      return;
    }
    case 'deleteVectors': {
      const { selector, vectorNames } = op.body;
      for (const ref of select(selector)) {
        rewrite(ref, (vectors, payload) => ({ vectors: omitVectors(vectors, vectorNames), payload }));
      }
      return;
    }
    case 'setPayload': {
      const { selector, payload: update, key } = op.body;
      for (const ref of select(selector)) {
        rewrite(ref, (vectors, payload) => ({
          vectors,
          payload: key ? setAtPath(payload, key, update) : { ...payload, ...update },
        }));
      }
      return;
    }
    case 'overwritePayload': {
      const { selector, payload: update, key } = op.body;
      for (const ref of select(selector)) {
        rewrite(ref, (vectors, payload) => ({ vectors, payload: key ? setAtPath(payload, key, update) : update }));
      }
      return;
    }
    case 'deletePayload': {
      const { selector, keys } = op.body;
      for (const ref of select(selector))
        rewrite(ref, (vectors, payload) => ({ vectors, payload: deleteKeys(payload, keys) }));
      return;
    }
    case 'clearPayload':
      for (const ref of select(op.body.selector)) rewrite(ref, (vectors) => ({ vectors, payload: {} }));
      return;
    case 'createFieldIndex': {
      const { field, type, params } = op.body;
      fieldIndexes.set(field, { type, params });
      for (const segment of segments.all) segment.createFieldIndex(field, type, params);
      return;
    }
    case 'deleteFieldIndex':
      fieldIndexes.delete(op.body.field);
      for (const segment of segments.all) segment.deleteFieldIndex(op.body.field);
      return;
    default: {
      const unhandled: never = op;
      throw new Error(`no handler for operation kind ${(unhandled as { kind: string }).kind}`);
    }
  }
}

/** How an operation changes one point's vectors and payload. */
type PointChange = (vectors: NamedVectors, payload: JsonObject) => { vectors: NamedVectors; payload: JsonObject };

/** Changes a point's vectors/payload: in place in the active segment, else copied there (copy-on-write). */
function rewritePoint(active: Segment, opNum: number, ref: PointRef, change: PointChange): void {
  const id = ref.segment.pointId(ref.slot);
  const current = ref.segment.pointVectors(ref.slot);
  const next = change(current, ref.segment.payload(ref.slot));
  if (ref.segment !== active) {
    ref.segment.delete(opNum, ref.slot);
    const slot = active.upsert(opNum, id, next.vectors, next.payload);
    // A point readers could see stays visible when the copy lands past the deferral cutoff.
    if (ref.segment.isVisible(ref.slot)) active.keepVisible(slot);
  } else {
    // Unchanged vectors keep their identity through `change`, so only changed ones are re-added.
    active.rewrite(opNum, ref.slot, current, next.vectors, next.payload);
  }
}
