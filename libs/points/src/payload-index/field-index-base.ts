import * as v8 from 'node:v8';
import { JsonObject, JsonValue } from '@vectorstore/common';
import type { PayloadIndexParams, PayloadSchemaType } from '@vectorstore/collections';
import { FieldCondition } from '../model/filter.model';
import { valuesAt } from '../filter/payload-path';
import { CardinalityEstimate, exactEstimate } from './cardinality';
import { EMPTY_SLOTS, sortedSlots } from './slot-sets';

export type { CardinalityEstimate } from './cardinality';

/** One payload field's index inside one segment, addressed by dense slots. */
export interface PayloadFieldIndex {
  readonly type: PayloadSchemaType;
  readonly params?: PayloadIndexParams;
  /** Indexes the slot's values of this index's field (read via `valuesAt`). Re-adding replaces. */
  add(slot: number, payload: JsonObject): void;
  remove(slot: number): void;
  /** Points (slots) that have at least one indexable value. */
  pointsCount(): number;
  /** Undefined when this index cannot answer the condition (e.g. range on a keyword index). */
  estimate(condition: FieldCondition): CardinalityEstimate | undefined;
  /** Exact matching slots, ascending; undefined when it cannot answer. */
  filter(condition: FieldCondition): Uint32Array | undefined;
  /** For Facet: how many of `slots` (or of all points) hold each distinct value. */
  facet?(slots?: Iterable<number>): Map<string | bigint | boolean, number>;
  /** For order_by: the slot's numeric values. */
  orderValues?(slot: number): number[];
  /** Persistence. */
  toBytes(): Uint8Array;
}

/** Which single test a field condition carries, or undefined when it has none or several. */
export type ConditionTest = 'match' | 'range' | 'datetimeRange' | 'geo' | 'other';

export function singleTest(condition: FieldCondition): ConditionTest | undefined {
  const present: ConditionTest[] = [];
  if (condition.match !== undefined) present.push('match');
  if (condition.range !== undefined) present.push('range');
  if (condition.datetimeRange !== undefined) present.push('datetimeRange');
  for (const geo of [condition.geoRadius, condition.geoBoundingBox, condition.geoPolygon]) {
    if (geo !== undefined) present.push('geo');
  }
  if (condition.valuesCount !== undefined || condition.isEmpty !== undefined || condition.isNull !== undefined) {
    present.push('other');
  }
  return present.length === 1 ? present[0] : undefined;
}

interface Snapshot<V> {
  slots: [number, V[]][];
  other: number[];
}

/**
 * Shared bookkeeping: the indexable values of each slot (kept so `remove` and persistence need no
 * payload) and the slots holding other non-null values (so `except` can be answered exactly).
 */
export abstract class FieldIndexBase<V> implements PayloadFieldIndex {
  protected readonly perSlot = new Map<number, V[]>();
  protected readonly otherSlots = new Set<number>();

  protected constructor(
    readonly field: string,
    readonly type: PayloadSchemaType,
    readonly params: PayloadIndexParams | undefined,
  ) {}

  /** The indexable form of one (flattened) value, or undefined. */
  protected abstract extract(value: JsonValue): V | undefined;
  protected abstract insertValues(slot: number, values: readonly V[]): void;
  protected abstract deleteValues(slot: number, values: readonly V[]): void;
  abstract filter(condition: FieldCondition): Uint32Array | undefined;

  add(slot: number, payload: JsonObject): void {
    this.remove(slot);
    const values: V[] = [];
    let other = false;
    for (const value of valuesAt(payload, this.field)) {
      const extracted = this.extract(value);
      if (extracted !== undefined) values.push(extracted);
      else if (value !== null) other = true;
    }
    if (other) this.otherSlots.add(slot);
    if (values.length > 0) {
      this.perSlot.set(slot, values);
      this.insertValues(slot, values);
    }
  }

  remove(slot: number): void {
    this.otherSlots.delete(slot);
    const values = this.perSlot.get(slot);
    if (values === undefined) return;
    this.perSlot.delete(slot);
    this.deleteValues(slot, values);
  }

  pointsCount(): number {
    return this.perSlot.size;
  }

  estimate(condition: FieldCondition): CardinalityEstimate | undefined {
    const slots = this.filter(condition);
    return slots === undefined ? undefined : exactEstimate(slots.length);
  }

  toBytes(): Uint8Array {
    const snapshot: Snapshot<V> = { slots: [...this.perSlot.entries()], other: [...this.otherSlots] };
    return v8.serialize(snapshot);
  }

  /** Restores what {@link toBytes} wrote. */
  load(bytes: Uint8Array): this {
    const snapshot = v8.deserialize(bytes) as Snapshot<V>;
    for (const slot of snapshot.other) this.otherSlots.add(slot);
    for (const [slot, values] of snapshot.slots) {
      this.perSlot.set(slot, values);
      this.insertValues(slot, values);
    }
    return this;
  }
}

/** value → slots postings, shared by the keyword, uuid, integer and bool indexes. */
export class Postings<K> {
  readonly map = new Map<K, Set<number>>();
  /** Sorted slots of the values queried since their last change: a query does not sort them again. */
  private readonly sortedCache = new Map<K, Uint32Array>();

  insert(key: K, slot: number): void {
    let set = this.map.get(key);
    if (set === undefined) {
      set = new Set();
      this.map.set(key, set);
    }
    if (!set.has(slot)) this.sortedCache.delete(key);
    set.add(slot);
  }

  delete(key: K, slot: number): void {
    const set = this.map.get(key);
    if (set === undefined) return;
    if (set.delete(slot)) this.sortedCache.delete(key);
    if (set.size === 0) this.map.delete(key);
  }

  /** The slots holding `key`, ascending; shared between queries, so callers must not modify it. */
  sorted(key: K): Uint32Array {
    let slots = this.sortedCache.get(key);
    if (slots === undefined) {
      const set = this.map.get(key);
      if (set === undefined) return EMPTY_SLOTS;
      slots = sortedSlots(set);
      this.sortedCache.set(key, slots);
    }
    return slots;
  }

  /** Counts, per distinct value, the points among `slots` (or all) that hold it. */
  facet(perSlot: ReadonlyMap<number, readonly K[]>, slots?: Iterable<number>): Map<K, number> {
    const counts = new Map<K, number>();
    if (slots === undefined) {
      for (const [key, set] of this.map) counts.set(key, set.size);
      return counts;
    }
    for (const slot of new Set(slots)) {
      const values = perSlot.get(slot);
      if (values === undefined) continue;
      for (const value of new Set(values)) counts.set(value, (counts.get(value) ?? 0) + 1);
    }
    return counts;
  }
}
