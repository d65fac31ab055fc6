import { NOT_SIMPLE, parseSimpleJson } from './fast-rest-json';
import { parseRestJson, parseRestJsonLossless, REST_JSON_MAX_DEPTH } from './rest-json';

/** A small deterministic generator (no test helpers in app code). */
function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const NUMBERS = [
  '0',
  '-0',
  '7',
  '-12',
  '18446744073709551615',
  '1.5',
  '-0.25',
  '1e3',
  '2E-7',
  '1.0',
  '-0.0',
  '3.14e+2',
];
const STRINGS = ['"a"', '""', '"é ü"', '"with \\"quote\\""', '"tab\\t"', '"\\u00e9"', '"x y"'];

function randomJson(next: () => number, depth: number): string {
  const pick = <T>(items: T[]): T => items[Math.floor(next() * items.length)];
  const roll = next();
  if (depth > 4 || roll < 0.35) return pick([...NUMBERS, ...STRINGS, 'true', 'false', 'null']);
  const space = () => pick(['', ' ', '\n', '\t ']);
  if (roll < 0.5) {
    const n = Math.floor(next() * 6);
    const floats = Array.from({ length: n }, () => (next() * 2 - 1).toString());
    return `[${space()}${floats.join(`,${space()}`)}${space()}]`;
  }
  if (roll < 0.75) {
    const n = Math.floor(next() * 4);
    return `[${Array.from({ length: n }, () => space() + randomJson(next, depth + 1) + space()).join(',')}]`;
  }
  const n = Math.floor(next() * 4);
  const keys = Array.from({ length: n }, (_, k) => (next() < 0.1 ? '"k"' : `"k${k}"`));
  return `{${keys.map((key) => `${space()}${key}${space()}:${randomJson(next, depth + 1)}`).join(',')}${space()}}`;
}

describe(parseSimpleJson.name, () => {
  it('should give exactly what the lossless parser gives, or leave the text to it', () => {
    const next = rng(7);
    let simple = 0;
    for (let n = 0; n < 3000; n++) {
      const text = randomJson(next, 0);
      const fast = parseSimpleJson(text, REST_JSON_MAX_DEPTH);
      if (fast === NOT_SIMPLE) continue;
      simple++;
      expect(fast).toStrictEqual(parseRestJsonLossless(text));
    }
    // Most generated texts are simple: the comparison above is not vacuous.
    expect(simple).toBeGreaterThan(1500);
  });

  it('should read a query body: integers as bigint, a vector as doubles', () => {
    expect(parseSimpleJson('{"query":[0.5,-1e-3, 2.25],"limit":10,"params":{"hnsw_ef":64}}', 128)).toStrictEqual({
      query: [0.5, -0.001, 2.25],
      limit: 10n,
      params: { hnsw_ef: 64n },
    });
    expect(parseSimpleJson('[1.5, 2]', 128)).toStrictEqual([1.5, 2n]);
  });

  it.each([
    ['a syntax error', '{"a":1,}'],
    ['a trailing value', '{"a":1} 2'],
    ['a duplicate key', '{"a":1,"a":1}'],
    ['a __proto__ key', '{"__proto__":{"x":1}}'],
    ['an escape in a key', '{"\\u0061":1}'],
    ['a number beyond the double range', '[1.5, 1e999]'],
    ['a leading plus', '[+1.5]'],
    ['a raw control character in a string', '"a\u0001"'],
    ['nesting past the limit', '['.repeat(129) + ']'.repeat(129)],
    ['empty text', ''],
  ])('should leave %s to the lossless parser', (_, text) => {
    expect(parseSimpleJson(text, REST_JSON_MAX_DEPTH)).toBe(NOT_SIMPLE);
  });

  it('should keep what parseRestJson answers for texts it leaves (errors included)', () => {
    expect(parseRestJson('{"a":1,"a":1}')).toEqual({ a: 1n });
    expect(() => parseRestJson('{"a":1,"a":2}')).toThrow(/Duplicate key/);
    expect(() => parseRestJson('[1e999]')).toThrow(/number out of range/);
    expect(Object.getPrototypeOf(parseRestJson('{"__proto__":{"x":1}}'))).toBe(Object.prototype);
    expect(parseRestJson('['.repeat(128) + ']'.repeat(128))).toBeDefined();
    expect(() => parseRestJson('['.repeat(129) + ']'.repeat(129))).toThrow(/recursion limit/);
  });
});
