// Review of issue 27's REST request path: the fast JSON parser against the lossless one (values, errors, memory).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { NOT_SIMPLE, parseSimpleJson } from './fast-rest-json';
import { parseRestJson, parseRestJsonLossless, REST_JSON_MAX_DEPTH } from './rest-json';

/** Same value as the lossless parser gives: types, -0, bigint, key order and prototypes alike. */
function sameValue(a: unknown, b: unknown, path = '$'): string | undefined {
  if (typeof a !== typeof b) return `${path}: ${typeof a} vs ${typeof b}`;
  if (typeof a === 'number') return Object.is(a, b) ? undefined : `${path}: ${a} vs ${String(b)}`;
  if (typeof a !== 'object' || a === null || b === null) return a === b ? undefined : `${path}: differs`;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return `${path}: prototype differs`;
  const keysA = Reflect.ownKeys(a);
  const keysB = Reflect.ownKeys(b as object);
  if (keysA.join('\u0000') !== keysB.join('\u0000')) return `${path}: keys ${String(keysA)} vs ${String(keysB)}`;
  for (const key of keysA) {
    if (Array.isArray(a) && key === 'length') continue;
    const issue = sameValue(
      (a as Record<string | symbol, unknown>)[key],
      (b as Record<string | symbol, unknown>)[key],
      `${path}.${String(key)}`,
    );
    if (issue) return issue;
  }
  return undefined;
}

/** What parseRestJson answers for `text`: its value or its error's message, for comparing two parsers. */
function outcome(parse: (text: string) => unknown, text: string): { value?: unknown; error?: string } {
  try {
    return { value: parse(text) };
  } catch (error) {
    return { error: `${(error as Error).constructor.name}: ${(error as Error).message}` };
  }
}

function expectSameAsLossless(text: string): void {
  const fast = parseSimpleJson(text, REST_JSON_MAX_DEPTH);
  const lossless = outcome(parseRestJsonLossless, text);
  if (fast !== NOT_SIMPLE) {
    // The fast parser took the text: the lossless one must read it too, to the same value.
    expect(lossless.error).toBeUndefined();
    expect(sameValue(fast, lossless.value)).toBeUndefined();
  }
  const answered = outcome(parseRestJson, text);
  expect(answered.error).toBe(lossless.error);
  if (lossless.error === undefined) expect(sameValue(answered.value, lossless.value)).toBeUndefined();
}

const nest = (depth: number, open: string, close: string, inner = ''): string =>
  open.repeat(depth) + inner + close.repeat(depth);

