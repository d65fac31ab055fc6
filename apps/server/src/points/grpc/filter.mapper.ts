import { ValidationIssues } from '@vectorstore/common';
import type {
  Condition,
  DatetimeRange,
  FieldCondition,
  Filter,
  GeoLineString,
  GeoPoint,
  Match,
  Range,
  ValuesCount,
} from '@vectorstore/points';
import type { Condition__Output } from '../../grpc/generated/vectorstore/Condition';
import type { DatetimeRange__Output } from '../../grpc/generated/vectorstore/DatetimeRange';
import type { FieldCondition__Output } from '../../grpc/generated/vectorstore/FieldCondition';
import type { Filter__Output } from '../../grpc/generated/vectorstore/Filter';
import type { GeoLineString__Output } from '../../grpc/generated/vectorstore/GeoLineString';
import type { GeoPoint__Output } from '../../grpc/generated/vectorstore/GeoPoint';
import type { Match__Output } from '../../grpc/generated/vectorstore/Match';
import type { Range__Output } from '../../grpc/generated/vectorstore/Range';
import type { ValuesCount__Output } from '../../grpc/generated/vectorstore/ValuesCount';
import type { Timestamp__Output } from '../../grpc/generated/google/protobuf/Timestamp';
import { defined, readU64 } from '../../core/scalars';
import { MAX_I64, MIN_I64, pointIdsFromProto, readBigInt } from './point-id.mapper';

/**
 * proto Filter to the domain Filter. Only structure is checked here (empty oneofs, unsupported
 * kinds, numbers out of range); `validateFilter` in the domain owns the rules on keys and values.
 * Empty clause lists are left out, which means the same as absent.
 */
export function filterFromProto(
  issues: ValidationIssues,
  path: string,
  filter: Filter__Output | undefined | null,
): Filter | undefined {
  if (!filter) return undefined;
  const conditions = (key: string, list: readonly Condition__Output[] | undefined): Condition[] | undefined => {
    if (!list || list.length === 0) return undefined;
    const mapped: Condition[] = [];
    list.forEach((c, i) => {
      const condition = conditionFromProto(issues, `${path}.${key}[${i}]`, c);
      if (condition) mapped.push(condition);
    });
    return mapped;
  };
  const must = conditions('must', filter.must);
  const should = conditions('should', filter.should);
  const mustNot = conditions('must_not', filter.mustNot);
  const minShould = filter.minShould
    ? {
        conditions: conditions('min_should.conditions', filter.minShould.conditions) ?? [],
        minCount: readU64(issues, `${path}.min_should.min_count`, filter.minShould.minCount) ?? 0,
      }
    : undefined;
  return defined({ must, should, mustNot, minShould });
}

/** One Condition (oneof condition_one_of). SliceCondition is reported as unsupported. */
export function conditionFromProto(
  issues: ValidationIssues,
  path: string,
  c: Condition__Output,
): Condition | undefined {
  switch (c.conditionOneOf) {
    case 'field': {
      const field = fieldConditionFromProto(issues, `${path}.field`, c.field ?? {});
      return field && { field };
    }
    case 'isEmpty':
      return { isEmpty: { key: c.isEmpty?.key ?? '' } };
    case 'isNull':
      return { isNull: { key: c.isNull?.key ?? '' } };
    case 'hasId':
      return { hasId: pointIdsFromProto(issues, `${path}.has_id.has_id`, c.hasId?.hasId) };
    case 'hasVector':
      return { hasVector: c.hasVector?.hasVector ?? '' };
    case 'nested': {
      if (!c.nested?.filter) {
        issues.add(`${path}.nested.filter`, 'must be set');
        return undefined;
      }
      return {
        nested: {
          key: c.nested.key ?? '',
          filter: filterFromProto(issues, `${path}.nested.filter`, c.nested.filter) ?? {},
        },
      };
    }
    case 'filter':
      return { filter: filterFromProto(issues, `${path}.filter`, c.filter) ?? {} };
    case 'slice': {
      const total = c.slice?.total ?? 0;
      if (total < 1) {
        issues.add(`${path}.slice.total`, 'value 0 invalid, must be 1 or larger');
        return undefined;
      }
      return { slice: { total, index: c.slice?.index ?? 0 } };
    }
    default:
      issues.add(path, 'must set one of field, is_empty, has_id, filter, is_null, nested, has_vector, slice');
      return undefined;
  }
}

export function fieldConditionFromProto(
  issues: ValidationIssues,
  path: string,
  f: FieldCondition__Output,
): FieldCondition | undefined {
  return defined({
    key: f.key ?? '',
    match: f.match ? matchFromProto(issues, `${path}.match`, f.match) : undefined,
    range: f.range ? rangeFromProto(issues, `${path}.range`, f.range) : undefined,
    datetimeRange: f.datetimeRange
      ? datetimeRangeFromProto(issues, `${path}.datetime_range`, f.datetimeRange)
      : undefined,
    geoBoundingBox: f.geoBoundingBox
      ? {
          topLeft: geoPointFromProto(issues, `${path}.geo_bounding_box.top_left`, f.geoBoundingBox.topLeft),
          bottomRight: geoPointFromProto(issues, `${path}.geo_bounding_box.bottom_right`, f.geoBoundingBox.bottomRight),
        }
      : undefined,
    geoRadius: f.geoRadius
      ? {
          center: geoPointFromProto(issues, `${path}.geo_radius.center`, f.geoRadius.center),
          radius: finite(issues, `${path}.geo_radius.radius`, f.geoRadius.radius ?? 0),
        }
      : undefined,
    geoPolygon: f.geoPolygon
      ? {
          exterior: lineStringFromProto(issues, `${path}.geo_polygon.exterior`, f.geoPolygon.exterior),
          interiors: (f.geoPolygon.interiors ?? []).map((ring, i) =>
            lineStringFromProto(issues, `${path}.geo_polygon.interiors[${i}]`, ring),
          ),
        }
      : undefined,
    valuesCount: f.valuesCount ? valuesCountFromProto(issues, `${path}.values_count`, f.valuesCount) : undefined,
    isEmpty: f.isEmpty,
    isNull: f.isNull,
  });
}

