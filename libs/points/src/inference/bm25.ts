import { DomainError, isJsonObject } from '@vectorstore/common';
import { TOKENIZER_TYPES, type TextIndexParams, type TokenizerType } from '@vectorstore/collections';
import { stemmerLanguage, stopwordsOf } from '../payload-index/languages';
import { createTextAnalyzer, type TextAnalyzer } from '../payload-index/tokenizer';
import type { SparseVector } from '../model/vectors.model';
import murmurhash from 'murmurhash';

/**
 * Qdrant's local BM25 model (`qdrant/bm25`): text is analysed like a full-text index (Word tokenizer, lowercase,
 * the language's stopwords and snowball stemmer, English by default), each token is hashed to a sparse index
 * (murmur3 32-bit, seed 0, as |i32|, so vectors match ones made by Qdrant or fastembed), and weighted by BM25
 * term frequency for documents, 1 per distinct token for queries. IDF comes from the collection's sparse vector
 * `modifier: idf`, as in Qdrant.
 */
export interface Bm25Config {
  k: number;
  b: number;
  avgLen: number;
  analyzer: TextAnalyzer;
}

const encoder = new TextEncoder();

/** Sparse index of a token: murmur3_32 of its UTF-8 bytes, as the absolute value of the signed result. */
export function bm25TokenId(token: string): number {
  return Math.abs(murmurhash.v3(encoder.encode(token), 0) | 0);
}

/** A document's BM25 vector: tf·(k+1) / (tf + k·(1 − b + b·len/avg_len)) per distinct token. */
export function bm25Document(config: Bm25Config, text: string): SparseVector {
  const tokens = config.analyzer.tokens(text);
  const counts = new Map<string, number>();
  for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
  const norm = config.k * (1 - config.b + (config.b * tokens.length) / config.avgLen);
  const weights = new Map<number, number>();
  for (const [token, n] of counts) weights.set(bm25TokenId(token), (n * (config.k + 1)) / (norm + n));
  return sparseOf(weights);
}

/** A query's BM25 vector: weight 1 for each distinct token. */
export function bm25Query(config: Bm25Config, text: string): SparseVector {
  const weights = new Map<number, number>();
  for (const token of config.analyzer.queryTokens(text)) weights.set(bm25TokenId(token), 1);
  return sparseOf(weights);
}

function sparseOf(weights: Map<number, number>): SparseVector {
  const indices = Uint32Array.from(weights.keys()).sort();
  return { kind: 'sparse', indices, values: Float32Array.from(indices, (i) => weights.get(i) ?? 0) };
}

const DEFAULT_LANGUAGE = 'english';

/** Reads a document's `options` (Qdrant's Bm25Config) with Qdrant's defaults and bounds. */
export function bm25ConfigOf(options: Record<string, unknown> | undefined): Bm25Config {
  const o = options ?? {};
  const k = numberOption(o, 'k', 1.2);
  const b = numberOption(o, 'b', 0.75);
  const avgLen = numberOption(o, 'avg_len', 256);
  if (!Number.isFinite(k) || k < 0) throw invalid(`BM25 k1 must be finite and >= 0, got ${k}`);
  if (!Number.isFinite(b) || b < 0 || b > 1) throw invalid(`BM25 b must be finite and in [0.0, 1.0], got ${b}`);
  if (!Number.isFinite(avgLen) || avgLen <= 0) throw invalid(`BM25 avg_doc_len must be finite and > 0, got ${avgLen}`);
  return { k, b, avgLen, analyzer: createTextAnalyzer(textParamsOf(o), { memoize: false }) };
}

function textParamsOf(o: Record<string, unknown>): TextIndexParams {
  const language = stringOption(o, 'language') ?? DEFAULT_LANGUAGE;
  const params: TextIndexParams = { tokenizer: tokenizerOption(o) };
  const lowercase = boolOption(o, 'lowercase');
  if (lowercase !== undefined) params.lowercase = lowercase;
  const asciiFolding = boolOption(o, 'ascii_folding');
  if (asciiFolding !== undefined) params.asciiFolding = asciiFolding;
  const minLen = integerOption(o, 'min_token_len');
  if (minLen !== undefined) params.minTokenLen = minLen;
  const maxLen = integerOption(o, 'max_token_len');
  if (maxLen !== undefined) params.maxTokenLen = maxLen;

  // Unset stemmer and stopwords follow the language; an unknown language (the legacy `"none"`) disables both.
  const stemmer = o.stemmer;
  if (stemmer === undefined || stemmer === null) {
    if (stemmerLanguage(language) !== undefined) params.stemmer = { snowball: { language } };
  } else params.stemmer = stemmerOption(stemmer);
  if (params.stemmer === undefined) delete params.stemmer;

  const stopwords = o.stopwords;
  if (stopwords === undefined || stopwords === null) {
    if (stopwordsOf(language) !== undefined) params.stopwords = { languages: [language], custom: [] };
  } else params.stopwords = stopwordsOption(stopwords);
  return params;
}

function stemmerOption(value: unknown): TextIndexParams['stemmer'] {
  if (isJsonObject(value) && value.type === 'none') return undefined;
  if (isJsonObject(value) && value.type === 'snowball' && typeof value.language === 'string') {
    return { snowball: { language: value.language } };
  }
  throw invalid('Invalid BM25 config: stemmer must be {"type": "none"} or {"type": "snowball", "language": ...}');
}

function stopwordsOption(value: unknown): { languages: string[]; custom: string[] } {
  if (typeof value === 'string') return { languages: [value], custom: [] };
  if (isJsonObject(value)) {
    const languages = value.languages ?? [];
    const custom = value.custom ?? [];
    const list = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
    if (list(languages) && list(custom)) return { languages, custom };
  }
  throw invalid('Invalid BM25 config: stopwords must be a language or {"languages": [...], "custom": [...]}');
}

function tokenizerOption(o: Record<string, unknown>): TokenizerType {
  const value = o.tokenizer;
  if (value === undefined || value === null) return 'Word';
  const found = TOKENIZER_TYPES.find((t) => typeof value === 'string' && t.toLowerCase() === value.toLowerCase());
  if (found === undefined) {
    throw invalid(`Invalid BM25 config: tokenizer: unknown variant ${JSON.stringify(value)}`);
  }
  return found;
}

function numberOption(o: Record<string, unknown>, key: string, fallback: number): number {
  const value = o[key];
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  throw invalid(`Invalid BM25 config: ${key}: expected a number`);
}

function integerOption(o: Record<string, unknown>, key: string): number | undefined {
  const value = o[key];
  if (value === undefined || value === null) return undefined;
  const n = typeof value === 'bigint' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0) {
    throw invalid(`Invalid BM25 config: ${key}: expected a non-negative integer`);
  }
  return n;
}

function stringOption(o: Record<string, unknown>, key: string): string | undefined {
  const value = o[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw invalid(`Invalid BM25 config: ${key}: expected a string`);
  return value;
}

function boolOption(o: Record<string, unknown>, key: string): boolean | undefined {
  const value = o[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw invalid(`Invalid BM25 config: ${key}: expected a boolean`);
  return value;
}

const invalid = (message: string): DomainError => DomainError.invalidArgument(message);
