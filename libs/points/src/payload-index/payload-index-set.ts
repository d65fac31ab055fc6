import * as v8 from 'node:v8';
import { JsonObject } from '@vectorstore/common';
import type { PayloadIndexParams, PayloadSchemaType } from '@vectorstore/collections';
import { Condition, FieldCondition, Filter } from '../model/filter.model';
import { pointIdKey } from '../model/point-id.model';
import { FieldSchemas } from '../filter/filter-evaluator';
import { nestedArrayKey, parsePath } from '../filter/payload-path';
import {
  CardinalityEstimate,
  combineMinShould,
  combineMust,
  combineShould,
  exactEstimate,
  invertEstimate,
  unknownEstimate,
} from './cardinality';
import { createFieldIndex, fieldIndexFromBytes, PayloadFieldIndex } from './field-index';
import { EMPTY_SLOTS, intersectSlots, unionSlots } from './slot-sets';

/** Visits every stored payload of the segment: how a new index is built from existing points. */
export type ForEachPayload = (visit: (slot: number, payload: JsonObject) => void) => void;

export interface PayloadIndexInfo {
  type: PayloadSchemaType;
  params?: PayloadIndexParams;
  points: number;
}

interface Snapshot {
  indexes: { field: string; type: PayloadSchemaType; params?: PayloadIndexParams; bytes: Uint8Array }[];
}

/**
 * The payload field indexes of one segment: keeps them in step with writes, estimates filter
 * cardinality (Qdrant's estimator: must → intersection, should → union, must_not → complement,
 * unindexed → [0, total]) and narrows a filter to candidate slots from its indexed conditions.
 */
export class PayloadIndexSet {
  private readonly indexes = new Map<string, PayloadFieldIndex>();

  constructor(private readonly forEachPayload?: ForEachPayload) {}

  /** Creates (or replaces) the index on `field` and fills it from the existing payloads. */
  create(
    field: string,
    type: PayloadSchemaType,
    params?: PayloadIndexParams,
    forEachPayload: ForEachPayload | undefined = this.forEachPayload,
  ): PayloadFieldIndex {
    parsePath(field);
    const index = createFieldIndex(field, type, params);
    forEachPayload?.((slot, payload) => index.add(slot, payload));
    this.indexes.set(field, index);
    return index;
  }

  /** Removes the index on `field`; false when there was none. */
  drop(field: string): boolean {
    return this.indexes.delete(field);
  }

  get(field: string): PayloadFieldIndex | undefined {
    return this.indexes.get(field);
  }

  isIndexed(key: string): boolean {
    return this.indexes.has(key);
  }

  /** Re-indexes the slot's payload (insert or overwrite). */
  onUpsert(slot: number, payload: JsonObject): void {
    for (const index of this.indexes.values()) index.add(slot, payload);
  }

  onDelete(slot: number): void {
    for (const index of this.indexes.values()) index.remove(slot);
  }

  /** The schema per indexed key, for the plain evaluator (full-text analysis follows the index). */
  schemas(): FieldSchemas {
    const out = new Map<string, { type: PayloadSchemaType; params?: PayloadIndexParams }>();
    for (const [field, index] of this.indexes) out.set(field, { type: index.type, params: index.params });
    return out;
  }

  info(): Record<string, PayloadIndexInfo> {
    const out: Record<string, PayloadIndexInfo> = {};
    for (const [field, index] of this.indexes) {
      out[field] = {
        type: index.type,
        ...(index.params === undefined ? {} : { params: index.params }),
        points: index.pointsCount(),
      };
    }
    return out;
  }

  /** Bounds on how many of `totalPoints` points match (min ≤ true count ≤ max). */
  estimate(filter: Filter | undefined, totalPoints: number): CardinalityEstimate {
    if (filter === undefined) return exactEstimate(totalPoints);
    return this.estimateFilter(filter, totalPoints);
  }

  /**
   * A SUPERSET of the matching slots, ascending, from the filter's indexed conditions; undefined
   * when no index narrows it (the caller then checks every slot with `matchesFilter`).
   */
  candidates(filter: Filter | undefined, totalPoints: number): Uint32Array | undefined {
    if (filter === undefined || totalPoints === 0) return filter === undefined ? undefined : EMPTY_SLOTS;
    return this.filterCandidates(filter, '', false);
  }

  /**
   * The matching slots themselves, ascending, when indexes answer the whole filter: only `must` and
   * `should` parts whose conditions are each answered by an index (an index's answer to a condition
   * it takes is exact) or are such sub-filters. Undefined otherwise; then only {@link candidates}
   * applies and each candidate must still be checked against its payload.
   */
  exactMatches(filter: Filter): Uint32Array | undefined {
    if ((filter.mustNot?.length ?? 0) > 0 || filter.minShould !== undefined) return undefined;
    const must = filter.must ?? [];
    const should = filter.should ?? [];
    if (must.length === 0 && should.length === 0) return undefined;
    let acc: Uint32Array | undefined;
    for (const condition of must) {
      const slots = this.exactCondition(condition);
      if (slots === undefined) return undefined;
      acc = acc === undefined ? slots : intersectSlots(acc, slots);
    }
    if (should.length > 0) {
      let union: Uint32Array = EMPTY_SLOTS;
      for (const condition of should) {
        const slots = this.exactCondition(condition);
        if (slots === undefined) return undefined;
        union = unionSlots(union, slots);
      }
      acc = acc === undefined ? union : intersectSlots(acc, union);
    }
    return acc;
  }

  private exactCondition(condition: Condition): Uint32Array | undefined {
    if ('filter' in condition) return this.exactMatches(condition.filter);
    if (!('field' in condition)) return undefined;
    return this.indexes.get(condition.field.key)?.filter(condition.field);
  }