const EDGE_TEXTS: Array<[string, string]> = [
  ['-0 as an integer', '-0'],
  ['-0 in an object', '{"a":-0}'],
  ['-0.0', '[-0.0]'],
  ['-0.0 among floats', '[0.5,-0.0,1.5]'],
  ['-0e0', '[-0e0, 0.5]'],
  ['1E5', '{"a":1E5}'],
  ['1E5 in a vector', '[1E5,2.5]'],
  ['1e+5 and 1E-5', '[1e+5, 1E-5]'],
  ['0.1e-0', '[0.1e-0]'],
  ['an exponent underflowing to 0', '[1e-400, -1e-400]'],
  ['a huge exponent', '{"a":1e99999999999999999999}'],
  ['a huge exponent in a vector', '[0.5, 1e99999999999999999999]'],
  ['the largest double', '[1.7976931348623157e308]'],
  ['just past the largest double', '[1.7976931348623159e308]'],
  [
    'a number rounding to infinity by its digits',
    '[179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791.9]',
  ],
  ['a long integer', `{"id":${'9'.repeat(400)}}`],
  ['2^53 + 1', '[9007199254740993]'],
  ['2^53 + 1 written as a float', '[9007199254740993.0]'],
  ['2^64 - 1', '{"id":18446744073709551615}'],
  ['a long fraction', '[0.1000000000000000055511151231257827021181583404541015625]'],
  ['a long mantissa with exponent', '[123456789012345678901234567890e-10]'],
  ['integers in a vector', '{"vector":[1,2,3]}'],
  ['an integer after floats', '[0.5,0.25,3]'],
  ['an integer before floats', '[3,0.5,0.25]'],
  ['a float vector with whitespace of every kind', '[ 0.5 ,\t0.25\r\n,\n-1.5 ]'],
  ['an empty array', '[]'],
  ['an empty array with whitespace', '[ \n\t\r ]'],
  ['an empty object', '{}'],
  ['an empty object with whitespace', '{ \n }'],
  ['nested empties', '{"a":[],"b":{},"c":[[],[{}]]}'],
  ['whitespace around the text', ' \r\n\t{"a" : 1 , "b" :\n[ 0.5 ] }\t\r\n '],
  ['a form feed (not JSON whitespace)', '\f{"a":1}'],
  ['a non-breaking space (not JSON whitespace)', '\u00a0{"a":1}'],
  ['a BOM', '\ufeff{"a":1}'],
  ['unicode text', '{"é":"ü €","k":"😀 中文"}'],
  ['a lone high surrogate', '{"a":"x\ud800y"}'],
  ['a lone low surrogate in a key', '{"\udc00":1}'],
  ['escaped lone surrogates', '{"a":"\\ud800","b":"\\udc00\\ud800"}'],
  ['U+2028 and U+2029', '{"a":"\u2028\u2029"}'],
  ['DEL and C1 controls', '{"a":"\u007f\u0085"}'],
  ['a raw tab in a string', '{"a":"x\ty"}'],
  ['a raw NUL in a string', '{"a":"x\u0000y"}'],
  ['keys named like Object.prototype members', '{"constructor":1,"toString":2,"hasOwnProperty":3,"valueOf":4.5}'],
  [
    'more prototype-like keys',
    '{"__defineGetter__":1,"isPrototypeOf":"x","propertyIsEnumerable":[],"toLocaleString":{}}',
  ],
  ['a __proto__ key', '{"__proto__":{"polluted":1}}'],
  ['a nested __proto__ key', '{"a":{"__proto__":[1]}}'],
  ['an escaped __proto__ key', '{"\\u005f_proto__":{"polluted":1}}'],
  ['a constructor.prototype path', '{"constructor":{"prototype":{"polluted":1}}}'],
  ['an empty key', '{"":1}'],
  ['integer-like keys (enumerated first)', '{"b":1,"1":2,"0":3,"-1":4,"01":5}'],
  ['a duplicate key with the same value', '{"a":1,"a":1}'],
  ['a duplicate key with another value', '{"a":1,"a":2}'],
  ['a duplicate key after an integer-like one', '{"1":1,"1":1.0}'],
  ['nesting of 128 arrays', nest(128, '[', ']')],
  ['nesting of 129 arrays', nest(129, '[', ']')],
  ['nesting of 128 with a vector innermost', nest(127, '[', ']', '[0.5,0.25]')],
  ['nesting of 129 with a vector innermost', nest(128, '[', ']', '[0.5,0.25]')],
  ['nesting of 128 objects', nest(127, '{"a":', '}', '{}')],
  ['nesting of 129 objects', nest(128, '{"a":', '}', '{}')],
  ['nesting of 128 mixed', nest(64, '{"a":[', ']}')],
  ['nesting of 130 mixed', nest(65, '{"a":[', ']}')],
  ['brackets inside strings', `{"a":"${'['.repeat(200)}"}`],
  ['true false null', '[true,false,null]'],
  ['misspelt keywords', '[tru]'],
  ['keywords running on', '[truex]'],
  ['a keyword at the end', 'nul'],
  ['leading zeros', '[01]'],
  ['a leading plus', '[+1]'],
  ['a bare minus', '[-]'],
  ['a trailing dot', '[1.]'],
  ['a leading dot', '[.5]'],
  ['an exponent without digits', '[1e]'],
  ['hex', '[0x10]'],
  ['NaN and Infinity', '[NaN, Infinity]'],
  ['a trailing comma in an array', '[0.5,]'],
  ['a trailing comma in an object', '{"a":1,}'],
  ['a missing comma in a vector', '[0.5 0.25]'],
  ['a missing colon', '{"a" 1}'],
  ['an unquoted key', '{a:1}'],
  ['single quotes', "{'a':1}"],
  ['an unterminated string', '{"a":"b'],
  ['an unterminated vector', '[0.5,0.25'],
  ['an unterminated object', '{"a":1'],
  ['two values', '1 2'],
  ['empty text', ''],
  ['only whitespace', ' \n'],
  ['a bare string', '"abc"'],
  ['a bare float', '2.5'],
];

