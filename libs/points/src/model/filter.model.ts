import { PointId } from './point-id.model';

/**
 * A payload filter, as Qdrant's `Filter`: every `must` holds, at least one `should` holds (when any
 * are given), no `mustNot` holds, and at least `minShould.minCount` of `minShould.conditions` hold.
 */
export interface Filter {
  must?: Condition[];
  should?: Condition[];
  mustNot?: Condition[];
  minShould?: { conditions: Condition[]; minCount: number };
}

export type Condition =
  | { field: FieldCondition }
  | { isEmpty: { key: string } }
  | { isNull: { key: string } }
  | { hasId: PointId[] }
  | { hasVector: string }
  | { nested: { key: string; filter: Filter } }
  /** One of `total` disjoint slices of the id space (Qdrant's SipHash of the id, see slice-hash.ts). */
  | { slice: { total: number; index: number } }
  /**
   * Internal (never decoded from a client): the point's owner on the consistent-hash ring over `shardIds` is
   * `owner`. A resharding copies and hides points with it (libs/collections cluster/resharding.ts).
   */
  | { ringOwner: { shardIds: number[]; owner: number } }
  | { filter: Filter };

/**
 * One test on the value(s) at `key` (a JSON path such as `a.b`, `a[].b`, `a[0]`). Exactly one of the
 * optional tests is set. For arrays, a test holds when any element passes it (Qdrant's semantics).
 */
export interface FieldCondition {
  key: string;
  match?: Match;
  range?: Range;
  datetimeRange?: DatetimeRange;
  geoBoundingBox?: GeoBoundingBox;
  geoRadius?: GeoRadius;
  geoPolygon?: GeoPolygon;
  valuesCount?: ValuesCount;
  /** Same as the isEmpty condition when true; its negation when false. */
  isEmpty?: boolean;
  /** Same as the isNull condition when true; its negation when false. */
  isNull?: boolean;
}

export type Match =
  | { keyword: string }
  | { integer: bigint }
  | { boolean: boolean }
  /** Full-text: every token of the query appears (with a text index: its tokenizer; without: substring). */
  | { text: string }
  /** Full-text: any token of the query appears. */
  | { textAny: string }
  /** Full-text: the tokens appear consecutively, in order. */
  | { phrase: string }
  /** Keyword starts with the prefix. */
  | { prefix: string }
  | { keywords: string[] }
  | { integers: bigint[] }
  | { exceptKeywords: string[] }
  | { exceptIntegers: bigint[] };

/** Numeric range; bounds are doubles, compared with integer and float payload values alike. */
export interface Range {
  lt?: number;
  gt?: number;
  gte?: number;
  lte?: number;
}

/** Datetime range in microseconds since the Unix epoch (UTC). */
export interface DatetimeRange {
  lt?: number;
  gt?: number;
  gte?: number;
  lte?: number;
}

export interface GeoPoint {
  lon: number;
  lat: number;
}

export interface GeoBoundingBox {
  topLeft: GeoPoint;
  bottomRight: GeoPoint;
}

export interface GeoRadius {
  center: GeoPoint;
  /** Metres. */
  radius: number;
}

export interface GeoLineString {
  points: GeoPoint[];
}

export interface GeoPolygon {
  exterior: GeoLineString;
  interiors: GeoLineString[];
}

/** Bounds on how many values the key holds (an array counts its elements; a scalar counts 1). */
export interface ValuesCount {
  lt?: number;
  gt?: number;
  gte?: number;
  lte?: number;
}
