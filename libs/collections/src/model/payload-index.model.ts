import { Memory } from './index-config.model';

/**
 * Parameters of a payload field index, per type (Qdrant's PayloadIndexParams). All flags optional;
 * `memory` (Qdrant 1.19) is recorded and reported: indexes are held in memory.
 */
export interface KeywordIndexParams {
  /** Optimise storage for multi-tenancy by this field. */
  isTenant?: boolean;
  onDisk?: boolean;
  memory?: Memory;
  enableHnsw?: boolean;
  /** Serve `match: {prefix}` from the index (Qdrant 1.19); without it strict mode refuses prefix filters. */
  prefix?: boolean;
}

export interface IntegerIndexParams {
  /** Exact-match lookups (default true). */
  lookup?: boolean;
  /** Range filters (default true). */
  range?: boolean;
  isPrincipal?: boolean;
  onDisk?: boolean;
  memory?: Memory;
  enableHnsw?: boolean;
}

export interface FloatIndexParams {
  onDisk?: boolean;
  memory?: Memory;
  isPrincipal?: boolean;
  enableHnsw?: boolean;
}

export interface GeoIndexParams {
  onDisk?: boolean;
  memory?: Memory;
  enableHnsw?: boolean;
}

export const TOKENIZER_TYPES = ['Prefix', 'Whitespace', 'Word', 'Multilingual'] as const;
export type TokenizerType = (typeof TOKENIZER_TYPES)[number];

export interface TextIndexParams {
  tokenizer: TokenizerType;
  lowercase?: boolean;
  minTokenLen?: number;
  maxTokenLen?: number;
  onDisk?: boolean;
  memory?: Memory;
  stopwords?: { languages: string[]; custom: string[] };
  phraseMatching?: boolean;
  stemmer?: { snowball: { language: string } };
  asciiFolding?: boolean;
  enableHnsw?: boolean;
}

export interface BoolIndexParams {
  onDisk?: boolean;
  memory?: Memory;
  enableHnsw?: boolean;
}

export interface DatetimeIndexParams {
  onDisk?: boolean;
  memory?: Memory;
  isPrincipal?: boolean;
  enableHnsw?: boolean;
}

export interface UuidIndexParams {
  isTenant?: boolean;
  onDisk?: boolean;
  memory?: Memory;
  enableHnsw?: boolean;
}

export type PayloadIndexParams =
  | { keyword: KeywordIndexParams }
  | { integer: IntegerIndexParams }
  | { float: FloatIndexParams }
  | { geo: GeoIndexParams }
  | { text: TextIndexParams }
  | { bool: BoolIndexParams }
  | { datetime: DatetimeIndexParams }
  | { uuid: UuidIndexParams };
