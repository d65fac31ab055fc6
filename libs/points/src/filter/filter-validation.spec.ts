import { DomainError } from '@vectorstore/common';
import { Filter } from '../model/filter.model';
import { countConditions, maxConditionSize, validateFilter } from './filter-validation';

const square = {
  points: [
    { lon: 0, lat: 0 },
    { lon: 1, lat: 0 },
    { lon: 1, lat: 1 },
    { lon: 0, lat: 0 },
  ],
};

describe(validateFilter.name, () => {
  it('should accept a well-formed filter', () => {
    expect(() =>
      validateFilter({
        must: [{ field: { key: 'a[].b', geoPolygon: { exterior: square, interiors: [] } } }],
        minShould: { conditions: [{ isEmpty: { key: 'x' } }], minCount: 1 },
      }),
    ).not.toThrow();
  });

  it.each<[string, Filter]>([
    ['empty key', { must: [{ field: { key: '', match: { keyword: 'x' } } }] }],
    ['no test', { must: [{ field: { key: 'a' } }] }],
    ['negative radius', { must: [{ field: { key: 'a', geoRadius: { center: { lon: 0, lat: 0 }, radius: -1 } } }] }],
    ['lat out of range', { must: [{ field: { key: 'a', geoRadius: { center: { lon: 0, lat: 91 }, radius: 1 } } }] }],
    [
      'short polygon',
      { must: [{ field: { key: 'a', geoPolygon: { exterior: { points: square.points.slice(1) }, interiors: [] } } }] },
    ],
    [
      'open polygon',
      {
        must: [
          {
            field: {
              key: 'a',
              geoPolygon: { exterior: { points: [...square.points.slice(0, 3), { lon: 2, lat: 2 }] }, interiors: [] },
            },
          },
        ],
      },
    ],
    ['min_should without conditions', { minShould: { conditions: [], minCount: 1 } }],
    ['has_id inside nested', { must: [{ nested: { key: 'arr', filter: { must: [{ hasId: [1n] }] } } }] }],
    ['negative values_count', { mustNot: [{ field: { key: 'a', valuesCount: { gt: -1 } } }] }],
  ])('should reject %s', (_name, filter) => {
    expect(() => validateFilter(filter)).toThrow(DomainError);
  });
});

describe(countConditions.name, () => {
  it('should count leaves through sub-filters and nested', () => {
    const filter: Filter = {
      must: [{ isEmpty: { key: 'a' } }, { filter: { should: [{ hasId: [1n] }, { hasVector: 'v' }] } }],
      mustNot: [{ nested: { key: 'arr', filter: { must: [{ field: { key: 'x', match: { keyword: 'y' } } }] } } }],
    };
    expect(countConditions(filter)).toBe(4);
    expect(countConditions(undefined)).toBe(0);
  });
});

describe(maxConditionSize.name, () => {
  it('should report the longest any/except list', () => {
    const filter: Filter = {
      must: [{ field: { key: 'a', match: { keywords: ['x', 'y'] } } }],
      should: [{ filter: { must: [{ field: { key: 'b', match: { exceptIntegers: [1n, 2n, 3n] } } }] } }],
    };
    expect(maxConditionSize(filter)).toBe(3);
  });
});
