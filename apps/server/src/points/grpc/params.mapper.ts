import { ValidationIssues } from '@vectorstore/common';
import { parseDatetimeMicros } from '@vectorstore/points';
import type {
  Direction,
  LookupLocation,
  OrderBy,
  RecommendStrategy,
  SearchParams,
  StartFrom,
} from '@vectorstore/points';
import type { LookupLocation__Output } from '../../grpc/generated/vectorstore/LookupLocation';
import type { OrderBy__Output } from '../../grpc/generated/vectorstore/OrderBy';
import type { SearchParams__Output } from '../../grpc/generated/vectorstore/SearchParams';
import type { StartFrom__Output } from '../../grpc/generated/vectorstore/StartFrom';
import { defined, readEnum, readU64 } from '../../core/scalars';
import { filterFromProto, timestampToMicros } from './filter.mapper';
import { MAX_I64, MIN_I64, readBigInt } from './point-id.mapper';

/**
 * A result limit: absent gives `fallback` (undefined when the RPC has none), and a set value must be
 * at least 1 (`limit: value 0 invalid, must be 1 or larger`).
 */
export function readLimit(
  issues: ValidationIssues,
  path: string,
  value: string | number | undefined,
  fallback: number,
): number;
export function readLimit(
  issues: ValidationIssues,
  path: string,
  value: string | number | undefined,
): number | undefined;
export function readLimit(
  issues: ValidationIssues,
  path: string,
  value: string | number | undefined,
  fallback?: number,
): number | undefined {
  const limit = readU64(issues, path, value);
  if (limit === undefined) return fallback;
  issues.range(path, limit, 1);
  return limit;
}

/** Reads an enum by name and reports names (or unknown numbers) outside `allowed`. */
export function readEnumOf<T extends string>(
  issues: ValidationIssues,
  path: string,
  value: string | number | undefined,
  allowed: readonly T[],
): T | undefined {
  const name = readEnum<T>(value);
  if (name === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(name)) {
    issues.oneOf(path, name, allowed);
    return undefined;
  }
  return name;
}

export const RECOMMEND_STRATEGIES: readonly RecommendStrategy[] = ['AverageVector', 'BestScore', 'SumScores'];
const DIRECTIONS: readonly Direction[] = ['Asc', 'Desc'];

/**
 * SearchParams. `acorn` (Qdrant 1.16+) has no domain counterpart yet and is accepted and ignored,
 * like an unknown field.
 */
export function searchParamsFromProto(
  issues: ValidationIssues,
  path: string,
  p: SearchParams__Output | undefined,
): SearchParams | undefined {
  if (!p) return undefined;
  return defined({
    hnswEf: readU64(issues, `${path}.hnsw_ef`, p.hnswEf),
    exact: p.exact,
    quantization: p.quantization
      ? defined({
          ignore: p.quantization.ignore,
          rescore: p.quantization.rescore,
          oversampling: p.quantization.oversampling,
        })
      : undefined,
    indexedOnly: p.indexedOnly,
    // No corpus is the global statistics, as Qdrant.
    idf: p.idf?.corpus ? { corpus: filterFromProto(issues, `${path}.idf.corpus`, p.idf.corpus) ?? {} } : undefined,
  });
}

/** LookupLocation; its shard_key_selector is ignored (single node). */
export function lookupLocationFromProto(l: LookupLocation__Output | undefined): LookupLocation | undefined {
  if (!l) return undefined;
  return defined({ collectionName: l.collectionName ?? '', vectorName: l.vectorName });
}

export function orderByFromProto(
  issues: ValidationIssues,
  path: string,
  o: OrderBy__Output | undefined,
): OrderBy | undefined {
  if (!o) return undefined;
  return defined({
    key: o.key ?? '',
    direction: readEnumOf(issues, `${path}.direction`, o.direction, DIRECTIONS),
    startFrom: o.startFrom ? startFromFromProto(issues, `${path}.start_from`, o.startFrom) : undefined,
  });
}

/** StartFrom (oneof float | integer | timestamp | datetime); datetimes become microseconds. */
function startFromFromProto(issues: ValidationIssues, path: string, s: StartFrom__Output): StartFrom | undefined {
  switch (s.value) {
    case 'float':
      if (Number.isNaN(s.float)) {
        issues.add(`${path}.float`, 'must be a number, got NaN');
        return undefined;
      }
      return { float: s.float ?? 0 };
    case 'integer': {
      const integer = readBigInt(issues, `${path}.integer`, s.integer ?? '0', MIN_I64, MAX_I64);
      return integer === undefined ? undefined : { integer };
    }
    case 'timestamp': {
      const datetime = timestampToMicros(issues, `${path}.timestamp`, s.timestamp ?? {});
      return datetime === undefined ? undefined : { datetime };
    }
    case 'datetime': {
      const datetime = parseDatetimeMicros(s.datetime ?? '');
      if (datetime === undefined) {
        issues.add(`${path}.datetime`, `'${s.datetime ?? ''}' is not a valid RFC 3339 datetime`);
        return undefined;
      }
      return { datetime };
    }
    default:
      issues.add(path, 'must set one of float, integer, timestamp, datetime');
      return undefined;
  }
}
