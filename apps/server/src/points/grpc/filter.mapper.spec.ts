import type { Filter } from '@vectorstore/points';
import type { CountPoints__Output } from '../../grpc/generated/vectorstore/CountPoints';
import type { Filter as ProtoFilter } from '../../grpc/generated/vectorstore/Filter';
import { countPointsFromProto } from './points-read.mapper';
import { filterFromProto } from './filter.mapper';
import { pointIdFromProto, pointIdsFromProto, pointIdToProto } from './point-id.mapper';
import { collect, issuesOf, wireRequest } from './points-wire.spec-helper';

/** A filter sent through Count, as the server receives it. */
function filterOverWire(filter: ProtoFilter): Filter | undefined {
  return countPointsFromProto(wireRequest<CountPoints__Output>('Count', { collectionName: 'c', filter })).request
    .filter;
}

const field = (key: string, rest: object) => ({ field: { key, ...rest } });

describe('pointIdFromProto', () => {
  it('should map num to bigint, including values above 2^53', () => {
    expect(
      collect((i) => pointIdFromProto(i, 'id', { num: '18446744073709551615', pointIdOptions: 'num' })).value,
    ).toBe(18446744073709551615n);
  });

  it('should canonicalize uuids', () => {
    const { value } = collect((i) =>
      pointIdFromProto(i, 'id', { uuid: '{550E8400E29B41D4A716446655440000}', pointIdOptions: 'uuid' }),
    );
    expect(value).toBe('550e8400-e29b-41d4-a716-446655440000');
  });

  it('should report an empty oneof, a bad uuid and a num beyond u64', () => {
    expect(collect((i) => pointIdFromProto(i, 'id', {})).issues).toEqual(['id: must set num or uuid']);
    expect(collect((i) => pointIdFromProto(i, 'ids[2]', { uuid: 'nope', pointIdOptions: 'uuid' })).issues).toEqual([
      'ids[2].uuid: Unable to parse UUID: nope',
    ]);
    expect(
      collect((i) => pointIdFromProto(i, 'id', { num: '18446744073709551616', pointIdOptions: 'num' })).issues,
    ).toEqual(['id.num: value 18446744073709551616 invalid, must be from 0 to 18446744073709551615']);
  });

  it('should index the paths of repeated ids', () => {
    expect(collect((i) => pointIdsFromProto(i, 'ids', [{ num: '1', pointIdOptions: 'num' }, {}])).issues).toEqual([
      'ids[1]: must set num or uuid',
    ]);
  });

  it('should round-trip both kinds through pointIdToProto', () => {
    for (const id of [0n, 7n, 18446744073709551615n, '550e8400-e29b-41d4-a716-446655440000']) {
      const proto = pointIdToProto(id);
      const oneof =
        typeof id === 'bigint'
          ? { ...proto, pointIdOptions: 'num' as const }
          : { ...proto, pointIdOptions: 'uuid' as const };
      expect(collect((i) => pointIdFromProto(i, 'id', oneof as never)).value).toBe(id);
    }
  });
});

