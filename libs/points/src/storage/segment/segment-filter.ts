import { JsonObject } from '@vectorstore/common';
import { matchesFilter, PointView } from '../../filter/filter-evaluator';
import { Filter } from '../../model/filter.model';
import { SegmentParts } from './segment-parts';
import { setSlotBits } from './slot-bitmap';

/**
 * A point slot predicate: true for live points that pass a filter. One computed into a bitmap carries it
 * (`bitmap`), so the engine can take the bits as they are instead of calling the predicate per slot.
 */
export type SlotPredicate = ((slot: number) => boolean) & { readonly bitmap?: Uint8Array };

/** The predicate of a bitmap over point slots (bit s of byte s >> 3), carrying the bitmap. */
export function bitmapPredicate(bitmap: Uint8Array): SlotPredicate {
  const passes = (slot: number): boolean => (bitmap[slot >> 3] & (1 << (slot & 7))) !== 0;
  return Object.assign(passes, { bitmap });
}

/** Live slots with their payloads ({} for none), in slot order; a payload file is read in one pass. */
export function forEachLivePayload(
  { ids, payloads }: Pick<SegmentParts, 'ids' | 'payloads'>,
  visit: (slot: number, payload: JsonObject) => void,
): void {
  payloads.scan((slot, payload) => {
    if (!ids.isDeleted(slot)) visit(slot, payload ?? {});
  });
}

/** What filter conditions see of a point. */
export function pointView(parts: SegmentParts, slot: number): PointView {
  if (!parts.payloads.onDisk) return viewWith(parts, slot, parts.payloads.get(slot) ?? {});
  // read from the file only if a condition looks at the payload, and then once
  let payload: JsonObject | undefined;
  return {
    id: parts.ids.pointId(slot),
    get payload() {
      payload ??= parts.payloads.get(slot) ?? {};
      return payload;
    },
    hasVector: (name: string) => parts.vectors.has(name, slot),
  };
}

function viewWith(parts: SegmentParts, slot: number, payload: JsonObject): PointView {
  return { id: parts.ids.pointId(slot), payload, hasVector: (name: string) => parts.vectors.has(name, slot) };
}

/** Whether one live slot passes a filter (cheaper than a whole-segment predicate). */
export function slotMatches(parts: SegmentParts, slot: number, filter: Filter): boolean {
  return !parts.ids.isDeleted(slot) && matchesFilter(filter, pointView(parts, slot), parts.payloadIndexes.schemas());
}

/**
 * A predicate for live slots passing `filter`, computed once into a bitmap. A filter the payload
 * indexes answer wholly is taken from them; otherwise indexed conditions narrow the candidates
 * and the evaluator checks them against their payloads.
 */
export function filterPredicate(parts: SegmentParts, filter: Filter | undefined): SlotPredicate {
  const { ids, payloads, payloadIndexes } = parts;
  if (!filter) return (slot) => slot < ids.size && !ids.isDeleted(slot);
  const bitmap = new Uint8Array(Math.ceil(ids.size / 8));
  const passes = bitmapPredicate(bitmap);
  const exact = payloadIndexes.exactMatches(filter);
  if (exact) {
    // the indexes answer the whole filter: no payload needs reading, no call per slot
    setSlotBits(bitmap, exact);
    ids.clearDeleted(bitmap);
    return passes;
  }
  const schemas = payloadIndexes.schemas();
  const candidates = payloadIndexes.candidates(filter, ids.size);
  if (candidates) {
    for (const slot of candidates) {
      if (!ids.isDeleted(slot) && matchesFilter(filter, pointView(parts, slot), schemas))
        bitmap[slot >> 3] |= 1 << (slot & 7);
    }
    return passes;
  }
  // one pass over the payloads: a payload file is read sequentially instead of once per point
  payloads.scan((slot, payload) => {
    if (!ids.isDeleted(slot) && matchesFilter(filter, viewWith(parts, slot, payload ?? {}), schemas)) {
      bitmap[slot >> 3] |= 1 << (slot & 7);
    }
  });
  return passes;
}

/** Live slots passing `filter`, ascending. */
export function matchingSlots(parts: SegmentParts, filter: Filter | undefined): number[] {
  const predicate = filterPredicate(parts, filter);
  const slots: number[] = [];
  for (let slot = 0; slot < parts.ids.size; slot++) if (predicate(slot)) slots.push(slot);
  return slots;
}

/** Estimated number of live points passing `filter` (from the payload indexes). */
export function estimateMatches(
  parts: SegmentParts,
  filter: Filter | undefined,
): { min: number; exp: number; max: number } {
  const live = parts.ids.liveCount;
  if (!filter) return { min: live, exp: live, max: live };
  const e = parts.payloadIndexes.estimate(filter, parts.ids.size);
  return { min: Math.min(e.min, live), exp: Math.min(e.exp, live), max: Math.min(e.max, live) };
}
