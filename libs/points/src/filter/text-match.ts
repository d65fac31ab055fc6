import type { TextIndexParams } from '@vectorstore/collections';
import { Match } from '../model/filter.model';
import { createTextAnalyzer, TextAnalyzer } from '../payload-index/tokenizer';

/** The full-text kinds of `Match`. */
export type TextMatch = Extract<
  Match,
  { text: string } | { textAny: string } | { phrase: string } | { prefix: string }
>;

export function isTextMatch(match: Match): match is TextMatch {
  return 'text' in match || 'textAny' in match || 'phrase' in match || 'prefix' in match;
}

const analyzers = new WeakMap<TextIndexParams, TextAnalyzer>();

/** One analyzer per params object, shared by the evaluator and the text index. */
export function analyzerFor(params: TextIndexParams): TextAnalyzer {
  let analyzer = analyzers.get(params);
  if (analyzer === undefined) {
    analyzer = createTextAnalyzer(params);
    analyzers.set(params, analyzer);
  }
  return analyzer;
}

/** Whether `needle` occurs as consecutive tokens in `haystack`. */
export function containsSequence(haystack: readonly string[], needle: readonly string[]): boolean {
  if (needle.length === 0) return false;
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) {
      if (haystack[i + j] !== needle[j]) continue outer;
    }
    return true;
  }
  return false;
}

/**
 * Full-text match on a field WITH a text index. `text`/`textAny`/`prefix` look at the union of the
 * tokens of all the field's strings (the index keeps one token set per point); `phrase` needs the
 * tokens consecutively within one string. A query with no tokens left after analysis matches nothing.
 */
export function matchIndexedText(analyzer: TextAnalyzer, match: TextMatch, strings: readonly string[]): boolean {
  if (strings.length === 0) return false;
  if ('prefix' in match) {
    const prefix = analyzer.normalizePrefix(match.prefix);
    return strings.some((s) => analyzer.tokens(s).some((t) => t.startsWith(prefix)));
  }
  if ('phrase' in match) {
    const query = analyzer.queryTokens(match.phrase);
    return query.length > 0 && strings.some((s) => containsSequence(analyzer.queryTokens(s), query));
  }
  const query = analyzer.queryTokens('text' in match ? match.text : match.textAny);
  if (query.length === 0) return false;
  const tokens = new Set<string>();
  for (const s of strings) for (const t of analyzer.tokens(s)) tokens.add(t);
  return 'text' in match ? query.every((t) => tokens.has(t)) : query.some((t) => tokens.has(t));
}

/**
 * Full-text match on ONE string of a field WITHOUT a text index (Qdrant): `text` and `phrase` are
 * a substring test of the whole query, `textAny` a substring test of any whitespace-separated
 * query word, `prefix` a `startsWith`.
 */
export function matchUnindexedText(match: TextMatch, value: string): boolean {
  if ('text' in match) return value.includes(match.text);
  if ('phrase' in match) return value.includes(match.phrase);
  if ('prefix' in match) return value.startsWith(match.prefix);
  return match.textAny
    .split(/\s+/u)
    .filter((w) => w.length > 0)
    .some((w) => value.includes(w));
}
