import { JsonObject, JsonValue } from '@vectorstore/common';
import type { PayloadIndexParams, PayloadSchemaType } from '@vectorstore/collections';
import { Condition, FieldCondition, Filter, Match, ValuesCount } from '../model/filter.model';
import { PointId } from '../model/point-id.model';
import { parseDatetimeMicros } from './datetime';
import { geoPointOf, inGeoBoundingBox, inGeoPolygon, inGeoRadius } from './geo';
import { nestedArrayKey, rawValuesAt, valuesAt } from './payload-path';
import { analyzerFor, isTextMatch, matchIndexedText, matchUnindexedText } from './text-match';
import { ringShard } from './hash-ring';
import { inSlice } from './slice-hash';

/** What the evaluator needs to know about one point. */
export interface PointView {
  id: PointId;
  payload: JsonObject;
  hasVector(name: string): boolean;
}

/** Payload schema per indexed key: decides how full-text matches are analysed. */
export type FieldSchemas = ReadonlyMap<string, { type: PayloadSchemaType; params?: PayloadIndexParams }>;

const NO_SCHEMAS: FieldSchemas = new Map();

interface Context {
  payload: JsonObject;
  /** Undefined inside `nested`: has_id and has_vector then never hold (as Qdrant). */
  point: PointView | undefined;
  schemas: FieldSchemas;
}

/**
 * The plain, slow filter evaluator: the reference the payload indexes are tested against, and the
 * path for unindexed filtering. An absent or empty filter matches every point.
 */
export function matchesFilter(
  filter: Filter | undefined,
  point: PointView,
  schemas: FieldSchemas = NO_SCHEMAS,
): boolean {
  if (filter === undefined) return true;
  return checkFilter(filter, { payload: point.payload, point, schemas });
}

function checkFilter(filter: Filter, ctx: Context): boolean {
  const { must, should, mustNot, minShould } = filter;
  if (should !== undefined && should.length > 0 && !should.some((c) => checkCondition(c, ctx))) return false;
  if (minShould !== undefined) {
    let hits = 0;
    for (const c of minShould.conditions) {
      if (hits >= minShould.minCount) break;
      if (checkCondition(c, ctx)) hits++;
    }
    if (hits < minShould.minCount) return false;
  }
  if (must !== undefined && !must.every((c) => checkCondition(c, ctx))) return false;
  if (mustNot !== undefined && mustNot.some((c) => checkCondition(c, ctx))) return false;
  return true;
}

/** Evaluates one condition against a payload. */
function checkCondition(condition: Condition, ctx: Context): boolean {
  if ('field' in condition) return checkFieldCondition(condition.field, ctx.payload, ctx.schemas);
  if ('isEmpty' in condition) return isEmptyValues(rawValuesAt(ctx.payload, condition.isEmpty.key));
  if ('isNull' in condition) return rawValuesAt(ctx.payload, condition.isNull.key).some((v) => v === null);
  if ('hasId' in condition) {
    const point = ctx.point;
    if (point === undefined) return false;
    return condition.hasId.some((id) => id === point.id);
  }
  if ('hasVector' in condition) return ctx.point?.hasVector(condition.hasVector) ?? false;
  if ('slice' in condition) {
    return ctx.point !== undefined && inSlice(ctx.point.id, condition.slice.total, condition.slice.index);
  }
  if ('ringOwner' in condition) {
    const { shardIds, owner } = condition.ringOwner;
    return ctx.point !== undefined && shardIds[ringShard(ctx.point.id, shardIds)] === owner;
  }
  if ('nested' in condition) return checkNested(condition.nested.key, condition.nested.filter, ctx);
  return checkFilter(condition.filter, ctx);
}

function checkNested(key: string, filter: Filter, ctx: Context): boolean {
  const arrayKey = nestedArrayKey(key);
  const innerSchemas = nestedSchemas(ctx.schemas, arrayKey);
  for (const element of rawValuesAt(ctx.payload, arrayKey)) {
    if (element === null || typeof element !== 'object' || Array.isArray(element)) continue;
    if (checkFilter(filter, { payload: element, point: undefined, schemas: innerSchemas })) return true;
  }
  return false;
}

/** Schemas of keys under `arrayKey.`, re-keyed relative to the array element. */
export function nestedSchemas(schemas: FieldSchemas, arrayKey: string): FieldSchemas {
  if (schemas.size === 0) return schemas;
  const prefix = `${arrayKey}.`;
  const out = new Map<string, { type: PayloadSchemaType; params?: PayloadIndexParams }>();
  for (const [key, schema] of schemas) {
    if (key.startsWith(prefix)) out.set(key.slice(prefix.length), schema);
  }
  return out;
}

/** Qdrant's is_empty: every value found is null or an empty array (so a missing key is empty). */
function isEmptyValues(values: readonly JsonValue[]): boolean {
  return values.every((v) => v === null || (Array.isArray(v) && v.length === 0));
}

