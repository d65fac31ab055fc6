import { JsonValue } from '@vectorstore/common';
import type { TextIndexParams } from '@vectorstore/collections';
import { FieldCondition } from '../model/filter.model';
import { analyzerFor, containsSequence, isTextMatch } from '../filter/text-match';
import { FieldIndexBase, Postings, singleTest } from './field-index-base';
import { EMPTY_SLOTS, intersectSlots, sortedSlots, unionAll } from './slot-sets';
import { TextAnalyzer } from './tokenizer';

/**
 * Full-text index: an inverted index token → slots over the field's strings. `text` intersects
 * the query tokens' postings, `textAny` unites them, `prefix` scans the vocabulary, and `phrase`
 * checks token positions in the candidates' own strings (kept per slot).
 */
export class TextIndex extends FieldIndexBase<string> {
  private readonly postings = new Postings<string>();
  private readonly analyzer: TextAnalyzer;

  constructor(
    field: string,
    readonly textParams: TextIndexParams,
  ) {
    super(field, 'Text', { text: textParams });
    this.analyzer = analyzerFor(textParams);
  }

  protected extract(value: JsonValue): string | undefined {
    return typeof value === 'string' ? value : undefined;
  }

  private tokenSet(values: readonly string[]): Set<string> {
    const tokens = new Set<string>();
    for (const value of values) for (const token of this.analyzer.tokens(value)) tokens.add(token);
    return tokens;
  }

  protected insertValues(slot: number, values: readonly string[]): void {
    for (const token of this.tokenSet(values)) this.postings.insert(token, slot);
  }

  protected deleteValues(slot: number, values: readonly string[]): void {
    for (const token of this.tokenSet(values)) this.postings.delete(token, slot);
  }

  private allOf(tokens: readonly string[]): Uint32Array {
    const lists = [...new Set(tokens)].map((t) => this.postings.map.get(t));
    if (lists.length === 0 || lists.some((l) => l === undefined)) return EMPTY_SLOTS;
    const sorted = (lists as Set<number>[]).sort((a, b) => a.size - b.size).map((l) => sortedSlots(l));
    return sorted.reduce((acc, l) => intersectSlots(acc, l));
  }

  filter(condition: FieldCondition): Uint32Array | undefined {
    const match = condition.match;
    if (match === undefined || singleTest(condition) !== 'match' || !isTextMatch(match)) return undefined;
    if ('prefix' in match) {
      const prefix = this.analyzer.normalizePrefix(match.prefix);
      const sets: Iterable<number>[] = [];
      for (const [token, set] of this.postings.map) if (token.startsWith(prefix)) sets.push(set);
      return unionAll(sets);
    }
    if ('textAny' in match) {
      return unionAll(this.analyzer.queryTokens(match.textAny).map((t) => this.postings.map.get(t) ?? []));
    }
    if ('text' in match) return this.allOf(this.analyzer.queryTokens(match.text));
    const query = this.analyzer.queryTokens(match.phrase);
    const candidates = this.allOf(query);
    const out: number[] = [];
    for (const slot of candidates) {
      const strings = this.perSlot.get(slot) ?? [];
      if (strings.some((s) => containsSequence(this.analyzer.queryTokens(s), query))) out.push(slot);
    }
    return Uint32Array.from(out);
  }
}
