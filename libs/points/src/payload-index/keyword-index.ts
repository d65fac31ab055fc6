import { JsonValue } from '@vectorstore/common';
import type { PayloadIndexParams } from '@vectorstore/collections';
import { FieldCondition } from '../model/filter.model';
import { FieldIndexBase, Postings, singleTest } from './field-index-base';
import { unionAll } from './slot-sets';

/**
 * Keyword (and Uuid) index: string → slots. Answers `keyword`, `keywords` (any), `exceptKeywords`
 * and `prefix` exactly, matching strings byte for byte as the plain evaluator does.
 */
export class KeywordIndex extends FieldIndexBase<string> {
  private readonly postings = new Postings<string>();

  constructor(field: string, type: 'Keyword' | 'Uuid', params: PayloadIndexParams | undefined) {
    super(field, type, params);
  }

  protected extract(value: JsonValue): string | undefined {
    return typeof value === 'string' ? value : undefined;
  }

  protected insertValues(slot: number, values: readonly string[]): void {
    for (const value of values) this.postings.insert(value, slot);
  }

  protected deleteValues(slot: number, values: readonly string[]): void {
    for (const value of values) this.postings.delete(value, slot);
  }

  filter(condition: FieldCondition): Uint32Array | undefined {
    const match = condition.match;
    if (match === undefined || singleTest(condition) !== 'match') return undefined;
    const map = this.postings.map;
    if ('keyword' in match) {
      return this.postings.sorted(match.keyword);
    }
    if ('keywords' in match) {
      return unionAll(match.keywords.map((k) => map.get(k) ?? []));
    }
    if ('exceptKeywords' in match) {
      const excluded = new Set(match.exceptKeywords);
      const sets: Iterable<number>[] = [this.otherSlots];
      for (const [key, set] of map) if (!excluded.has(key)) sets.push(set);
      return unionAll(sets);
    }
    if ('prefix' in match) {
      const sets: Iterable<number>[] = [];
      for (const [key, set] of map) if (key.startsWith(match.prefix)) sets.push(set);
      return unionAll(sets);
    }
    return undefined;
  }

  facet(slots?: Iterable<number>): Map<string, number> {
    return this.postings.facet(this.perSlot, slots);
  }
}

/** Bool index: true/false → slots. Answers `boolean` matches. */
export class BoolIndex extends FieldIndexBase<boolean> {
  private readonly postings = new Postings<boolean>();

  constructor(field: string, params: PayloadIndexParams | undefined) {
    super(field, 'Bool', params);
  }

  protected extract(value: JsonValue): boolean | undefined {
    return typeof value === 'boolean' ? value : undefined;
  }

  protected insertValues(slot: number, values: readonly boolean[]): void {
    for (const value of values) this.postings.insert(value, slot);
  }

  protected deleteValues(slot: number, values: readonly boolean[]): void {
    for (const value of values) this.postings.delete(value, slot);
  }

  filter(condition: FieldCondition): Uint32Array | undefined {
    const match = condition.match;
    if (match === undefined || singleTest(condition) !== 'match' || !('boolean' in match)) return undefined;
    return this.postings.sorted(match.boolean);
  }

  facet(slots?: Iterable<number>): Map<boolean, number> {
    return this.postings.facet(this.perSlot, slots);
  }
}
