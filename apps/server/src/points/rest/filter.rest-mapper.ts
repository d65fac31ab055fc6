import {
  parseDatetimeMicros,
  type Condition,
  type DatetimeRange,
  type FieldCondition,
  type Filter,
  type GeoLineString,
  type GeoPoint,
  type Match,
  type Range,
  type ValuesCount,
} from '@vectorstore/points';
import { array, bool, describeJson, f64, objectValue, str, u64 } from '../../core/rest/rest-decoders';
import { bodyFormatError } from '../../core/rest/rest-format.error';
import { defined } from '../../core/scalars';
import { pointIdsDecoder } from './point-id.rest-mapper';

/**
 * Qdrant's filter JSON to the domain Filter. Only shapes are decoded here (400 when a value has the
 * wrong type); the rules on keys and values are the domain's (`validateFilter`, 422).
 */

const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);

/** `must`, `should`, `must_not`: one condition or a list. */
function clause(value: unknown, path: string): Condition[] | undefined {
  if (value === undefined || value === null) return undefined;
  const list = Array.isArray(value) ? value : [value];
  return list.map((c, i) => conditionFromRest(c, Array.isArray(value) ? `${path}[${i}]` : path));
}

export function filterFromRest(value: unknown, path: string): Filter {
  const f = objectValue(value, path);
  const must = clause(f.must, join(path, 'must'));
  const should = clause(f.should, join(path, 'should'));
  const mustNot = clause(f.must_not, join(path, 'must_not'));
  let minShould: Filter['minShould'];
  if (f.min_should !== undefined && f.min_should !== null) {
    const m = objectValue(f.min_should, join(path, 'min_should'));
    if (m.conditions === undefined) throw bodyFormatError(join(path, 'min_should'), 'missing field `conditions`');
    if (m.min_count === undefined) throw bodyFormatError(join(path, 'min_should'), 'missing field `min_count`');
    minShould = {
      conditions: clause(m.conditions, join(path, 'min_should.conditions')) ?? [],
      minCount: u64(m.min_count, join(path, 'min_should.min_count')),
    };
  }
  return defined({ must, should, mustNot, minShould });
}

/** An optional filter field (`null` = absent). */
export function optionalFilter(value: unknown, path: string): Filter | undefined {
  return value === undefined || value === null ? undefined : filterFromRest(value, path);
}

function keyOf(value: unknown, path: string): string {
  const o = objectValue(value, path);
  if (o.key === undefined) throw bodyFormatError(path, 'missing field `key`');
  return str(o.key, join(path, 'key'));
}

/** One Condition of Qdrant's untagged enum: field, is_empty, is_null, has_id, has_vector, nested, or a Filter. */
export function conditionFromRest(value: unknown, path: string): Condition {
  const c = objectValue(value, path);
  if ('key' in c) return { field: fieldConditionFromRest(c, path) };
  if ('is_empty' in c) return { isEmpty: { key: keyOf(c.is_empty, join(path, 'is_empty')) } };
  if ('is_null' in c) return { isNull: { key: keyOf(c.is_null, join(path, 'is_null')) } };
  if ('has_id' in c) return { hasId: pointIdsDecoder(c.has_id, join(path, 'has_id')) };
  if ('has_vector' in c) return { hasVector: str(c.has_vector, join(path, 'has_vector')) };
  if ('nested' in c) {
    const n = objectValue(c.nested, join(path, 'nested'));
    if (n.filter === undefined) throw bodyFormatError(join(path, 'nested'), 'missing field `filter`');
    return {
      nested: { key: keyOf(n, join(path, 'nested')), filter: filterFromRest(n.filter, join(path, 'nested.filter')) },
    };
  }
  if ('slice' in c) {
    const slice = objectValue(c.slice, join(path, 'slice'));
    const total = u64(slice.total, join(path, 'slice.total'));
    const index = u64(slice.index, join(path, 'slice.index'));
    // Qdrant's `total` is a NonZeroU32: 0 does not deserialize (400); an index past it is a rule (422).
    if (total === 0 || total > 0xffff_ffff) {
      throw bodyFormatError(join(path, 'slice.total'), `invalid value: integer \`${total}\`, expected a nonzero u32`);
    }
    if (index > 0xffff_ffff) throw bodyFormatError(join(path, 'slice.index'), 'expected a u32');
    return { slice: { total, index } };
  }
  return { filter: filterFromRest(c, path) };
}

