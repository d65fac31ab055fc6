import { DomainError, JsonObject } from '@vectorstore/common';
import { nestedArrayKey, parsePath, rawValuesAt, valuesAt } from './payload-path';

describe('payload-path', () => {
  const payload: JsonObject = {
    a: { b: { c: 1n } },
    arr: [{ x: 1n, y: ['p', 'q'] }, { x: 2n }, 'stray'],
    tags: ['red', 'blue'],
    'dotted.key': { v: true },
    empty: [],
    nothing: null,
  };

  describe(parsePath.name, () => {
    it('should parse keys, wildcards, indexes and quoted keys', () => {
      expect(parsePath('a.b[].c[0]')).toEqual([
        { kind: 'key', key: 'a' },
        { kind: 'key', key: 'b' },
        { kind: 'wildcard' },
        { kind: 'key', key: 'c' },
        { kind: 'index', index: 0 },
      ]);
      expect(parsePath('"dotted.key".v')).toEqual([
        { kind: 'key', key: 'dotted.key' },
        { kind: 'key', key: 'v' },
      ]);
    });

    it.each(['', 'a.', '.a', 'a..b', 'a[', 'a[x]', 'a]', '"a', 'a.[]'])('should reject %p naming the key', (key) => {
      expect(() => parsePath(key)).toThrow(DomainError);
      expect(() => parsePath(key)).toThrow(`\`${key}\``);
    });
  });

  describe(valuesAt.name, () => {
    it('should follow objects, wildcards and indexes', () => {
      expect(valuesAt(payload, 'a.b.c')).toEqual([1n]);
      expect(valuesAt(payload, 'arr[].x')).toEqual([1n, 2n]);
      expect(valuesAt(payload, 'arr[1].x')).toEqual([2n]);
      expect(valuesAt(payload, '"dotted.key".v')).toEqual([true]);
    });

    it('should flatten a final array and find nothing for missing keys', () => {
      expect(valuesAt(payload, 'tags')).toEqual(['red', 'blue']);
      expect(valuesAt(payload, 'arr[].y')).toEqual(['p', 'q']);
      expect(valuesAt(payload, 'empty')).toEqual([]);
      expect(valuesAt(payload, 'nothing')).toEqual([null]);
      expect(valuesAt(payload, 'missing.deep')).toEqual([]);
      // A key step does not look into arrays without `[]`.
      expect(valuesAt(payload, 'arr.x')).toEqual([]);
    });
  });

  describe(rawValuesAt.name, () => {
    it('should keep final arrays whole', () => {
      expect(rawValuesAt(payload, 'tags')).toEqual([['red', 'blue']]);
      expect(rawValuesAt(payload, 'empty')).toEqual([[]]);
    });
  });

  describe(nestedArrayKey.name, () => {
    it('should append [] once', () => {
      expect(nestedArrayKey('arr')).toBe('arr[]');
      expect(nestedArrayKey('arr[]')).toBe('arr[]');
    });
  });
});
