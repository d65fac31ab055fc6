import { DomainError } from '@vectorstore/common';
import { Condition, FieldCondition, Filter, GeoLineString, GeoPoint, Match } from '../model/filter.model';
import { parsePath } from './payload-path';

// Qdrant checks these with its request validator: REST answers them 422, gRPC INVALID_ARGUMENT.
const invalid = (message: string): DomainError => DomainError.validation([message]);

function forEachCondition(filter: Filter, visit: (condition: Condition) => void): void {
  for (const list of [filter.must, filter.should, filter.mustNot, filter.minShould?.conditions]) {
    if (list !== undefined) for (const condition of list) visit(condition);
  }
}

/**
 * Throws InvalidArgument for a structurally bad filter: malformed keys, a field condition with no
 * test, negative radius or counts, geo points out of range, unclosed or too short polygon rings,
 * `min_should` needing more matches than it has conditions… and `has_id` inside `nested`.
 */
export function validateFilter(filter: Filter | undefined): void {
  if (filter !== undefined) validateFilterAt(filter, false);
}

function validateFilterAt(filter: Filter, insideNested: boolean): void {
  const minShould = filter.minShould;
  if (minShould !== undefined) {
    if (!Number.isInteger(minShould.minCount) || minShould.minCount < 0) {
      throw invalid(`min_should.min_count must be a non-negative integer, got ${minShould.minCount}`);
    }
    if (minShould.conditions.length === 0 && minShould.minCount > 0) {
      throw invalid('min_should.conditions must not be empty when min_should.min_count is set');
    }
  }
  forEachCondition(filter, (condition) => validateCondition(condition, insideNested));
}

function validateCondition(condition: Condition, insideNested: boolean): void {
  if ('field' in condition) return validateFieldCondition(condition.field);
  if ('isEmpty' in condition) return void parsePath(condition.isEmpty.key);
  if ('isNull' in condition) return void parsePath(condition.isNull.key);
  if ('hasId' in condition) {
    if (insideNested) throw invalid('HasId condition is not supported inside nested filter');
    return;
  }
  if ('hasVector' in condition) {
    if (insideNested) throw invalid('HasVector condition is not supported inside nested filter');
    return;
  }
  if ('slice' in condition) {
    if (insideNested) throw invalid('Slice condition is not supported inside nested filter');
    const { total, index } = condition.slice;
    if (!(Number.isInteger(total) && total >= 1 && total <= 0xffff_ffff))
      throw invalid('slice.total must be 1 or larger');
    if (!(Number.isInteger(index) && index >= 0 && index < total)) {
      throw DomainError.validation(['slice: Slice index must be less than the total number of slices']);
    }
    return;
  }
  if ('ringOwner' in condition) {
    if (insideNested) throw invalid('a ring condition is not supported inside nested filter');
    const { shardIds, owner } = condition.ringOwner;
    if (!Array.isArray(shardIds) || shardIds.length === 0 || !shardIds.includes(owner))
      throw invalid('a ring condition names its owner among its shards');
    return;
  }
  if ('nested' in condition) {
    parsePath(condition.nested.key);
    return validateFilterAt(condition.nested.filter, true);
  }
  validateFilterAt(condition.filter, insideNested);
}

function validateFieldCondition(condition: FieldCondition): void {
  parsePath(condition.key);
  const tests = [
    condition.match,
    condition.range,
    condition.datetimeRange,
    condition.geoBoundingBox,
    condition.geoRadius,
    condition.geoPolygon,
    condition.valuesCount,
    condition.isEmpty,
    condition.isNull,
  ].filter((t) => t !== undefined);
  if (tests.length === 0) {
    throw invalid(`At least one field condition must be specified for key \`${condition.key}\``);
  }
  if (condition.valuesCount !== undefined) {
    for (const [name, bound] of Object.entries(condition.valuesCount)) {
      if (bound !== undefined && (!Number.isInteger(bound) || bound < 0)) {
        throw invalid(`values_count.${name} must be a non-negative integer, got ${String(bound)}`);
      }
    }
  }
  for (const bounds of [condition.range, condition.datetimeRange]) {
    if (bounds === undefined) continue;
    for (const [name, bound] of Object.entries(bounds)) {
      if (bound !== undefined && Number.isNaN(bound)) throw invalid(`range.${name} must be a number`);
    }
  }
  if (condition.geoRadius !== undefined) {
    validateGeoPoint(condition.geoRadius.center);
    if (!(condition.geoRadius.radius >= 0)) {
      throw invalid(`geo_radius.radius must be non-negative, got ${condition.geoRadius.radius}`);
    }
  }
  if (condition.geoBoundingBox !== undefined) {
    validateGeoPoint(condition.geoBoundingBox.topLeft);
    validateGeoPoint(condition.geoBoundingBox.bottomRight);
  }
  if (condition.geoPolygon !== undefined) {
    validateRing(condition.geoPolygon.exterior, 'exterior');
    condition.geoPolygon.interiors.forEach((ring, i) => validateRing(ring, `interiors[${i}]`));
  }
}

function validateGeoPoint(point: GeoPoint): void {
  if (!(point.lon >= -180 && point.lon <= 180 && point.lat >= -90 && point.lat <= 90)) {
    throw invalid(
      `Wrong format of GeoPoint payload: {lon: ${point.lon}, lat: ${point.lat}}. Expected: -180 <= lon <= 180 and -90 <= lat <= 90`,
    );
  }
}

/** Qdrant's polygon rule: at least 4 points, first equal to last (a closed line). */
function validateRing(ring: GeoLineString, name: string): void {
  const points = ring.points;
  if (points.length < 4) {
    throw invalid(`polygon invalid, the size of ${name} must be at least 4, got ${points.length}`);
  }
  points.forEach(validateGeoPoint);
  const first = points[0];
  const last = points[points.length - 1];
  if (first.lon !== last.lon || first.lat !== last.lat) {
    throw invalid(`polygon invalid, the first and the last points of ${name} should be the same to form a closed line`);
  }
}

/**
 * Number of leaf conditions (field, is_empty, is_null, has_id, has_vector), counting through
 * sub-filters and `nested` (strict mode's `filter_max_conditions`).
 */
export function countConditions(filter: Filter | undefined): number {
  if (filter === undefined) return 0;
  let count = 0;
  forEachCondition(filter, (condition) => {
    if ('filter' in condition) count += countConditions(condition.filter);
    else if ('nested' in condition) count += Math.max(1, countConditions(condition.nested.filter));
    else count += 1;
  });
  return count;
}

function matchListSize(match: Match | undefined): number {
  if (match === undefined) return 0;
  if ('keywords' in match) return match.keywords.length;
  if ('integers' in match) return match.integers.length;
  if ('exceptKeywords' in match) return match.exceptKeywords.length;
  if ('exceptIntegers' in match) return match.exceptIntegers.length;
  return 0;
}

/** The longest match-any / match-except list in the filter (strict mode's `condition_max_size`). */
export function maxConditionSize(filter: Filter | undefined): number {
  if (filter === undefined) return 0;
  let max = 0;
  forEachCondition(filter, (condition) => {
    if ('field' in condition) max = Math.max(max, matchListSize(condition.field.match));
    else if ('filter' in condition) max = Math.max(max, maxConditionSize(condition.filter));
    else if ('nested' in condition) max = Math.max(max, maxConditionSize(condition.nested.filter));
  });
  return max;
}