describe('filterFromProto', () => {
  it('should map must / should / must_not / min_should and drop empty lists', () => {
    const filter = filterOverWire({
      must: [field('a', { match: { keyword: 'x' } })],
      should: [],
      mustNot: [{ isEmpty: { key: 'b' } }],
      minShould: { conditions: [{ isNull: { key: 'c' } }, { hasVector: { hasVector: 'img' } }], minCount: '1' },
    });
    expect(filter).toEqual({
      must: [{ field: { key: 'a', match: { keyword: 'x' } } }],
      mustNot: [{ isEmpty: { key: 'b' } }],
      minShould: { conditions: [{ isNull: { key: 'c' } }, { hasVector: 'img' }], minCount: 1 },
    });
  });

  it('should map every match case', () => {
    const cases: Array<[object, object]> = [
      [{ keyword: 'k' }, { keyword: 'k' }],
      [{ integer: '-9223372036854775808' }, { integer: -9223372036854775808n }],
      [{ boolean: false }, { boolean: false }],
      [{ text: 't' }, { text: 't' }],
      [{ textAny: 'a b' }, { textAny: 'a b' }],
      [{ phrase: 'p q' }, { phrase: 'p q' }],
      [{ prefix: 'pre' }, { prefix: 'pre' }],
      [{ keywords: { strings: ['a', 'b'] } }, { keywords: ['a', 'b'] }],
      [{ integers: { integers: ['1', '9007199254740993'] } }, { integers: [1n, 9007199254740993n] }],
      [{ exceptKeywords: { strings: ['z'] } }, { exceptKeywords: ['z'] }],
      [{ exceptIntegers: { integers: ['-2'] } }, { exceptIntegers: [-2n] }],
    ];
    for (const [match, expected] of cases) {
      expect(filterOverWire({ must: [field('f', { match })] })).toEqual({
        must: [{ field: { key: 'f', match: expected } }],
      });
    }
  });

  it('should map range, values_count, geo conditions and field is_empty / is_null', () => {
    const filter = filterOverWire({
      must: [
        field('r', { range: { gt: 1.5, lte: 10 } }),
        field('n', { valuesCount: { gte: '2', lt: '5' } }),
        field('g', { geoBoundingBox: { topLeft: { lon: 1, lat: 2 }, bottomRight: { lon: 3, lat: 0 } } }),
        field('g', { geoRadius: { center: { lon: 13.4, lat: 52.5 }, radius: 1000 } }),
        field('g', {
          geoPolygon: {
            exterior: {
              points: [
                { lon: 0, lat: 0 },
                { lon: 1, lat: 0 },
                { lon: 1, lat: 1 },
                { lon: 0, lat: 0 },
              ],
            },
            interiors: [{ points: [{ lon: 0.2, lat: 0.2 }] }],
          },
        }),
        field('e', { isEmpty: false, isNull: true }),
      ],
    });
    expect(filter?.must).toEqual([
      { field: { key: 'r', range: { gt: 1.5, lte: 10 } } },
      { field: { key: 'n', valuesCount: { gte: 2, lt: 5 } } },
      { field: { key: 'g', geoBoundingBox: { topLeft: { lon: 1, lat: 2 }, bottomRight: { lon: 3, lat: 0 } } } },
      { field: { key: 'g', geoRadius: { center: { lon: 13.4, lat: 52.5 }, radius: 1000 } } },
      {
        field: {
          key: 'g',
          geoPolygon: {
            exterior: {
              points: [
                { lon: 0, lat: 0 },
                { lon: 1, lat: 0 },
                { lon: 1, lat: 1 },
                { lon: 0, lat: 0 },
              ],
            },
            interiors: [{ points: [{ lon: 0.2, lat: 0.2 }] }],
          },
        },
      },
      { field: { key: 'e', isEmpty: false, isNull: true } },
    ]);
  });

  it('should convert datetime_range timestamps to microseconds', () => {
    const filter = filterOverWire({
      must: [
        field('d', {
          datetimeRange: { gte: { seconds: '1675853340', nanos: 123456789 }, lt: { seconds: '-1', nanos: 500000 } },
        }),
      ],
    });
    expect(filter?.must).toEqual([{ field: { key: 'd', datetimeRange: { gte: 1675853340123456, lt: -999500 } } }]);
  });

  it('should map has_id, nested and nested boolean filters', () => {
    const filter = filterOverWire({
      should: [
        { hasId: { hasId: [{ num: '3' }, { uuid: '550E8400-E29B-41D4-A716-446655440000' }] } },
        { nested: { key: 'items[]', filter: { must: [field('qty', { range: { gt: 1 } })] } } },
        { filter: { mustNot: [{ isNull: { key: 'x' } }] } },
      ],
    });
    expect(filter?.should).toEqual([
      { hasId: [3n, '550e8400-e29b-41d4-a716-446655440000'] },
      { nested: { key: 'items[]', filter: { must: [{ field: { key: 'qty', range: { gt: 1 } } }] } } },
      { filter: { mustNot: [{ isNull: { key: 'x' } }] } },
    ]);
  });

  it('should report slice, empty conditions and empty matches with snake_case paths', () => {
    expect(
      issuesOf(() =>
        filterOverWire({
          must: [{ slice: { total: 0, index: 0 } }, {}],
          minShould: { conditions: [field('a', { match: {} })], minCount: '1' },
          mustNot: [{ nested: { key: 'n' } }, { hasId: { hasId: [{ uuid: 'bad' }] } }],
        }),
      ),
    ).toEqual([
      'filter.must[0].slice.total: value 0 invalid, must be 1 or larger',
      'filter.must[1]: must set one of field, is_empty, has_id, filter, is_null, nested, has_vector, slice',
      'filter.must_not[0].nested.filter: must be set',
      'filter.must_not[1].has_id.has_id[0].uuid: Unable to parse UUID: bad',
      'filter.min_should.conditions[0].field.match: must set one of keyword, integer, boolean, text, keywords, integers, except_integers, except_keywords, phrase, text_any, prefix',
    ]);
  });

  it('should report NaN range bounds, missing geo points and bad timestamps', () => {
    const { issues } = collect((i) =>
      filterFromProto(i, 'filter', {
        must: [
          { conditionOneOf: 'field', field: { key: 'r', range: { gt: NaN } } },
          { conditionOneOf: 'field', field: { key: 'g', geoRadius: { radius: 1 } } },
          {
            conditionOneOf: 'field',
            field: {
              key: 'd',
              datetimeRange: { lt: { seconds: '9223372036854775807' }, gt: { seconds: '0', nanos: -1 } },
            },
          },
        ],
        should: [],
        mustNot: [],
      }),
    );
    expect(issues).toEqual([
      'filter.must[0].field.range.gt: must be a number, got NaN',
      'filter.must[1].field.geo_radius.center: must be set',
      'filter.must[2].field.datetime_range.lt.seconds: value 9223372036854775807 invalid, timestamp out of range',
      'filter.must[2].field.datetime_range.gt.nanos: value -1 invalid, must be from 0 to 999999999',
    ]);
  });

  it('should leave an absent filter undefined', () => {
    expect(filterOverWire(undefined as unknown as ProtoFilter)).toBeUndefined();
  });
});
