import { JsonValue } from '@vectorstore/common';
import type { PayloadIndexParams } from '@vectorstore/collections';
import { FieldCondition, GeoPoint } from '../model/filter.model';
import { geoPointOf, inGeoBoundingBox, inGeoPolygon, inGeoRadius, latitudeBand } from '../filter/geo';
import { FieldIndexBase, singleTest } from './field-index-base';
import { EMPTY_SLOTS, lowerBound, sortedSlots } from './slot-sets';

/**
 * Geo index: points sorted by latitude. A query first narrows to the latitude band that can match
 * (exact for boxes and polygons, a safe bound for circles), then checks each point with the same
 * predicates as the plain evaluator.
 */
export class GeoIndex extends FieldIndexBase<GeoPoint> {
  private lats = new Float64Array(0);
  private entries: { point: GeoPoint; slot: number }[] = [];
  private dirty = false;

  constructor(field: string, params: PayloadIndexParams | undefined) {
    super(field, 'Geo', params);
  }

  protected extract(value: JsonValue): GeoPoint | undefined {
    return geoPointOf(value);
  }

  protected insertValues(): void {
    this.dirty = true;
  }

  protected deleteValues(): void {
    this.dirty = true;
  }

  private rebuild(): void {
    if (!this.dirty) return;
    const entries: { point: GeoPoint; slot: number }[] = [];
    for (const [slot, points] of this.perSlot) for (const point of points) entries.push({ point, slot });
    entries.sort((a, b) => a.point.lat - b.point.lat);
    this.entries = entries;
    this.lats = Float64Array.from(entries, (e) => e.point.lat);
    this.dirty = false;
  }

  filter(condition: FieldCondition): Uint32Array | undefined {
    if (singleTest(condition) !== 'geo') return undefined;
    const band = latitudeBand(condition);
    if (band === undefined) return undefined;
    this.rebuild();
    const from = lowerBound(this.lats, band[0], false);
    const to = lowerBound(this.lats, band[1], true);
    if (from >= to) return EMPTY_SLOTS;
    const test = (p: GeoPoint): boolean =>
      condition.geoRadius !== undefined
        ? inGeoRadius(condition.geoRadius, p)
        : condition.geoBoundingBox !== undefined
          ? inGeoBoundingBox(condition.geoBoundingBox, p)
          : condition.geoPolygon !== undefined && inGeoPolygon(condition.geoPolygon, p);
    const out = new Set<number>();
    for (let i = from; i < to; i++) {
      const entry = this.entries[i];
      if (!out.has(entry.slot) && test(entry.point)) out.add(entry.slot);
    }
    return sortedSlots(out);
  }
}
