import { JsonObject } from '@vectorstore/common';
import { selectPayload } from './payload-selection';

const payload: JsonObject = {
  country: {
    name: 'Germany',
    capital: 'Berlin',
    cities: [
      { name: 'Berlin', population: 3.7 },
      { name: 'Munich', population: 1.5 },
    ],
  },
  tags: ['a', 'b'],
};

describe('selectPayload', () => {
  it('should include object paths and everything below them', () => {
    expect(selectPayload(payload, { include: ['country.name', 'tags'] })).toEqual({
      country: { name: 'Germany' },
      tags: ['a', 'b'],
    });
  });

  it('should include through arrays with []', () => {
    expect(selectPayload(payload, { include: ['country.cities[].name'] })).toEqual({
      country: { cities: [{ name: 'Berlin' }, { name: 'Munich' }] },
    });
  });

  it('should exclude paths, through arrays too, keeping everything else', () => {
    expect(selectPayload(payload, { exclude: ['country.cities[].population', 'tags'] })).toEqual({
      country: { name: 'Germany', capital: 'Berlin', cities: [{ name: 'Berlin' }, { name: 'Munich' }] },
    });
    expect(selectPayload(payload, { exclude: ['country'] })).toEqual({ tags: ['a', 'b'] });
  });

  it('should answer the whole payload or none for enable', () => {
    expect(selectPayload(payload, { enable: true })).toBe(payload);
    expect(selectPayload(payload, { enable: false })).toBeUndefined();
  });
});