/** Evaluates a field condition against one payload, as Qdrant's `check_field_condition`. */
export function checkFieldCondition(
  condition: FieldCondition,
  payload: JsonObject,
  schemas: FieldSchemas = NO_SCHEMAS,
): boolean {
  const values = rawValuesAt(payload, condition.key);
  if (values.length === 0) {
    // A missing key holds no value: is_empty / is_null, and values_count with 0 (Qdrant 1.19), can hold.
    if (condition.isEmpty !== undefined) return condition.isEmpty;
    if (condition.isNull !== undefined) return !condition.isNull;
    if (condition.valuesCount !== undefined) return checkCount(condition.valuesCount, 0);
    return false;
  }
  if (condition.valuesCount !== undefined) {
    const bounds = condition.valuesCount;
    return values.some((v) => checkCount(bounds, v === null ? 0 : Array.isArray(v) ? v.length : 1));
  }
  if (condition.isEmpty !== undefined) {
    const wanted = condition.isEmpty;
    return values.some((v) => (v === null ? true : Array.isArray(v) ? v.length === 0 : false) === wanted);
  }
  if (condition.isNull !== undefined) {
    const wanted = condition.isNull;
    return values.some((v) => (v === null ? true : Array.isArray(v) ? v.some((e) => e === null) : false) === wanted);
  }
  const match = condition.match;
  if (match !== undefined && isTextMatch(match)) {
    const schema = schemas.get(condition.key);
    if (schema !== undefined && schema.type === 'Text' && schema.params !== undefined && 'text' in schema.params) {
      const strings = valuesAt(payload, condition.key).filter((v): v is string => typeof v === 'string');
      return matchIndexedText(analyzerFor(schema.params.text), match, strings);
    }
  }
  for (const value of values) {
    if (Array.isArray(value)) {
      if (value.some((element) => checkValue(condition, element))) return true;
    } else if (checkValue(condition, value)) {
      return true;
    }
  }
  return false;
}

export function checkCount(bounds: ValuesCount, count: number): boolean {
  return (
    (bounds.lt === undefined || count < bounds.lt) &&
    (bounds.gt === undefined || count > bounds.gt) &&
    (bounds.lte === undefined || count <= bounds.lte) &&
    (bounds.gte === undefined || count >= bounds.gte)
  );
}

interface Bounds {
  lt?: number;
  gt?: number;
  lte?: number;
  gte?: number;
}

/** Inclusive/exclusive bounds test shared with the numeric indexes. */
export function inBounds(bounds: Bounds, value: number): boolean {
  return (
    (bounds.lt === undefined || value < bounds.lt) &&
    (bounds.gt === undefined || value > bounds.gt) &&
    (bounds.lte === undefined || value <= bounds.lte) &&
    (bounds.gte === undefined || value >= bounds.gte)
  );
}

/** One (non-array, or nested-array) value against the condition's test (Qdrant's `check_match`). */
function checkValue(condition: FieldCondition, value: JsonValue): boolean {
  if (condition.match !== undefined && checkMatch(condition.match, value)) return true;
  if (condition.range !== undefined && (typeof value === 'number' || typeof value === 'bigint')) {
    if (inBounds(condition.range, Number(value))) return true;
  }
  if (condition.datetimeRange !== undefined && typeof value === 'string') {
    const micros = parseDatetimeMicros(value);
    if (micros !== undefined && inBounds(condition.datetimeRange, micros)) return true;
  }
  if (
    condition.geoRadius !== undefined ||
    condition.geoBoundingBox !== undefined ||
    condition.geoPolygon !== undefined
  ) {
    const point = geoPointOf(value);
    if (point !== undefined) {
      if (condition.geoRadius !== undefined && inGeoRadius(condition.geoRadius, point)) return true;
      if (condition.geoBoundingBox !== undefined && inGeoBoundingBox(condition.geoBoundingBox, point)) return true;
      if (condition.geoPolygon !== undefined && inGeoPolygon(condition.geoPolygon, point)) return true;
    }
  }
  return false;
}

/** Qdrant's `Match::check_match` on one value. */
export function checkMatch(match: Match, value: JsonValue): boolean {
  if ('keyword' in match) return value === match.keyword;
  if ('integer' in match) return typeof value === 'bigint' && value === match.integer;
  if ('boolean' in match) return value === match.boolean;
  if ('keywords' in match) return typeof value === 'string' && match.keywords.includes(value);
  if ('integers' in match) return typeof value === 'bigint' && match.integers.includes(value);
  if ('exceptKeywords' in match) {
    // Any non-null value that is not a listed string passes (other types are "not in the list").
    if (value === null) return false;
    return typeof value !== 'string' || !match.exceptKeywords.includes(value);
  }
  if ('exceptIntegers' in match) {
    if (value === null) return false;
    return typeof value !== 'bigint' || !match.exceptIntegers.includes(value);
  }
  return typeof value === 'string' && matchUnindexedText(match, value);
}