  toBytes(): Uint8Array {
    const snapshot: Snapshot = {
      indexes: [...this.indexes].map(([field, index]) => ({
        field,
        type: index.type,
        params: index.params,
        bytes: index.toBytes(),
      })),
    };
    return v8.serialize(snapshot);
  }

  static fromBytes(bytes: Uint8Array, forEachPayload?: ForEachPayload): PayloadIndexSet {
    const set = new PayloadIndexSet(forEachPayload);
    const snapshot = v8.deserialize(bytes) as Snapshot;
    for (const entry of snapshot.indexes) {
      set.indexes.set(entry.field, fieldIndexFromBytes(entry.field, entry.type, entry.params, entry.bytes));
    }
    return set;
  }

  // --- estimation -------------------------------------------------------------------------

  private estimateFilter(filter: Filter, total: number): CardinalityEstimate {
    const parts: CardinalityEstimate[] = [];
    if (filter.should !== undefined && filter.should.length > 0) {
      parts.push(
        combineShould(
          filter.should.map((c) => this.estimateCondition(c, total)),
          total,
        ),
      );
    }
    if (filter.minShould !== undefined) {
      const estimates = filter.minShould.conditions.map((c) => this.estimateCondition(c, total));
      parts.push(combineMinShould(estimates, filter.minShould.minCount, total));
    }
    for (const c of filter.must ?? []) parts.push(this.estimateCondition(c, total));
    for (const c of filter.mustNot ?? []) parts.push(invertEstimate(this.estimateCondition(c, total), total));
    return combineMust(parts, total);
  }

  private estimateCondition(condition: Condition, total: number): CardinalityEstimate {
    if ('field' in condition) {
      return this.indexes.get(condition.field.key)?.estimate(condition.field) ?? unknownEstimate(total);
    }
    if ('filter' in condition) return this.estimateFilter(condition.filter, total);
    if ('isEmpty' in condition) {
      // A point with an indexable value is not empty.
      const index = this.indexes.get(condition.isEmpty.key);
      if (index === undefined) return unknownEstimate(total);
      const max = Math.max(0, total - index.pointsCount());
      return { min: 0, exp: max, max };
    }
    if ('hasId' in condition) {
      const n = Math.min(total, new Set(condition.hasId.map(pointIdKey)).size);
      return { min: 0, exp: n, max: n };
    }
    if ('slice' in condition) return { min: 0, exp: Math.round(total / condition.slice.total), max: total };
    if ('ringOwner' in condition)
      return { min: 0, exp: Math.round(total / Math.max(1, condition.ringOwner.shardIds.length)), max: total };
    if ('nested' in condition) {
      const upper = this.nestedCandidates(condition.nested.key, condition.nested.filter, '');
      return upper === undefined
        ? unknownEstimate(total)
        : { min: 0, exp: Math.ceil(upper.length / 2), max: upper.length };
    }
    return unknownEstimate(total);
  }

  // --- candidates -------------------------------------------------------------------------

  /**
   * `prefix` re-roots keys inside `nested` (`arr[].` + inner key). There, only conditions whose
   * truth on one element implies the same test on the flattened key are used (matches, ranges,
   * geo, text): the result stays a superset.
   */
  private filterCandidates(filter: Filter, prefix: string, nested: boolean): Uint32Array | undefined {
    let acc: Uint32Array | undefined;
    const narrow = (slots: Uint32Array | undefined): void => {
      if (slots !== undefined) acc = acc === undefined ? slots : intersectSlots(acc, slots);
    };
    for (const c of filter.must ?? []) narrow(this.conditionCandidates(c, prefix, nested));
    if (filter.should !== undefined && filter.should.length > 0) {
      narrow(this.unionCandidates(filter.should, prefix, nested));
    }
    const minShould = filter.minShould;
    if (minShould !== undefined && minShould.minCount >= 1) {
      narrow(
        minShould.minCount > minShould.conditions.length
          ? EMPTY_SLOTS
          : this.unionCandidates(minShould.conditions, prefix, nested),
      );
    }
    return acc;
  }

  /** Union of every condition's candidates, or undefined if any of them is unbounded. */
  private unionCandidates(conditions: readonly Condition[], prefix: string, nested: boolean): Uint32Array | undefined {
    let acc: Uint32Array = EMPTY_SLOTS;
    for (const c of conditions) {
      const slots = this.conditionCandidates(c, prefix, nested);
      if (slots === undefined) return undefined;
      acc = unionSlots(acc, slots);
    }
    return acc;
  }

  private conditionCandidates(condition: Condition, prefix: string, nested: boolean): Uint32Array | undefined {
    if ('field' in condition) {
      if (nested && !isElementwise(condition.field)) return undefined;
      const key = prefix + condition.field.key;
      const index = this.indexes.get(key);
      return index?.filter(prefix === '' ? condition.field : { ...condition.field, key });
    }
    if ('filter' in condition) return this.filterCandidates(condition.filter, prefix, nested);
    if ('nested' in condition) return this.nestedCandidates(condition.nested.key, condition.nested.filter, prefix);
    return undefined;
  }

  private nestedCandidates(key: string, filter: Filter, prefix: string): Uint32Array | undefined {
    return this.filterCandidates(filter, `${prefix}${nestedArrayKey(key)}.`, true);
  }
}

/** Tests whose truth for one array element implies the same test on the flattened key. */
function isElementwise(condition: FieldCondition): boolean {
  return condition.valuesCount === undefined && condition.isEmpty === undefined && condition.isNull === undefined;
}
