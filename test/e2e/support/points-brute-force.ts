/**
 * An independent, deliberately naive evaluator of Qdrant filters over plain JSON payloads, written from Qdrant's
 * documented semantics (not from the server's code). Filters use the proto-loader request shape (camelCase, oneofs as
 * plain fields), so the same object is sent to the server and evaluated here.
 */
import { Json, JsonObject } from './points-helpers';

export interface BrutePoint {
  key: string; // 'n:<num>' or 'u:<uuid>'
  payload: JsonObject;
  vectors: Record<string, number[]>;
}

export interface EvalOptions {
  /** Fields with a full-text index: `match.text` means "all query tokens present" (lower-cased words) instead of substring. */
  textIndexed?: ReadonlySet<string>;
}

type Obj = Record<string, unknown>;

const EARTH_RADIUS_M = 6371008.8;

/** Values at a path. `a.b` walks objects (and objects inside arrays along the way); `a[].b` takes each array element. The final value is not flattened. */
export function valuesAt(payload: Json, path: string): Json[] {
  const parts = path.split('.');
  let current: Json[] = [payload];
  for (const raw of parts) {
    const isArray = raw.endsWith('[]');
    const key = isArray ? raw.slice(0, -2) : raw;
    const next: Json[] = [];
    for (const value of current) {
      const objects = Array.isArray(value) ? value : [value];
      for (const o of objects) {
        if (o === null || typeof o !== 'object' || Array.isArray(o) || typeof o === 'bigint') continue;
        const child = (o as JsonObject)[key];
        if (child === undefined) continue;
        if (isArray) {
          if (Array.isArray(child)) next.push(...child);
        } else {
          next.push(child);
        }
      }
    }
    current = next;
  }
  return current;
}

const isInt = (v: Json): v is number | bigint =>
  typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v));
const isNum = (v: Json): v is number | bigint => typeof v === 'number' || typeof v === 'bigint';
const elements = (v: Json): Json[] => (Array.isArray(v) ? v : [v]);

function haversine(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLon = (lon2 - lon1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(a)));
}

export function geoDistance(a: { lon: number; lat: number }, b: { lon: number; lat: number }): number {
  return haversine(a.lon, a.lat, b.lon, b.lat);
}

function inRing(ring: Array<{ lon: number; lat: number }>, lon: number, lat: number): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const a = ring[i];
    const b = ring[j];
    if (a.lat > lat !== b.lat > lat && lon < ((b.lon - a.lon) * (lat - a.lat)) / (b.lat - a.lat) + a.lon)
      inside = !inside;
  }
  return inside;
}

function asGeo(v: Json): { lon: number; lat: number } | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v) || typeof v === 'bigint') return undefined;
  const { lon, lat } = v as JsonObject;
  return typeof lon === 'number' && typeof lat === 'number' ? { lon, lat } : undefined;
}

const timestampMs = (t: { seconds?: string | number; nanos?: number }) =>
  Number(t.seconds ?? 0) * 1000 + (t.nanos ?? 0) / 1e6;

const words = (s: string) =>
  s
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);

function checkRange(x: number, r: Obj): boolean {
  return (
    (r.lt === undefined || x < Number(r.lt)) &&
    (r.gt === undefined || x > Number(r.gt)) &&
    (r.lte === undefined || x <= Number(r.lte)) &&
    (r.gte === undefined || x >= Number(r.gte))
  );
}

/** One scalar (already taken out of an array) against a match. */
function matchOne(v: Json, match: Obj, key: string, options: EvalOptions): boolean {
  if (match.keyword !== undefined) return v === match.keyword;
  if (match.integer !== undefined) return isInt(v) && BigInt(v) === BigInt(match.integer as string);
  if (match.boolean !== undefined) return v === match.boolean;
  if (match.text !== undefined) {
    if (typeof v !== 'string') return false;
    if (options.textIndexed?.has(key)) {
      const have = new Set(words(v));
      return words(match.text as string).every((w) => have.has(w));
    }
    return v.includes(match.text as string);
  }
  if (match.keywords !== undefined)
    return typeof v === 'string' && ((match.keywords as Obj).strings as string[]).includes(v);
  if (match.integers !== undefined)
    return (
      isInt(v) && ((match.integers as Obj).integers as Array<string | number>).some((i) => BigInt(i) === BigInt(v))
    );
  if (match.exceptKeywords !== undefined) {
    if (v === null) return false;
    return typeof v !== 'string' || !((match.exceptKeywords as Obj).strings as string[]).includes(v);
  }
  if (match.exceptIntegers !== undefined) {
    if (v === null) return false;
    return (
      !isInt(v) ||
      !((match.exceptIntegers as Obj).integers as Array<string | number>).some((i) => BigInt(i) === BigInt(v))
    );
  }
  throw new Error(`unsupported match ${JSON.stringify(match)}`);
}

