import { LosslessNumber, stringify } from 'lossless-json';
import {
  f32ArrayText,
  f32Text,
  parseRestJson,
  RestJsonFormatError,
  RestRawJson,
  stringifyRestJson,
  stringifyRestJsonSliced,
} from './rest-json';

/** The slow twin of the shortest-f32 search: every precision from 1 to 9, in order. */
function shortestByScan(value: number): string {
  const f = Math.fround(value);
  for (let precision = 1; precision <= 9; precision++) {
    const text = f.toPrecision(precision);
    if (Math.fround(Number(text)) === f) return String(Number(text));
  }
  return String(f);
}

describe('stringifyRestJson', () => {
  it('should write bigint exactly, LosslessNumber and raw JSON verbatim, non-finite numbers as null', () => {
    const value = {
      id: 18446744073709551615n,
      f: new LosslessNumber('1.0'),
      raw: new RestRawJson('[1,2]'),
      n: [1.5, NaN, Infinity],
      s: 'a"b',
      skip: undefined,
      nested: { t: true, z: null },
    };
    expect(stringifyRestJson(value)).toBe(
      '{"id":18446744073709551615,"f":1.0,"raw":[1,2],"n":[1.5,null,null],"s":"a\\"b","nested":{"t":true,"z":null}}',
    );
  });

  it('should agree with lossless-json on plain values', () => {
    const value = parseRestJson('{"a":[1,2.5,{"b":-3}],"c":"é","d":false,"e":9007199254740993}');
    expect(stringifyRestJson(value)).toBe(
      stringify(value, undefined, undefined, [
        { test: (v: unknown) => typeof v === 'bigint', stringify: (v: unknown) => (v as bigint).toString() },
      ]),
    );
  });
});

describe('f32Text', () => {
  it('should write the shortest text that reads back as the same f32', () => {
    expect(String(f32Text(Math.fround(0.19)))).toBe('0.19');
    expect(String(f32Text(0.5))).toBe('0.5');
    expect(String(f32Text(Math.fround(1e-7)))).toBe('1e-7');
    expect(f32Text(NaN)).toBeNull();
  });

  it('should match the scan over every precision for f32 values of every magnitude', () => {
    // A deterministic spread of mantissas and magnitudes (no test helpers in app code).
    for (let i = 0; i < 5000; i++) {
      const value = Math.fround(Math.sin(i * 12.9898) * 10 ** ((i % 13) - 6));
      expect(String(f32Text(value))).toBe(shortestByScan(value));
    }
  });
});

describe('f32ArrayText', () => {
  it('should write a vector as a JSON array of shortest texts', () => {
    expect(f32ArrayText(Float32Array.from([0.1, 0.25, -3])).text).toBe('[0.1,0.25,-3]');
    expect(f32ArrayText([]).text).toBe('[]');
  });
});

describe('parseRestJson limits (as serde_json)', () => {
  const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

  it('reads 128 levels of nesting and refuses 129', () => {
    expect(() => parseRestJson(nested(128))).not.toThrow();
    expect(() => parseRestJson(nested(129))).toThrow(RestJsonFormatError);
    expect(() => parseRestJson(`{"a":${nested(5000)}}`)).toThrow('recursion limit exceeded');
  });

  it('does not count brackets inside strings', () => {
    expect(parseRestJson(JSON.stringify({ s: '['.repeat(1000) + '\\"{' }))).toEqual({ s: '['.repeat(1000) + '\\"{' });
  });

  it('refuses numbers beyond the double range, keeps big integers exact', () => {
    expect(() => parseRestJson('{"e":1e400}')).toThrow('number out of range');
    expect(() => parseRestJson('[-1e400]')).toThrow(RestJsonFormatError);
    expect(parseRestJson('[18446744073709551615, 1.5e300]')).toEqual([18446744073709551615n, 1.5e300]);
  });
});

describe('stringifyRestJsonSliced', () => {
  const point = (i: number) => ({
    id: BigInt(i) * 1_000_000_000_000n,
    payload: JSON.parse(`{"__proto__": {"x": ${i}}, "n": ${i}}`) as Record<string, unknown>,
    vector: Float32Array.from([i / 3, 0.1]),
    score: i === 3 ? Number.NaN : i / 7,
  });

  it('should write the same text as stringifyRestJson, large arrays included', async () => {
    for (const value of [
      { result: { points: Array.from({ length: 1000 }, (_, i) => point(i)), next_page_offset: 5n }, status: 'ok' },
      { result: Array.from({ length: 300 }, (_, i) => point(i)), status: 'ok', time: 0.5 },
      { result: point(1), status: 'ok' },
      { result: [[1, 2], { a: [] }], status: 'ok' },
      Object.assign(Object.create(null) as Record<string, unknown>, { result: null }),
    ]) {
      expect(await stringifyRestJsonSliced(value)).toBe(stringifyRestJson(value));
    }
  });

  it('should let other work run while a large array is written', async () => {
    const big = { result: { points: Array.from({ length: 20_000 }, (_, i) => point(i)) } };
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    const text = await stringifyRestJsonSliced(big);
    clearInterval(ticker);
    expect(text).toBe(stringifyRestJson(big));
    expect(turns).toBeGreaterThan(0);
  });
});
