import { ValidationIssues } from '@vectorstore/common';
import type {
  Direction,
  LookupLocation,
  OrderBy,
  PayloadSelector,
  PointsSelector,
  SearchParams,
  ShardKeySelector,
  StartFrom,
  VectorSelector,
} from '@vectorstore/points';
import { parseDatetimeMicros } from '@vectorstore/points';
import { shardKeyDecoder } from '../../cluster/rest/cluster.rest-mapper';
import { array, bool, enumOf, f64, isPlainObject, object, objectValue, str, u64 } from '../../core/rest/rest-decoders';
import { bodyFormatError } from '../../core/rest/rest-format.error';
import { defined } from '../../core/scalars';
import { optionalFilter } from './filter.rest-mapper';
import { pointIdsDecoder } from './point-id.rest-mapper';

/** Selectors and small shared parameters of Qdrant's point requests, decoded from JSON. */

const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);

/** The first of several accepted names that is set (`with_vector` / `with_vectors`, `limit` / `top`). */
export function aliased(body: Record<string, unknown>, ...names: string[]): unknown {
  for (const name of names) {
    const value = body[name];
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}

/** `with_payload`: a bool, a list of keys, `{include: keys | key}` or `{exclude: keys | key}`; absent gives `absent`. */
export function payloadSelectorFromRest(value: unknown, path: string, absent: boolean): PayloadSelector {
  if (value === undefined || value === null) return { enable: absent };
  if (typeof value === 'boolean') return { enable: value };
  if (Array.isArray(value)) return { include: array(str)(value, path) };
  if (isPlainObject(value)) {
    const keys = Object.keys(value);
    const list = (v: unknown, p: string): string[] => (typeof v === 'string' ? [v] : array(str)(v, p));
    if (keys.length === 1 && keys[0] === 'include') return { include: list(value.include, join(path, 'include')) };
    if (keys.length === 1 && keys[0] === 'exclude') return { exclude: list(value.exclude, join(path, 'exclude')) };
  }
  throw bodyFormatError(path, 'data did not match any variant of untagged enum WithPayloadInterface');
}

/** `with_vector`: a bool or a list of vector names; absent means none. */
export function vectorSelectorFromRest(value: unknown, path: string): VectorSelector {
  if (value === undefined || value === null) return { enable: false };
  if (typeof value === 'boolean') return { enable: value };
  if (Array.isArray(value)) return { include: array(str)(value, path) };
  throw bodyFormatError(path, 'data did not match any variant of untagged enum WithVector');
}

/** `{"points": [ids]}` or `{"filter": {...}}` (at the top level of the body, or inside a batch operation). */
export function pointsSelectorFromRest(body: Record<string, unknown>, path: string): PointsSelector | undefined {
  if (body.points !== undefined && body.points !== null) {
    return { ids: pointIdsDecoder(body.points, join(path, 'points')) };
  }
  const filter = optionalFilter(body.filter, join(path, 'filter'));
  return filter ? { filter } : undefined;
}

/** A selector that must be given: a missing one is a 400 as serde reports an unmatched untagged enum. */
export function requiredPointsSelector(body: Record<string, unknown>, path: string): PointsSelector {
  const selector = pointsSelectorFromRest(body, path);
  if (!selector) throw bodyFormatError(path, 'data did not match any variant of untagged enum PointsSelector');
  return selector;
}

/** `shard_key`: a key, a list of keys, or `{shards: key | keys, fallback?}`. */
export function shardKeySelectorFromRest(value: unknown, path: string): ShardKeySelector | undefined {
  if (value === undefined || value === null) return undefined;
  const keys = (v: unknown, p: string) => (Array.isArray(v) ? array(shardKeyDecoder)(v, p) : [shardKeyDecoder(v, p)]);
  if (isPlainObject(value)) {
    const shardKeys = keys(value.shards, join(path, 'shards'));
    const fallback =
      value.fallback === undefined || value.fallback === null
        ? undefined
        : shardKeyDecoder(value.fallback, join(path, 'fallback'));
    return fallback ? { shardKeys, fallback } : { shardKeys };
  }
  return { shardKeys: keys(value, path) };
}

/** `params.idf`: `"global"` or `{"corpus": <filter>}`. */
const idfParamsDecoder = (value: unknown, path: string): SearchParams['idf'] => {
  if (value === 'global') return 'global';
  if (isPlainObject(value) && value.corpus !== undefined && value.corpus !== null) {
    return { corpus: optionalFilter(value.corpus, join(path, 'corpus'))! };
  }
  throw bodyFormatError(path, 'expected "global" or {"corpus": <filter>}');
};

export const searchParamsDecoder = object<SearchParams>({
  hnsw_ef: u64,
  exact: bool,
  quantization: object({ ignore: bool, rescore: bool, oversampling: f64 }),
  indexed_only: bool,
  idf: idfParamsDecoder,
});

/** `lookup_from`: `{collection, vector?}`. */
export function lookupFromRest(value: unknown, path: string): LookupLocation | undefined {
  if (value === undefined || value === null) return undefined;
  const l = object<{ collection: string; vector?: string }>({ collection: str, vector: str }, ['collection'])(
    value,
    path,
  );
  return defined({ collectionName: l.collection, vectorName: l.vector });
}

const DIRECTIONS = enumOf<Direction>({ asc: 'Asc', desc: 'Desc' });

function startFrom(value: unknown, path: string): StartFrom {
  if (typeof value === 'bigint') return { integer: value };
  if (typeof value === 'number') return { float: value };
  if (typeof value === 'string') {
    const datetime = parseDatetimeMicros(value);
    if (datetime !== undefined) return { datetime };
  }
  throw bodyFormatError(path, 'data did not match any variant of untagged enum StartFrom');
}

/** `order_by`: a key, or `{key, direction?, start_from?}`. */
export function orderByFromRest(value: unknown, path: string): OrderBy | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return { key: value };
  const o = objectValue(value, path);
  if (o.key === undefined) throw bodyFormatError(path, 'missing field `key`');
  return defined({
    key: str(o.key, join(path, 'key')),
    direction:
      o.direction === undefined || o.direction === null ? undefined : DIRECTIONS(o.direction, join(path, 'direction')),
    startFrom:
      o.start_from === undefined || o.start_from === null
        ? undefined
        : startFrom(o.start_from, join(path, 'start_from')),
  });
}

/** A result limit: absent gives `fallback`; a set value must be at least 1 (422). */
export function limitFromRest(issues: ValidationIssues, value: unknown, path: string, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  // Any u64 is a valid limit; beyond 2^53 it means "everything" and is held to the largest exact integer.
  const limit =
    typeof value === 'bigint' && value > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : u64(value, path);
  issues.range(path, limit, 1);
  return limit;
}

/** An optional unsigned field. */
export function optionalU64(value: unknown, path: string): number | undefined {
  return value === undefined || value === null ? undefined : u64(value, path);
}

/** An optional float field. */
export function optionalF64(value: unknown, path: string): number | undefined {
  return value === undefined || value === null ? undefined : f64(value, path);
}
