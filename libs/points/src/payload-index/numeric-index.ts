import { JsonObject, JsonValue } from '@vectorstore/common';
import type { PayloadIndexParams, PayloadSchemaType } from '@vectorstore/collections';
import { FieldCondition } from '../model/filter.model';
import { inBounds } from '../filter/filter-evaluator';
import { parseDatetimeMicros } from '../filter/datetime';
import { FieldIndexBase, Postings, singleTest } from './field-index-base';
import { EMPTY_SLOTS, lowerBound, sortedSlots, unionAll } from './slot-sets';

interface Bounds {
  lt?: number;
  gt?: number;
  lte?: number;
  gte?: number;
}

/**
 * Values sorted for range queries, rebuilt lazily after writes. Each entry is (number, slot); the
 * number is exactly what the plain evaluator compares (`Number(bigint)` for integers).
 */
abstract class SortedNumericIndex<V> extends FieldIndexBase<V> {
  private sortedValues = new Float64Array(0);
  private sortedSlotsOf = new Uint32Array(0);
  private dirty = false;

  protected abstract numeric(value: V): number;

  protected insertValues(): void {
    this.dirty = true;
  }

  protected deleteValues(): void {
    this.dirty = true;
  }

  private rebuild(): void {
    if (!this.dirty) return;
    const entries: [number, number][] = [];
    for (const [slot, values] of this.perSlot) for (const v of values) entries.push([this.numeric(v), slot]);
    entries.sort((a, b) => a[0] - b[0]);
    this.sortedValues = Float64Array.from(entries, (e) => e[0]);
    this.sortedSlotsOf = Uint32Array.from(entries, (e) => e[1]);
    this.dirty = false;
  }

  protected rangeSlots(bounds: Bounds): Uint32Array {
    this.rebuild();
    const values = this.sortedValues;
    let from = 0;
    let to = values.length;
    if (bounds.gte !== undefined) from = Math.max(from, lowerBound(values, bounds.gte, false));
    if (bounds.gt !== undefined) from = Math.max(from, lowerBound(values, bounds.gt, true));
    if (bounds.lte !== undefined) to = Math.min(to, lowerBound(values, bounds.lte, true));
    if (bounds.lt !== undefined) to = Math.min(to, lowerBound(values, bounds.lt, false));
    if (from >= to) return EMPTY_SLOTS;
    const out = new Set<number>();
    for (let i = from; i < to; i++) {
      // Binary search bounds are exact for doubles; the check guards NaN-free edge cases anyway.
      if (inBounds(bounds, values[i])) out.add(this.sortedSlotsOf[i]);
    }
    return sortedSlots(out);
  }

  orderValues(slot: number): number[] {
    return (this.perSlot.get(slot) ?? []).map((v) => this.numeric(v));
  }
}

/**
 * Integer index: exact lookups (`integer`, `integers`, `exceptIntegers`) on integer values and
 * ranges over every numeric value (floats included, as the plain range check does).
 */
export class IntegerIndex extends SortedNumericIndex<number | bigint> {
  private readonly postings = new Postings<bigint>();
  private readonly lookup: boolean;
  private readonly range: boolean;

  constructor(field: string, params: PayloadIndexParams | undefined) {
    super(field, 'Integer', params);
    const own = params !== undefined && 'integer' in params ? params.integer : {};
    this.lookup = own.lookup ?? true;
    this.range = own.range ?? true;
  }

  protected extract(value: JsonValue): number | bigint | undefined {
    return typeof value === 'bigint' || typeof value === 'number' ? value : undefined;
  }

  protected numeric(value: number | bigint): number {
    return Number(value);
  }

  override add(slot: number, payload: JsonObject): void {
    super.add(slot, payload);
    for (const v of this.perSlot.get(slot) ?? []) if (typeof v === 'bigint') this.postings.insert(v, slot);
  }

  override remove(slot: number): void {
    for (const v of this.perSlot.get(slot) ?? []) if (typeof v === 'bigint') this.postings.delete(v, slot);
    super.remove(slot);
  }

  override load(bytes: Uint8Array): this {
    super.load(bytes);
    for (const [slot, values] of this.perSlot)
      for (const v of values) if (typeof v === 'bigint') this.postings.insert(v, slot);
    return this;
  }

  filter(condition: FieldCondition): Uint32Array | undefined {
    const test = singleTest(condition);
    if (test === 'range' && condition.range !== undefined)
      return this.range ? this.rangeSlots(condition.range) : undefined;
    const match = condition.match;
    if (test !== 'match' || match === undefined || !this.lookup) return undefined;
    const map = this.postings.map;
    if ('integer' in match) {
      return this.postings.sorted(match.integer);
    }
    if ('integers' in match) return unionAll(match.integers.map((k) => map.get(k) ?? []));
    if ('exceptIntegers' in match) {
      const excluded = new Set(match.exceptIntegers);
      // Floats and non-numeric values are "not in the list" too.
      const sets: Iterable<number>[] = [this.otherSlots];
      for (const [slot, values] of this.perSlot) if (values.some((v) => typeof v === 'number')) sets.push([slot]);
      for (const [key, set] of map) if (!excluded.has(key)) sets.push(set);
      return unionAll(sets);
    }
    return undefined;
  }

  facet(slots?: Iterable<number>): Map<bigint, number> {
    const ints = new Map<number, bigint[]>();
    for (const [slot, values] of this.perSlot)
      ints.set(
        slot,
        values.filter((v): v is bigint => typeof v === 'bigint'),
      );
    return this.postings.facet(ints, slots);
  }
}

/** Float index: ranges over every numeric value. */
export class FloatIndex extends SortedNumericIndex<number | bigint> {
  constructor(field: string, params: PayloadIndexParams | undefined) {
    super(field, 'Float', params);
  }

  protected extract(value: JsonValue): number | bigint | undefined {
    return typeof value === 'bigint' || typeof value === 'number' ? value : undefined;
  }

  protected numeric(value: number | bigint): number {
    return Number(value);
  }

  filter(condition: FieldCondition): Uint32Array | undefined {
    return singleTest(condition) === 'range' && condition.range !== undefined
      ? this.rangeSlots(condition.range)
      : undefined;
  }
}

/** Datetime index: RFC 3339 strings as µs since the epoch; answers `datetimeRange`. */
export class DatetimeIndex extends SortedNumericIndex<number> {
  constructor(field: string, params: PayloadIndexParams | undefined) {
    super(field, 'Datetime' satisfies PayloadSchemaType, params);
  }

  protected extract(value: JsonValue): number | undefined {
    return typeof value === 'string' ? parseDatetimeMicros(value) : undefined;
  }

  protected numeric(value: number): number {
    return value;
  }

  filter(condition: FieldCondition): Uint32Array | undefined {
    return singleTest(condition) === 'datetimeRange' && condition.datetimeRange !== undefined
      ? this.rangeSlots(condition.datetimeRange)
      : undefined;
  }
}