function fieldCondition(payload: JsonObject, c: Obj, options: EvalOptions): boolean {
  const key = c.key as string;
  const values = valuesAt(payload, key);
  if (c.valuesCount !== undefined) {
    const count = (v: Json) => (v === null ? 0 : Array.isArray(v) ? v.length : 1);
    const vc = c.valuesCount as Obj;
    const ok = (n: number) =>
      (vc.lt === undefined || n < Number(vc.lt)) &&
      (vc.gt === undefined || n > Number(vc.gt)) &&
      (vc.lte === undefined || n <= Number(vc.lte)) &&
      (vc.gte === undefined || n >= Number(vc.gte));
    // A missing field holds 0 values (Qdrant 1.19, qdrant/qdrant#9586).
    return values.length === 0 ? ok(0) : values.some((v) => ok(count(v)));
  }
  const scalars = values.flatMap(elements);
  if (c.match !== undefined) return scalars.some((v) => matchOne(v, c.match as Obj, key, options));
  if (c.range !== undefined) return scalars.some((v) => isNum(v) && checkRange(Number(v), c.range as Obj));
  if (c.datetimeRange !== undefined) {
    const r = c.datetimeRange as Record<string, { seconds?: string; nanos?: number } | undefined>;
    const bounds: Obj = {};
    for (const k of ['lt', 'gt', 'lte', 'gte']) if (r[k]) bounds[k] = timestampMs(r[k]!);
    return scalars.some(
      (v) => typeof v === 'string' && !Number.isNaN(Date.parse(v)) && checkRange(Date.parse(v), bounds),
    );
  }
  const geos = scalars.map(asGeo).filter((g): g is { lon: number; lat: number } => g !== undefined);
  if (c.geoRadius !== undefined) {
    const r = c.geoRadius as { center: { lon: number; lat: number }; radius: number };
    return geos.some((g) => geoDistance(r.center, g) < r.radius);
  }
  if (c.geoBoundingBox !== undefined) {
    const b = c.geoBoundingBox as { topLeft: { lon: number; lat: number }; bottomRight: { lon: number; lat: number } };
    return geos.some(
      (g) =>
        g.lon >= b.topLeft.lon && g.lon <= b.bottomRight.lon && g.lat <= b.topLeft.lat && g.lat >= b.bottomRight.lat,
    );
  }
  if (c.geoPolygon !== undefined) {
    const p = c.geoPolygon as {
      exterior: { points: Array<{ lon: number; lat: number }> };
      interiors?: Array<{ points: Array<{ lon: number; lat: number }> }>;
    };
    return geos.some(
      (g) =>
        inRing(p.exterior.points, g.lon, g.lat) &&
        !(p.interiors ?? []).some((hole) => inRing(hole.points, g.lon, g.lat)),
    );
  }
  throw new Error(`unsupported field condition ${JSON.stringify(c)}`);
}

function condition(
  point: BrutePoint,
  payload: JsonObject,
  c: Obj,
  options: EvalOptions,
  nestedLevel: boolean,
): boolean {
  if (c.field !== undefined) return fieldCondition(payload, c.field as Obj, options);
  if (c.isEmpty !== undefined) {
    const values = valuesAt(payload, (c.isEmpty as Obj).key as string);
    return values.every((v) => v === null || (Array.isArray(v) && v.length === 0));
  }
  if (c.isNull !== undefined) return valuesAt(payload, (c.isNull as Obj).key as string).some((v) => v === null);
  if (c.hasId !== undefined) {
    if (nestedLevel) return false;
    const ids = ((c.hasId as Obj).hasId as Array<{ num?: string; uuid?: string }>).map((id) =>
      id.num !== undefined ? `n:${id.num}` : `u:${id.uuid!.toLowerCase()}`,
    );
    return ids.includes(point.key);
  }
  if (c.hasVector !== undefined)
    return !nestedLevel && point.vectors[(c.hasVector as Obj).hasVector as string] !== undefined;
  if (c.filter !== undefined) return evaluate(point, payload, c.filter as Obj, options, nestedLevel);
  if (c.nested !== undefined) {
    const { key, filter } = c.nested as { key: string; filter: Obj };
    const objects = valuesAt(payload, key)
      .flatMap(elements)
      .filter((o) => o !== null && typeof o === 'object' && !Array.isArray(o));
    return objects.some((o) => evaluate(point, o as JsonObject, filter, options, true));
  }
  throw new Error(`unsupported condition ${JSON.stringify(c)}`);
}

function evaluate(
  point: BrutePoint,
  payload: JsonObject,
  filter: Obj,
  options: EvalOptions,
  nestedLevel: boolean,
): boolean {
  const check = (c: Obj) => condition(point, payload, c, options, nestedLevel);
  const should = (filter.should as Obj[] | undefined) ?? [];
  const must = (filter.must as Obj[] | undefined) ?? [];
  const mustNot = (filter.mustNot as Obj[] | undefined) ?? [];
  const minShould = filter.minShould as { conditions: Obj[]; minCount: number | string } | undefined;
  if (should.length > 0 && !should.some(check)) return false;
  if (minShould && minShould.conditions.filter(check).length < Number(minShould.minCount)) return false;
  if (!must.every(check)) return false;
  if (mustNot.some(check)) return false;
  return true;
}

/** Whether `point` passes `filter` (proto-loader request shape). */
export function matches(point: BrutePoint, filter: object, options: EvalOptions = {}): boolean {
  return evaluate(point, point.payload, filter as Obj, options, false);
}
