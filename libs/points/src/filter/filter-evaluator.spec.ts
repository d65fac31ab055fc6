import { JsonObject } from '@vectorstore/common';
import { Condition, FieldCondition, Filter } from '../model/filter.model';
import { FieldSchemas, matchesFilter } from './filter-evaluator';
import { parseDatetimeMicros } from './datetime';

const point = (payload: JsonObject, id: bigint | string = 1n) => ({
  id,
  payload,
  hasVector: (name: string) => name === 'image',
});
const field = (condition: FieldCondition): Filter => ({ must: [{ field: condition }] });
const holds = (filter: Filter, payload: JsonObject, schemas?: FieldSchemas) =>
  matchesFilter(filter, point(payload), schemas);

describe(matchesFilter.name, () => {
  describe('clauses', () => {
    const red: Condition = { field: { key: 'color', match: { keyword: 'red' } } };
    const big: Condition = { field: { key: 'size', range: { gte: 10 } } };

    it('should match everything with an absent or empty filter', () => {
      expect(matchesFilter(undefined, point({}))).toBe(true);
      expect(holds({}, {})).toBe(true);
      expect(holds({ must: [], should: [], mustNot: [] }, {})).toBe(true);
    });

    it('should combine must, should, must_not and min_should', () => {
      const p = { color: 'red', size: 5n };
      expect(holds({ must: [red, big] }, p)).toBe(false);
      expect(holds({ should: [red, big] }, p)).toBe(true);
      expect(holds({ mustNot: [big] }, p)).toBe(true);
      expect(holds({ minShould: { conditions: [red, big], minCount: 2 } }, p)).toBe(false);
      expect(holds({ minShould: { conditions: [red, big], minCount: 1 } }, p)).toBe(true);
      expect(holds({ must: [{ filter: { should: [big] } }] }, p)).toBe(false);
    });
  });

  describe('is_empty / is_null', () => {
    const isEmpty: Filter = { must: [{ isEmpty: { key: 'f' } }] };
    const isNull: Filter = { must: [{ isNull: { key: 'f' } }] };

    it.each([
      [{}, true, false],
      [{ f: null }, true, true],
      [{ f: [] }, true, false],
      [{ f: [null] }, false, false],
      [{ f: 0n }, false, false],
      [{ f: '' }, false, false],
    ])('should treat %p as empty=%p null=%p', (payload, empty, isNullValue) => {
      expect(holds(isEmpty, payload as JsonObject)).toBe(empty);
      expect(holds(isNull, payload as JsonObject)).toBe(isNullValue);
    });

    it('should follow Qdrant for the field-condition flags on missing keys and [null]', () => {
      expect(holds(field({ key: 'f', isEmpty: true }), {})).toBe(true);
      expect(holds(field({ key: 'f', isNull: true }), {})).toBe(false);
      expect(holds(field({ key: 'f', isNull: false }), {})).toBe(true);
      expect(holds(field({ key: 'f', isNull: true }), { f: [1n, null] })).toBe(true);
    });
  });

  describe('match', () => {
    it('should match any element of an array', () => {
      expect(holds(field({ key: 'tags', match: { keyword: 'b' } }), { tags: ['a', 'b'] })).toBe(true);
      expect(holds(field({ key: 'n', match: { integers: [7n, 9n] } }), { n: [1n, 9n] })).toBe(true);
      expect(holds(field({ key: 'ok', match: { boolean: false } }), { ok: [true, false] })).toBe(true);
    });

    it('should keep integers and floats apart', () => {
      expect(holds(field({ key: 'n', match: { integer: 3n } }), { n: 3 })).toBe(false);
      expect(holds(field({ key: 'n', match: { integer: 9007199254740993n } }), { n: 9007199254740993n })).toBe(true);
      expect(holds(field({ key: 'n', match: { integer: 9007199254740993n } }), { n: 9007199254740992n })).toBe(false);
    });

    it('should apply except only to present, non-null values', () => {
      const except = field({ key: 'c', match: { exceptKeywords: ['red'] } });
      expect(holds(except, { c: 'blue' })).toBe(true);
      expect(holds(except, { c: 'red' })).toBe(false);
      expect(holds(except, { c: ['red', 'blue'] })).toBe(true);
      expect(holds(except, {})).toBe(false);
      expect(holds(except, { c: null })).toBe(false);
      expect(holds(except, { c: [] })).toBe(false);
      expect(holds(except, { c: 5n })).toBe(true);
      expect(holds(field({ key: 'n', match: { exceptIntegers: [1n] } }), { n: 1.5 })).toBe(true);
    });

    it('should use substring semantics for text without a text index', () => {
      expect(holds(field({ key: 't', match: { text: 'own fo' } }), { t: 'brown fox' })).toBe(true);
      expect(holds(field({ key: 't', match: { text: 'fox brown' } }), { t: 'brown fox' })).toBe(false);
      expect(holds(field({ key: 't', match: { textAny: 'cat fox' } }), { t: 'brown fox' })).toBe(true);
      expect(holds(field({ key: 't', match: { prefix: 'bro' } }), { t: 'brown fox' })).toBe(true);
    });

    it('should use the text index analysis when the field has one', () => {
      const schemas: FieldSchemas = new Map([
        [
          't',
          {
            type: 'Text',
            params: {
              text: {
                tokenizer: 'Word',
                stemmer: { snowball: { language: 'english' } },
                stopwords: { languages: ['english'], custom: [] },
              },
            },
          },
        ],
      ]);
      const p = { t: 'The Dogs were Running fast' };
      expect(holds(field({ key: 't', match: { text: 'run dog' } }), p, schemas)).toBe(true);
      expect(holds(field({ key: 't', match: { text: 'run cat' } }), p, schemas)).toBe(false);
      expect(holds(field({ key: 't', match: { textAny: 'run cat' } }), p, schemas)).toBe(true);
      expect(holds(field({ key: 't', match: { phrase: 'were running' } }), p, schemas)).toBe(true);
      expect(holds(field({ key: 't', match: { phrase: 'running dogs' } }), p, schemas)).toBe(false);
      // Only stopwords: nothing left to match.
      expect(holds(field({ key: 't', match: { text: 'the' } }), p, schemas)).toBe(false);
    });
  });

  describe('range / values_count / datetime_range', () => {
    it('should compare integers and floats as doubles', () => {
      expect(holds(field({ key: 'n', range: { gt: 2.5, lte: 3 } }), { n: 3n })).toBe(true);
      expect(holds(field({ key: 'n', range: { gt: 2.5, lte: 3 } }), { n: 3.01 })).toBe(false);
      expect(holds(field({ key: 'n', range: { gte: 2 ** 60 } }), { n: 1n << 60n })).toBe(true);
      expect(holds(field({ key: 'n', range: { gte: 0 } }), { n: '5' })).toBe(false);
    });

    it('should count array elements, and a missing key as 0 values (as Qdrant 1.19)', () => {
      expect(holds(field({ key: 'a', valuesCount: { gte: 2 } }), { a: [1n, 2n] })).toBe(true);
      expect(holds(field({ key: 'a', valuesCount: { gt: 1 } }), { a: 'x' })).toBe(false);
      expect(holds(field({ key: 'a', valuesCount: { lt: 1 } }), {})).toBe(true);
      expect(holds(field({ key: 'a', valuesCount: { gte: 1 } }), {})).toBe(false);
      expect(holds(field({ key: 'a', valuesCount: { lt: 1 } }), { a: null })).toBe(true);
    });

    it('should parse datetimes with offsets, fractions and bare dates', () => {
      const at = parseDatetimeMicros('2023-02-08T10:49:00Z')!;
      expect(parseDatetimeMicros('2023-02-08T11:49:00+01:00')).toBe(at);
      expect(parseDatetimeMicros('2023-02-08 10:49:00')).toBe(at);
      expect(parseDatetimeMicros('2023-02-08T10:49')).toBe(at);
      expect(parseDatetimeMicros('2023-02-08T10:49:00.000123Z')).toBe(at + 123);
      expect(parseDatetimeMicros('2023-02-08')).toBe(Date.UTC(2023, 1, 8) * 1000);
      expect(parseDatetimeMicros('2023-02-30')).toBeUndefined();
      expect(parseDatetimeMicros('yesterday')).toBeUndefined();
      expect(
        holds(field({ key: 'd', datetimeRange: { gte: at, lt: at + 1 } }), { d: '2023-02-08T05:49:00-05:00' }),
      ).toBe(true);
    });
  });

  describe('geo', () => {
    const berlin = { lon: 13.405, lat: 52.52 };

    it('should test radius with haversine metres', () => {
      const near = field({ key: 'loc', geoRadius: { center: { lon: 13.42, lat: 52.51 }, radius: 2000 } });
      expect(holds(near, { loc: berlin })).toBe(true);
      expect(holds(near, { loc: [{ lon: 37.6, lat: 55.75 }, berlin] })).toBe(true);
      expect(holds(near, { loc: { lon: 20, lat: 52.5 } })).toBe(false);
    });

    it('should handle boxes crossing the antimeridian', () => {
      const box = field({
        key: 'loc',
        geoBoundingBox: { topLeft: { lon: 170, lat: 10 }, bottomRight: { lon: -170, lat: -10 } },
      });
      expect(holds(box, { loc: { lon: 175, lat: 0 } })).toBe(true);
      expect(holds(box, { loc: { lon: -175, lat: 0 } })).toBe(true);
      expect(holds(box, { loc: { lon: 0, lat: 0 } })).toBe(false);
    });

    it('should exclude polygon holes', () => {
      const square = (s: number) => ({
        points: [
          { lon: -s, lat: -s },
          { lon: s, lat: -s },
          { lon: s, lat: s },
          { lon: -s, lat: s },
          { lon: -s, lat: -s },
        ],
      });
      const poly = field({ key: 'loc', geoPolygon: { exterior: square(10), interiors: [square(2)] } });
      expect(holds(poly, { loc: { lon: 5, lat: 5 } })).toBe(true);
      expect(holds(poly, { loc: { lon: 1, lat: 1 } })).toBe(false);
      expect(holds(poly, { loc: { lon: 11, lat: 0 } })).toBe(false);
      expect(holds(poly, { loc: { lon: 5n, lat: 5n } })).toBe(true);
    });
  });

  describe('nested / has_id / has_vector', () => {
    const payload = {
      items: [
        { color: 'red', size: 1n },
        { color: 'blue', size: 9n },
      ],
    };

    it('should require one element to satisfy the whole inner filter', () => {
      const both = (color: string, size: number): Filter => ({
        must: [
          {
            nested: {
              key: 'items',
              filter: {
                must: [
                  { field: { key: 'color', match: { keyword: color } } },
                  { field: { key: 'size', range: { gte: size } } },
                ],
              },
            },
          },
        ],
      });
      expect(holds(both('blue', 5), payload)).toBe(true);
      expect(holds(both('red', 5), payload)).toBe(false);
      // The flat equivalent matches across elements.
      expect(
        holds(
          {
            must: [
              { field: { key: 'items[].color', match: { keyword: 'red' } } },
              { field: { key: 'items[].size', range: { gte: 5 } } },
            ],
          },
          payload,
        ),
      ).toBe(true);
    });

    it('should never hold has_id inside nested and check ids and vectors outside', () => {
      expect(holds({ must: [{ nested: { key: 'items', filter: { must: [{ hasId: [1n] }] } } }] }, payload)).toBe(false);
      expect(holds({ must: [{ hasId: [1n, 'x'] }] }, payload)).toBe(true);
      expect(holds({ must: [{ hasId: [2n] }] }, payload)).toBe(false);
      expect(holds({ must: [{ hasVector: 'image' }] }, payload)).toBe(true);
      expect(holds({ must: [{ hasVector: 'text' }] }, payload)).toBe(false);
    });
  });

  describe('slice', () => {
    it("should put a point in exactly one slice of a total, by Qdrant's id hash", () => {
      for (const id of [0n, 42n, 7n, '550e8400-e29b-41d4-a716-446655440000']) {
        const slices = [0, 1, 2].filter((index) =>
          matchesFilter({ must: [{ slice: { total: 3, index } }] }, point({}, id)),
        );
        expect(slices).toHaveLength(1);
        expect(matchesFilter({ mustNot: [{ slice: { total: 3, index: slices[0] } }] }, point({}, id))).toBe(false);
      }
    });
  });
});
