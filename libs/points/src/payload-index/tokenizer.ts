import { DomainError } from '@vectorstore/common';
import type { TextIndexParams } from '@vectorstore/collections';
import { stemmerLanguage, stopwordsOf } from './languages';

/**
 * The analysis a full-text index applies, shared by the index and the plain filter evaluator so
 * the two agree token for token.
 */
export interface TextAnalyzer {
  /**
   * Document-side tokens (what the inverted index stores). For the Prefix tokenizer these are all
   * prefixes of each word from `minTokenLen`; for the others, the same as {@link queryTokens}.
   */
  tokens(text: string): string[];
  /** Query-side tokens, in order (whole words, normalised, filtered, stemmed): also phrase positions. */
  queryTokens(text: string): string[];
  /** Normalises a prefix for `match.prefix`: lowercase and ASCII folding only. */
  normalizePrefix(text: string): string;
}

interface Stemmer {
  stem(word: string): string;
}
/* eslint-disable-next-line @typescript-eslint/no-require-imports -- untyped CommonJS package */
const snowball = require('snowball-stemmers') as { newStemmer(language: string): Stemmer };

/** Throws InvalidArgument for stemmer/stopword languages we cannot serve. */
export function validateTextIndexParams(params: TextIndexParams): void {
  for (const language of params.stopwords?.languages ?? []) {
    if (stopwordsOf(language) === undefined) {
      throw DomainError.invalidArgument(`Unsupported stopwords language: ${language}`);
    }
  }
  const stemLanguage = params.stemmer?.snowball.language;
  if (stemLanguage !== undefined && stemmerLanguage(stemLanguage) === undefined) {
    throw DomainError.invalidArgument(`Unsupported snowball stemmer language: ${stemLanguage}`);
  }
  if (params.minTokenLen !== undefined && params.maxTokenLen !== undefined && params.minTokenLen > params.maxTokenLen) {
    throw DomainError.invalidArgument('min_token_len must not exceed max_token_len');
  }
}

// Letters that NFKD does not decompose into ASCII.
const FOLD_SPECIAL: Record<string, string> = {
  ß: 'ss',
  ẞ: 'SS',
  æ: 'ae',
  Æ: 'AE',
  œ: 'oe',
  Œ: 'OE',
  ø: 'o',
  Ø: 'O',
  đ: 'd',
  Đ: 'D',
  ð: 'd',
  Ð: 'D',
  ł: 'l',
  Ł: 'L',
  þ: 'th',
  Þ: 'TH',
  ı: 'i',
};

/** Folds Latin letters with diacritics to ASCII (`café` → `cafe`, `straße` → `strasse`). */
export function asciiFold(text: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(text)) return text;
  const decomposed = text.normalize('NFKD').replace(/\p{M}+/gu, '');
  return decomposed.replace(/[ßẞæÆœŒøØđĐðÐłŁþÞı]/g, (c) => FOLD_SPECIAL[c] ?? c);
}

const WORD_SPLIT = /[^\p{Alphabetic}\p{N}]+/u;
const WHITESPACE_SPLIT = /\s+/u;

let segmenter: Intl.Segmenter | undefined;

function splitWords(tokenizer: TextIndexParams['tokenizer'], text: string): string[] {
  switch (tokenizer) {
    case 'Whitespace':
      return text.split(WHITESPACE_SPLIT).filter((w) => w.length > 0);
    case 'Word':
    case 'Prefix':
      return text.split(WORD_SPLIT).filter((w) => w.length > 0);
    case 'Multilingual': {
      segmenter ??= new Intl.Segmenter('und', { granularity: 'word' });
      const words: string[] = [];
      for (const part of segmenter.segment(text)) {
        if (part.isWordLike === true) words.push(part.segment);
      }
      return words;
    }
  }
}

const charLength = (text: string): number => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

const charPrefix = (text: string, length: number): string => Array.from(text).slice(0, length).join('');

/** Builds the analyzer for a text index's parameters (Qdrant defaults: lowercase on, folding off). */
export function createTextAnalyzer(params: TextIndexParams, options: { memoize?: boolean } = {}): TextAnalyzer {
  validateTextIndexParams(params);
  const lowercase = params.lowercase ?? true;
  const fold = params.asciiFolding ?? false;
  const minLen = params.minTokenLen ?? 0;
  const maxLen = params.maxTokenLen ?? Number.POSITIVE_INFINITY;
  const stopwords = new Set<string>();
  for (const language of params.stopwords?.languages ?? []) {
    for (const word of stopwordsOf(language) ?? []) {
      stopwords.add(word.toLowerCase());
    }
  }
  for (const word of params.stopwords?.custom ?? []) stopwords.add(word.toLowerCase());
  const stemmer =
    params.stemmer === undefined ? undefined : snowball.newStemmer(stemmerLanguage(params.stemmer.snowball.language)!);
  const isPrefix = params.tokenizer === 'Prefix';

  const normalizePrefix = (token: string): string => {
    let out = lowercase ? token.toLowerCase() : token;
    if (fold) out = asciiFold(out);
    return out;
  };

  /** Normalised word, or undefined when it is a stopword. Length limits are applied by callers. */
  const normalizeWord = (word: string): string | undefined => {
    let token = normalizePrefix(word);
    if (token.length === 0) return undefined;
    if (stopwords.size > 0 && stopwords.has(token.toLowerCase())) return undefined;
    if (stemmer !== undefined) token = stemmer.stem(token);
    return token.length === 0 ? undefined : token;
  };

  const queryTokens = (text: string): string[] => {
    const out: string[] = [];
    for (const word of splitWords(params.tokenizer, text)) {
      const token = normalizeWord(word);
      if (token === undefined) continue;
      const length = charLength(token);
      if (length < minLen) continue;
      if (length > maxLen) {
        // The Prefix tokenizer indexes prefixes up to max_token_len, so a longer query word is
        // looked up by its longest indexed prefix; the other tokenizers drop over-long tokens.
        if (isPrefix) out.push(charPrefix(token, maxLen));
        continue;
      }
      out.push(token);
    }
    return out;
  };

  const tokens = (text: string): string[] => {
    if (!isPrefix) return queryTokens(text);
    const out: string[] = [];
    for (const word of splitWords(params.tokenizer, text)) {
      const token = normalizeWord(word);
      if (token === undefined) continue;
      const chars = Array.from(token);
      const upper = Math.min(chars.length, maxLen);
      for (let n = Math.max(1, minLen); n <= upper; n++) out.push(chars.slice(0, n).join(''));
    }
    return out;
  };

  // Index analyzers see the same payload strings again and again; one-off texts (BM25 documents) would only fill it.
  if (options.memoize === false) return { tokens, queryTokens, normalizePrefix };
  return { tokens: memoize(tokens), queryTokens: memoize(queryTokens), normalizePrefix };
}

const MEMO_LIMIT = 20_000;

/** Payload strings repeat (filters re-read them per query): cache their analysis, bounded. */
function memoize(analyze: (text: string) => string[]): (text: string) => string[] {
  const cache = new Map<string, readonly string[]>();
  return (text: string): string[] => {
    let hit = cache.get(text);
    if (hit === undefined) {
      if (cache.size >= MEMO_LIMIT) cache.clear();
      hit = analyze(text);
      cache.set(text, hit);
    }
    return hit.slice();
  };
}
