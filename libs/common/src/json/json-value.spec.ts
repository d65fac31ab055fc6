import { isJsonObject, parseJson, stringifyJson } from './json-value';

describe('parseJson', () => {
  it('should read integers as bigint, exactly beyond 2^53', () => {
    expect(parseJson('{"a": 9007199254740993}')).toEqual({ a: 9007199254740993n });
  });

  it('should read the largest u64 exactly', () => {
    expect(parseJson('18446744073709551615')).toBe(18446744073709551615n);
  });

  it('should read negative integers as bigint', () => {
    expect(parseJson('-42')).toBe(-42n);
  });

  it('should read decimals and exponents as numbers', () => {
    expect(parseJson('[5.0, 0.25, 1e3, -2.5E-2]')).toEqual([5, 0.25, 1000, -0.025]);
    expect(typeof (parseJson('5.0') as unknown)).toBe('number');
  });

  it('should read strings, booleans and null unchanged', () => {
    expect(parseJson('{"s":"x","t":true,"f":false,"n":null}')).toEqual({ s: 'x', t: true, f: false, n: null });
  });

  it('should reject malformed text', () => {
    expect(() => parseJson('{"a":')).toThrow();
  });
});

describe('stringifyJson', () => {
  it('should write bigint as an integer literal', () => {
    expect(stringifyJson({ a: 9007199254740993n })).toBe('{"a":9007199254740993}');
  });

  it('should write integral doubles with a decimal point', () => {
    expect(stringifyJson([5, -3, 0])).toBe('[5.0,-3.0,0.0]');
  });

  it('should write fractional and exponent doubles as-is', () => {
    expect(stringifyJson([0.5, 1e21, 1e-7])).toBe('[0.5,1e+21,1e-7]');
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])('should reject %p', (value) => {
    expect(() => stringifyJson({ nested: [value] })).toThrow(TypeError);
  });

  it('should reject a value that is not serialisable at all', () => {
    expect(() => stringifyJson(undefined)).toThrow(TypeError);
  });

  it('should indent when a space is given', () => {
    expect(stringifyJson({ a: 1n }, 2)).toBe('{\n  "a": 1\n}');
  });

  describe('round-trip through parseJson', () => {
    it('should keep bigint beyond 2^53 exact', () => {
      const value = 2n ** 63n - 1n;

      expect(parseJson(stringifyJson(value))).toBe(value);
    });

    it('should keep an integral double a number, not a bigint', () => {
      const back = parseJson(stringifyJson({ d: 5.0 })) as { d: unknown };

      expect(typeof back.d).toBe('number');
      expect(back.d).toBe(5);
    });

    it('should keep integers and doubles apart side by side', () => {
      const back = parseJson(stringifyJson({ i: 5n, d: 5 })) as { i: unknown; d: unknown };

      expect(back.i).toBe(5n);
      expect(back.d).toBe(5);
    });

    it('should preserve nested arrays and objects', () => {
      const value = {
        list: [1n, 2.5, [3n, [4, { deep: -18446744073709551615n }]]],
        obj: { s: 'é ☃ "quoted"', b: false, n: null, empty: {}, none: [] },
      };

      expect(parseJson(stringifyJson(value, 2))).toEqual(value);
    });
  });
});

describe('isJsonObject', () => {
  it('should be true for plain objects', () => {
    expect(isJsonObject({ a: 1 })).toBe(true);
  });

  it.each([null, [], 'x', 1, 1n, true, undefined])('should be false for %p', (value) => {
    expect(isJsonObject(value)).toBe(false);
  });
});