describe('issue 27 review: parseSimpleJson gives what parseRestJsonLossless gives', () => {
  it.each(EDGE_TEXTS)('%s', (_, text) => expectSameAsLossless(text));

  it('should give the same answers on texts mutated a character at a time (values and errors)', () => {
    let state = 27;
    const next = (): number => {
      state = (state * 1664525 + 1013904223) >>> 0;
      return state / 2 ** 32;
    };
    const seeds = EDGE_TEXTS.map(([, text]) => text).filter((text) => text.length < 400);
    seeds.push(
      '{"vector":[0.5,-0.25,1e-3],"payload":{"n":7,"f":7.0,"s":"x","t":[1,2.5,"a",null,true]},"id":18446744073709551615}',
      '{"query":[0.1,0.2,0.3],"filter":{"must":[{"key":"a","match":{"value":3}}]},"limit":10,"params":{"hnsw_ef":64}}',
    );
    const alphabet = '{}[]":,.-+eE0123456789 \t\n\\u_xaé\ud800';
    let simple = 0;
    for (let n = 0; n < 8000; n++) {
      const seed = seeds[Math.floor(next() * seeds.length)];
      let text = seed;
      const edits = 1 + Math.floor(next() * 3);
      for (let k = 0; k < edits; k++) {
        const at = Math.floor(next() * (text.length + 1));
        const char = alphabet[Math.floor(next() * alphabet.length)];
        const kind = next();
        text =
          kind < 0.33
            ? text.slice(0, at) + char + text.slice(at)
            : kind < 0.66
              ? text.slice(0, at) + text.slice(at + 1)
              : text.slice(0, at) + char + text.slice(at + 1);
      }
      if (parseSimpleJson(text, REST_JSON_MAX_DEPTH) !== NOT_SIMPLE) simple++;
      expectSameAsLossless(text);
    }
    // Not vacuous: many mutated texts are still ones the fast parser reads.
    expect(simple).toBeGreaterThan(800);
  });

  it('should read long inputs as the lossless parser does (a 100k-float vector, a long array of objects)', () => {
    const floats = Array.from({ length: 100_000 }, (_, i) => ((i % 977) / 977 - 0.5).toString());
    expectSameAsLossless(`{"vector":[${floats.join(',')}]}`);
    const points = Array.from({ length: 2000 }, (_, i) => `{"id":${i},"vector":[0.5,${i}.25],"payload":{"i":${i}}}`);
    expectSameAsLossless(`{"points":[${points.join(',')}]}`);
  });

  it('should leave Object.prototype untouched whatever the keys', () => {
    for (const text of [
      '{"__proto__":{"polluted":1}}',
      '{"constructor":{"prototype":{"polluted":1}}}',
      '{"a":{"__proto__":{"polluted":1}}}',
    ]) {
      const value = parseRestJson(text) as Record<string, unknown>;
      expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

/** A full collection, where jest allows it (`--expose-gc` set at run time). */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

describe('issue 27 review: memory held by parsed bodies', () => {
  // A string value of a body lives on in a point's payload (MemoryPayloads keeps the objects). The fast parser took
  // string values with `text.slice`, which V8 makes a view into the whole body text for 13 characters or more: one
  // payload string kept every upsert body alive, vectors and all, for as long as the point stayed in memory. Fixed
  // in fast-rest-json.ts (ownCopy).
  it('should not keep a whole body alive through a string value or key taken from it', () => {
    const body = (i: number): string =>
      `{"payload":{"city":"San Francisco ${i}","a key of some length ${i}":1},"vector":[${Array.from({ length: 40_000 }, (_, k) => (k + 0.5) / 1e5).join(',')}]}`;
    const kept: unknown[] = [];
    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 40; i++) {
      const parsed = parseRestJson(body(i)) as { payload: Record<string, unknown> };
      kept.push(parsed.payload);
    }
    collectGarbage();
    const grown = process.memoryUsage().heapUsed - before;
    // 40 bodies of ~330 KB each: ~13 MB if each is kept; the 40 payloads themselves take a few KB.
    expect(kept).toHaveLength(40);
    expect(grown).toBeLessThan(3_000_000);
  });
});