/** Match (oneof match_value); int64 values become bigints. */
export function matchFromProto(issues: ValidationIssues, path: string, m: Match__Output): Match | undefined {
  const int = (p: string, v: string | undefined): bigint => readBigInt(issues, p, v ?? '0', MIN_I64, MAX_I64) ?? 0n;
  const ints = (p: string, list: readonly string[] | undefined): bigint[] =>
    (list ?? []).map((v, i) => int(`${p}[${i}]`, v));
  switch (m.matchValue) {
    case 'keyword':
      return { keyword: m.keyword ?? '' };
    case 'integer':
      return { integer: int(`${path}.integer`, m.integer) };
    case 'boolean':
      return { boolean: m.boolean ?? false };
    case 'text':
      return { text: m.text ?? '' };
    case 'textAny':
      return { textAny: m.textAny ?? '' };
    case 'phrase':
      return { phrase: m.phrase ?? '' };
    case 'prefix':
      return { prefix: m.prefix ?? '' };
    case 'keywords':
      return { keywords: [...(m.keywords?.strings ?? [])] };
    case 'integers':
      return { integers: ints(`${path}.integers.integers`, m.integers?.integers) };
    case 'exceptKeywords':
      return { exceptKeywords: [...(m.exceptKeywords?.strings ?? [])] };
    case 'exceptIntegers':
      return { exceptIntegers: ints(`${path}.except_integers.integers`, m.exceptIntegers?.integers) };
    default:
      issues.add(
        path,
        'must set one of keyword, integer, boolean, text, keywords, integers, except_integers, except_keywords, phrase, text_any, prefix',
      );
      return undefined;
  }
}

function rangeFromProto(issues: ValidationIssues, path: string, r: Range__Output): Range {
  const bound = (name: string, v: number | undefined): number | undefined => {
    if (v !== undefined && Number.isNaN(v)) {
      issues.add(`${path}.${name}`, 'must be a number, got NaN');
      return undefined;
    }
    return v;
  };
  return defined({ lt: bound('lt', r.lt), gt: bound('gt', r.gt), gte: bound('gte', r.gte), lte: bound('lte', r.lte) });
}

function datetimeRangeFromProto(issues: ValidationIssues, path: string, r: DatetimeRange__Output): DatetimeRange {
  const bound = (name: string, ts: Timestamp__Output | undefined): number | undefined =>
    ts ? timestampToMicros(issues, `${path}.${name}`, ts) : undefined;
  return defined({ lt: bound('lt', r.lt), gt: bound('gt', r.gt), gte: bound('gte', r.gte), lte: bound('lte', r.lte) });
}

/** google.protobuf.Timestamp to microseconds since the Unix epoch (nanoseconds truncated toward the past). */
export function timestampToMicros(issues: ValidationIssues, path: string, ts: Timestamp__Output): number | undefined {
  const seconds = readBigInt(issues, `${path}.seconds`, ts.seconds ?? '0', MIN_I64, MAX_I64);
  const nanos = ts.nanos ?? 0;
  if (!Number.isInteger(nanos) || nanos < 0 || nanos > 999_999_999) {
    issues.add(`${path}.nanos`, `value ${nanos} invalid, must be from 0 to 999999999`);
    return undefined;
  }
  if (seconds === undefined) return undefined;
  const micros = seconds * 1_000_000n + BigInt(Math.floor(nanos / 1000));
  if (micros > BigInt(Number.MAX_SAFE_INTEGER) || micros < BigInt(Number.MIN_SAFE_INTEGER)) {
    issues.add(`${path}.seconds`, `value ${seconds} invalid, timestamp out of range`);
    return undefined;
  }
  return Number(micros);
}

function valuesCountFromProto(issues: ValidationIssues, path: string, v: ValuesCount__Output): ValuesCount {
  return defined({
    lt: readU64(issues, `${path}.lt`, v.lt),
    gt: readU64(issues, `${path}.gt`, v.gt),
    gte: readU64(issues, `${path}.gte`, v.gte),
    lte: readU64(issues, `${path}.lte`, v.lte),
  });
}

function geoPointFromProto(issues: ValidationIssues, path: string, p: GeoPoint__Output | undefined): GeoPoint {
  if (!p) issues.add(path, 'must be set');
  return { lon: finite(issues, `${path}.lon`, p?.lon ?? 0), lat: finite(issues, `${path}.lat`, p?.lat ?? 0) };
}

function lineStringFromProto(
  issues: ValidationIssues,
  path: string,
  l: GeoLineString__Output | undefined,
): GeoLineString {
  if (!l) issues.add(path, 'must be set');
  return { points: (l?.points ?? []).map((p, i) => geoPointFromProto(issues, `${path}.points[${i}]`, p)) };
}

function finite(issues: ValidationIssues, path: string, value: number): number {
  if (!Number.isFinite(value)) issues.add(path, 'must be finite');
  return value;
}
