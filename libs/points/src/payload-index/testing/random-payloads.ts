import { JsonObject, JsonValue } from '@vectorstore/common';
import { Condition, FieldCondition, Filter, Match } from '../../model/filter.model';

export const KEYWORDS = ['red', 'green', 'blue', 'Red', 'teal', 'navy', 'rose', 'redwood'];
export const WORDS = [
  'the',
  'quick',
  'brown',
  'fox',
  'jumps',
  'over',
  'lazy',
  'dogs',
  'running',
  'runner',
  'café',
  'Über',
  'naïve',
  'and',
  'of',
];
const BIG = 1n << 60n;
const INTS = [0n, 1n, 2n, 3n, 5n, 8n, -4n, BIG, BIG + 1n, 9007199254740993n];

export class PayloadGenerator {
  constructor(readonly random: () => number) {}

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.random() * items.length)];
  }

  chance(p: number): boolean {
    return this.random() < p;
  }

  int(): bigint {
    return this.chance(0.7) ? BigInt(Math.floor(this.random() * 20) - 5) : this.pick(INTS);
  }

  float(): number {
    return Math.round((this.random() * 200 - 100) * 100) / 100;
  }

  geo(): JsonObject {
    return { lon: this.random() * 360 - 180, lat: this.random() * 180 - 90 };
  }

  datetime(): string {
    const ms = Date.UTC(2020, 0, 1) + Math.floor(this.random() * 3 * 365 * 86_400_000);
    const iso = new Date(ms).toISOString();
    switch (Math.floor(this.random() * 5)) {
      case 0:
        return iso.slice(0, 10);
      case 1:
        return iso.replace('Z', '+02:30');
      case 2:
        return iso.slice(0, 19).replace('T', ' ');
      case 3:
        return iso.replace(/\.\d+Z$/, '.123456Z');
      default:
        return iso;
    }
  }

  sentence(): string {
    const n = 1 + Math.floor(this.random() * 6);
    return Array.from({ length: n }, () => this.pick(WORDS)).join(this.chance(0.8) ? ' ' : ', ');
  }

  /** A value of the field's "own" type most of the time, with nulls, arrays, and stray types. */
  private field(make: () => JsonValue): JsonValue | undefined {
    const r = this.random();
    if (r < 0.1) return undefined;
    if (r < 0.15) return null;
    if (r < 0.2) return [];
    if (r < 0.35)
      return Array.from({ length: 1 + Math.floor(this.random() * 3) }, () => (this.chance(0.1) ? null : make()));
    if (r < 0.4) return this.pick<JsonValue>(['red', 3n, 2.5, true, { lon: 1, lat: 2 }, [[1n]]]);
    return make();
  }

  payload(): JsonObject {
    const out: JsonObject = {};
    const set = (key: string, value: JsonValue | undefined): void => {
      if (value !== undefined) out[key] = value;
    };
    set(
      'kw',
      this.field(() => this.pick(KEYWORDS)),
    );
    set(
      'uuid',
      this.field(() => `0000000${Math.floor(this.random() * 5)}-0000-4000-8000-000000000000`),
    );
    set(
      'int',
      this.field(() => this.int()),
    );
    set(
      'flt',
      this.field(() => (this.chance(0.8) ? this.float() : this.int())),
    );
    set(
      'flag',
      this.field(() => this.chance(0.5)),
    );
    set(
      'loc',
      this.field(() => this.geo()),
    );
    set(
      'ts',
      this.field(() => this.datetime()),
    );
    set(
      'txt',
      this.field(() => this.sentence()),
    );
    set(
      'pre',
      this.field(() => this.sentence()),
    );
    if (this.chance(0.8)) out.obj = { a: this.chance(0.9) ? { b: this.field(() => this.pick(KEYWORDS)) ?? null } : 7n };
    if (this.chance(0.8)) {
      out.arr = Array.from({ length: Math.floor(this.random() * 4) }, () => {
        const element: JsonObject = {};
        if (this.chance(0.9)) element.x = this.int();
        if (this.chance(0.9)) element.y = this.pick(KEYWORDS);
        if (this.chance(0.5)) element.t = this.sentence();
        return element;
      });
    }
    return out;
  }

  // --- conditions ---

  match(key: string): Match {
    switch (key) {
      case 'kw':
      case 'obj.a.b':
      case 'arr[].y': {
        const kind = Math.floor(this.random() * 6);
        if (kind === 0) return { keyword: this.pick(KEYWORDS) };
        if (kind === 1) return { keywords: [this.pick(KEYWORDS), this.pick(KEYWORDS)] };
        if (kind === 2) return { exceptKeywords: [this.pick(KEYWORDS), this.pick(KEYWORDS)] };
        if (kind === 3) return { prefix: this.pick(['re', 'r', 'gr', 'x', '']) };
        if (kind === 4) return { text: this.pick(['ed', 're', 'e']) };
        return { integer: 3n };
      }
      case 'uuid':
        return this.chance(0.5)
          ? { keyword: `0000000${Math.floor(this.random() * 5)}-0000-4000-8000-000000000000` }
          : { exceptKeywords: ['00000001-0000-4000-8000-000000000000'] };
      case 'int':
      case 'arr[].x': {
        const kind = Math.floor(this.random() * 4);
        if (kind === 0) return { integer: this.int() };
        if (kind === 1) return { integers: [this.int(), this.int(), this.int()] };
        if (kind === 2) return { exceptIntegers: [this.int(), this.int()] };
        return { keyword: 'red' };
      }
      case 'flag':
        return { boolean: this.chance(0.5) };
      default: {
        const q = `${this.pick(WORDS)} ${this.chance(0.5) ? this.pick(WORDS) : ''}`.trim();
        const kind = Math.floor(this.random() * 4);
        if (kind === 0) return { text: q };
        if (kind === 1) return { textAny: q };
        if (kind === 2) return { phrase: q };
        return { prefix: this.pick(['ru', 'qu', 'caf', 'ub', 'the', 'x']) };
      }
    }
  }

  range(): { gt?: number; gte?: number; lt?: number; lte?: number } {
    const a = this.float() / 10;
    const b = a + this.random() * 10;
    const r: { gt?: number; gte?: number; lt?: number; lte?: number } = {};
    if (this.chance(0.7)) r[this.chance(0.5) ? 'gt' : 'gte'] = Math.round(a);
    if (this.chance(0.7)) r[this.chance(0.5) ? 'lt' : 'lte'] = Math.round(b);
    if (this.chance(0.05)) r.gte = Number(BIG);
    return r;
  }

  fieldCondition(): FieldCondition {
    const key = this.pick([
      'kw',
      'uuid',
      'int',
      'flt',
      'flag',
      'loc',
      'ts',
      'txt',
      'pre',
      'obj.a.b',
      'arr[].x',
      'arr[].y',
      'arr[].t',
      'missing',
    ]);
    const r = this.random();
    if (r < 0.06) return { key, valuesCount: this.chance(0.5) ? { gte: 2 } : { lt: 1 } };
    if (r < 0.1) return { key, isEmpty: this.chance(0.5) };
    if (r < 0.14) return { key, isNull: this.chance(0.5) };
    switch (key) {
      case 'int':
      case 'flt':
      case 'arr[].x':
        return this.chance(0.5) || key === 'flt' ? { key, range: this.range() } : { key, match: this.match(key) };
      case 'loc': {
        const kind = Math.floor(this.random() * 3);
        const center = { lon: this.random() * 360 - 180, lat: this.random() * 160 - 80 };
        if (kind === 0) return { key, geoRadius: { center, radius: 500_000 + this.random() * 4_000_000 } };
        if (kind === 1) {
          // A third of the boxes cross the antimeridian (west edge east of the east edge).
          const crossing = this.chance(0.3);
          const west = crossing ? 100 + this.random() * 80 : center.lon;
          const east = crossing ? -180 + this.random() * 80 : Math.min(180, west + 60);
          return {
            key,
            geoBoundingBox: {
              topLeft: { lon: west, lat: Math.min(90, center.lat + 30) },
              bottomRight: { lon: east, lat: Math.max(-90, center.lat - 30) },
            },
          };
        }
        const c = { lon: Math.max(-130, Math.min(130, center.lon)), lat: Math.max(-60, Math.min(60, center.lat)) };
        const ring = (s: number) => [
          { lon: c.lon - s, lat: c.lat - s / 2 },
          { lon: c.lon + s, lat: c.lat - s / 2 },
          { lon: c.lon + s, lat: c.lat + s / 2 },
          { lon: c.lon - s, lat: c.lat + s / 2 },
          { lon: c.lon - s, lat: c.lat - s / 2 },
        ];
        return {
          key,
          geoPolygon: { exterior: { points: ring(40) }, interiors: this.chance(0.5) ? [{ points: ring(10) }] : [] },
        };
      }
      case 'ts': {
        const from = Date.UTC(2020, 0, 1) * 1000 + Math.floor(this.random() * 2 * 365 * 86_400) * 1_000_000;
        return { key, datetimeRange: { gte: from, lt: from + Math.floor(this.random() * 365 * 86_400) * 1_000_000 } };
      }
      default:
        return { key, match: this.match(key) };
    }
  }

  condition(depth: number): Condition {
    const r = this.random();
    if (depth < 2 && r < 0.08) return { filter: this.filter(depth + 1) };
    if (depth < 2 && r < 0.16) {
      const inner: FieldCondition = this.chance(0.5)
        ? { key: 'x', ...(this.chance(0.5) ? { range: this.range() } : { match: { integer: this.int() } }) }
        : {
            key: this.chance(0.5) ? 'y' : 't',
            match: this.chance(0.5) ? { keyword: this.pick(KEYWORDS) } : { text: this.pick(WORDS) },
          };
      const second: FieldCondition = { key: 'y', match: { keywords: [this.pick(KEYWORDS), this.pick(KEYWORDS)] } };
      return {
        nested: {
          key: 'arr',
          filter: { must: this.chance(0.5) ? [{ field: inner }, { field: second }] : [{ field: inner }] },
        },
      };
    }
    if (r < 0.2) return { isEmpty: { key: this.pick(['kw', 'int', 'arr', 'missing', 'obj.a.b']) } };
    if (r < 0.24) return { isNull: { key: this.pick(['kw', 'int', 'obj.a.b']) } };
    if (r < 0.27) return { hasId: [BigInt(Math.floor(this.random() * 50)), BigInt(Math.floor(this.random() * 50))] };
    return { field: this.fieldCondition() };
  }

  filter(depth = 0): Filter {
    const list = (max: number): Condition[] =>
      Array.from({ length: Math.floor(this.random() * (max + 1)) }, () => this.condition(depth));
    const filter: Filter = {};
    if (this.chance(0.8)) filter.must = list(3);
    if (this.chance(0.4)) filter.should = list(3);
    if (this.chance(0.3)) filter.mustNot = list(2);
    if (this.chance(0.15)) {
      const conditions = list(3);
      filter.minShould = { conditions, minCount: Math.min(conditions.length, 1 + Math.floor(this.random() * 2)) };
    }
    return filter;
  }
}
