import { parseFilter, parsePointId, parseSettings, parseVector } from './parse';

describe('parse', () => {
  describe(parseFilter.name, () => {
    it('should take empty text as no filter and a JSON object as the filter', () => {
      expect(parseFilter('  ')).toEqual({});
      expect(parseFilter('{"must": []}')).toEqual({ filter: { must: [] } });
    });

    it('should explain bad JSON and values that are not objects', () => {
      expect(parseFilter('{"must": [').error).toMatch(/^Invalid JSON: /);
      expect(parseFilter('[1]').error).toMatch(/^A filter is a JSON object/);
      expect(parseFilter('null').error).toMatch(/^A filter is a JSON object/);
    });
  });

  describe(parsePointId.name, () => {
    it('should take unsigned integers and UUIDs', () => {
      expect(parsePointId(' 42 ')).toEqual({ id: 42 });
      expect(parsePointId('18446744073709551615')).toEqual({ id: 18446744073709551615n });
      expect(parsePointId('5c56c793-69f3-4fbf-87e6-c4bf54c28c26')).toEqual({
        id: '5c56c793-69f3-4fbf-87e6-c4bf54c28c26',
      });
    });

    it('should refuse other text and integers it cannot send exactly', () => {
      expect(parsePointId('-1').error).toBe('A point id is an unsigned integer or a UUID');
      expect(parsePointId('abc').error).toBe('A point id is an unsigned integer or a UUID');
      expect(parsePointId('18446744073709551616').error).toBe('A point id is at most 2^64-1');
    });
  });

  describe(parseVector.name, () => {
    it('should take a non-empty array of numbers only', () => {
      expect(parseVector('[0.1, 2]')).toEqual({ vector: [0.1, 2] });
      expect(parseVector('[]').error).toMatch(/JSON array of numbers/);
      expect(parseVector('[1, "2"]').error).toMatch(/JSON array of numbers/);
      expect(parseVector('1,2').error).toMatch(/JSON array of numbers/);
    });
  });

  describe(parseSettings.name, () => {
    it('should take empty text as no settings and a JSON object as settings', () => {
      expect(parseSettings('')).toEqual({ value: {} });
      expect(parseSettings('{"hnsw_config": {"m": 32}}')).toEqual({ value: { hnsw_config: { m: 32 } } });
    });

    it('should explain bad JSON and values that are not objects', () => {
      expect(parseSettings('{').error).toMatch(/^Invalid JSON: /);
      expect(parseSettings('3').error).toMatch(/^The settings are a JSON object/);
    });
  });
});