function fieldConditionFromRest(c: Record<string, unknown>, path: string): FieldCondition {
  const key = str(c.key, join(path, 'key'));
  const present = (name: string): boolean => c[name] !== undefined && c[name] !== null;
  const range = present('range') ? rangeFromRest(c.range, join(path, 'range')) : undefined;
  return defined({
    key,
    match: present('match') ? matchFromRest(c.match, join(path, 'match')) : undefined,
    range: range && 'numeric' in range ? range.numeric : undefined,
    datetimeRange: range && 'datetime' in range ? range.datetime : undefined,
    geoBoundingBox: present('geo_bounding_box')
      ? (() => {
          const b = objectValue(c.geo_bounding_box, join(path, 'geo_bounding_box'));
          return {
            topLeft: geoPoint(b.top_left, join(path, 'geo_bounding_box.top_left')),
            bottomRight: geoPoint(b.bottom_right, join(path, 'geo_bounding_box.bottom_right')),
          };
        })()
      : undefined,
    geoRadius: present('geo_radius')
      ? (() => {
          const r = objectValue(c.geo_radius, join(path, 'geo_radius'));
          return {
            center: geoPoint(r.center, join(path, 'geo_radius.center')),
            radius: required(r, 'radius', join(path, 'geo_radius'), f64),
          };
        })()
      : undefined,
    geoPolygon: present('geo_polygon')
      ? (() => {
          const p = objectValue(c.geo_polygon, join(path, 'geo_polygon'));
          return {
            exterior: lineString(p.exterior, join(path, 'geo_polygon.exterior')),
            interiors:
              p.interiors === undefined || p.interiors === null
                ? []
                : array(lineString)(p.interiors, join(path, 'geo_polygon.interiors')),
          };
        })()
      : undefined,
    valuesCount: present('values_count') ? valuesCount(c.values_count, join(path, 'values_count')) : undefined,
    isEmpty: present('is_empty') ? bool(c.is_empty, join(path, 'is_empty')) : undefined,
    isNull: present('is_null') ? bool(c.is_null, join(path, 'is_null')) : undefined,
  });
}

function required<T>(o: Record<string, unknown>, name: string, path: string, decode: (v: unknown, p: string) => T): T {
  if (o[name] === undefined || o[name] === null) throw bodyFormatError(path, `missing field \`${name}\``);
  return decode(o[name], join(path, name));
}

function geoPoint(value: unknown, path: string): GeoPoint {
  const p = objectValue(value, path);
  return { lon: required(p, 'lon', path, f64), lat: required(p, 'lat', path, f64) };
}

function lineString(value: unknown, path: string): GeoLineString {
  const l = objectValue(value, path);
  return { points: required(l, 'points', path, array(geoPoint)) };
}

function valuesCount(value: unknown, path: string): ValuesCount {
  const v = objectValue(value, path);
  const bound = (name: string): number | undefined =>
    v[name] === undefined || v[name] === null ? undefined : u64(v[name], join(path, name));
  return defined({ lt: bound('lt'), gt: bound('gt'), gte: bound('gte'), lte: bound('lte') });
}

/** `Range` is untagged: numbers make a numeric range, RFC 3339 strings a datetime range. */
function rangeFromRest(value: unknown, path: string): { numeric: Range } | { datetime: DatetimeRange } {
  const r = objectValue(value, path);
  const names = ['lt', 'gt', 'gte', 'lte'] as const;
  const given = names.filter((n) => r[n] !== undefined && r[n] !== null);
  if (given.some((n) => typeof r[n] === 'string')) {
    const datetime: DatetimeRange = {};
    for (const n of given) {
      const text = r[n];
      const micros = typeof text === 'string' ? parseDatetimeMicros(text) : undefined;
      if (micros === undefined) {
        throw bodyFormatError(path, 'data did not match any variant of untagged enum RangeInterface');
      }
      datetime[n] = micros;
    }
    return { datetime };
  }
  const numeric: Range = {};
  for (const n of given) numeric[n] = f64(r[n], join(path, n));
  return { numeric };
}

function scalarList(value: unknown, path: string): { keywords: string[] } | { integers: bigint[] } {
  if (!Array.isArray(value)) throw bodyFormatError(path, `invalid type: ${describeJson(value)}, expected a sequence`);
  if (value.every((v) => typeof v === 'string')) return { keywords: value as string[] };
  if (value.every((v) => typeof v === 'bigint')) return { integers: value as bigint[] };
  throw bodyFormatError(path, 'data did not match any variant of untagged enum AnyVariants');
}

/** `match`: value (keyword, integer, bool), text, text_any, phrase, prefix, any, except. */
function matchFromRest(value: unknown, path: string): Match {
  const m = objectValue(value, path);
  if ('value' in m) {
    const v = m.value;
    if (typeof v === 'string') return { keyword: v };
    if (typeof v === 'bigint') return { integer: v };
    if (typeof v === 'boolean') return { boolean: v };
    throw bodyFormatError(join(path, 'value'), 'data did not match any variant of untagged enum ValueVariants');
  }
  if ('text' in m) return { text: str(m.text, join(path, 'text')) };
  if ('text_any' in m) return { textAny: str(m.text_any, join(path, 'text_any')) };
  if ('phrase' in m) return { phrase: str(m.phrase, join(path, 'phrase')) };
  if ('prefix' in m) return { prefix: str(m.prefix, join(path, 'prefix')) };
  if ('any' in m) return scalarList(m.any, join(path, 'any'));
  if ('except' in m) {
    const list = scalarList(m.except, join(path, 'except'));
    return 'keywords' in list ? { exceptKeywords: list.keywords } : { exceptIntegers: list.integers };
  }
  throw bodyFormatError(path, 'data did not match any variant of untagged enum Match');
}
