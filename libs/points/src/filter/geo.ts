import { isJsonObject, JsonValue } from '@vectorstore/common';
import { GeoBoundingBox, GeoLineString, GeoPoint, GeoPolygon, GeoRadius } from '../model/filter.model';

/** Mean Earth radius in metres (the `geo` crate's, which Qdrant uses for haversine). */
export const EARTH_RADIUS_M = 6_371_008.8;

const toRadians = (degrees: number): number => (degrees * Math.PI) / 180;

/** Great-circle distance in metres. */
export function haversineMetres(a: GeoPoint, b: GeoPoint): number {
  const dLat = toRadians(b.lat - a.lat);
  const dLon = toRadians(b.lon - a.lon);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(toRadians(a.lat)) * Math.cos(toRadians(b.lat)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** A payload value read as a geo point: an object with numeric `lon` and `lat` (doubles or integers). */
export function geoPointOf(value: JsonValue): GeoPoint | undefined {
  if (!isJsonObject(value)) return undefined;
  const lon = value.lon;
  const lat = value.lat;
  const isNumeric = (v: JsonValue | undefined): v is number | bigint => typeof v === 'number' || typeof v === 'bigint';
  if (!isNumeric(lon) || !isNumeric(lat)) return undefined;
  return { lon: Number(lon), lat: Number(lat) };
}

/** Strictly inside the circle (Qdrant: distance < radius). */
export function inGeoRadius(query: GeoRadius, point: GeoPoint): boolean {
  return haversineMetres(query.center, point) < query.radius;
}

/** Strictly inside the box; when `topLeft.lon > bottomRight.lon` the box crosses the antimeridian. */
export function inGeoBoundingBox(box: GeoBoundingBox, point: GeoPoint): boolean {
  const lonInside =
    box.topLeft.lon > box.bottomRight.lon
      ? point.lon > box.topLeft.lon || point.lon < box.bottomRight.lon
      : box.topLeft.lon < point.lon && point.lon < box.bottomRight.lon;
  return lonInside && box.bottomRight.lat < point.lat && point.lat < box.topLeft.lat;
}

/** Inside the exterior ring and outside every interior ring (even-odd ray casting on lon/lat). */
export function inGeoPolygon(polygon: GeoPolygon, point: GeoPoint): boolean {
  if (!inRing(polygon.exterior, point)) return false;
  return !polygon.interiors.some((ring) => inRing(ring, point));
}

function inRing(ring: GeoLineString, point: GeoPoint): boolean {
  const pts = ring.points;
  let inside = false;
  for (let i = 0, j = pts.length - 1; i < pts.length; j = i++) {
    const a = pts[i];
    const b = pts[j];
    if (a.lat > point.lat !== b.lat > point.lat) {
      const lonAtLat = ((b.lon - a.lon) * (point.lat - a.lat)) / (b.lat - a.lat) + a.lon;
      if (point.lon < lonAtLat) inside = !inside;
    }
  }
  return inside;
}

/** Latitude band [min, max] that contains every point the query can match (for index pruning). */
export function latitudeBand(query: {
  geoRadius?: GeoRadius;
  geoBoundingBox?: GeoBoundingBox;
  geoPolygon?: GeoPolygon;
}): [number, number] | undefined {
  if (query.geoRadius !== undefined) {
    // Any great-circle path is at least as long as its meridional component.
    const delta = (query.geoRadius.radius / EARTH_RADIUS_M) * (180 / Math.PI);
    return [query.geoRadius.center.lat - delta - 1e-9, query.geoRadius.center.lat + delta + 1e-9];
  }
  if (query.geoBoundingBox !== undefined) {
    return [query.geoBoundingBox.bottomRight.lat, query.geoBoundingBox.topLeft.lat];
  }
  if (query.geoPolygon !== undefined) {
    const lats = query.geoPolygon.exterior.points.map((p) => p.lat);
    return [Math.min(...lats), Math.max(...lats)];
  }
  return undefined;
}
