// The common case of a REST body, parsed fast: the same values the lossless parser gives (integers as `bigint`,
// other numbers as doubles, plain objects), in one pass over char codes with no string per number token for the
// structure around it. Anything out of the ordinary — a syntax error, a duplicate or `__proto__` key, a number
// beyond the double range, nesting past the limit — is not handled here: the caller falls back to the lossless
// parser, which gives the canonical answer or error. So this may only ever be faster, never different.
// Measured on a 128-d query body (2.6 KB): 88 µs with lossless-json, 17 µs with JSON.parse (which loses int vs
// float), this one ~20 µs.

/** Returned when the text needs the lossless parser. */
export const NOT_SIMPLE: unique symbol = Symbol('not simple JSON');

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const LOWER_E = 0x65;
const UPPER_E = 0x45;

/** Thrown inside the parser to leave it; never escapes {@link parseSimpleJson}. */
class Bail extends Error {}
const BAIL = new Bail();

const hasOwn = Object.prototype.hasOwnProperty;

/** V8 makes a slice of this many characters or more a view into the whole text rather than a copy. */
const SLICE_VIEW_MIN_LENGTH = 13;

/**
 * A string of its own for a slice of the body: a view would keep the whole body text (vectors and all) alive for
 * as long as the string lives, e.g. in a payload held in memory. Joining forces a flat copy; the slice of it that
 * comes back refers to that copy only.
 */
function ownCopy(slice: string): string {
  return slice.length < SLICE_VIEW_MIN_LENGTH ? slice : (' ' + slice).slice(1);
}

/**
 * Parses `text` as the lossless REST parser would, or returns {@link NOT_SIMPLE} when the lossless parser must
 * decide (see the file comment). `maxDepth`: nesting allowed (arrays and objects).
 */
export function parseSimpleJson(text: string, maxDepth: number): unknown {
  let i = 0;
  const length = text.length;

  const skipSpace = (): void => {
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === SPACE || c === LF || c === CR || c === TAB) i++;
      else return;
    }
  };

  const digits = (): number => {
    const start = i;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c >= ZERO && c <= NINE) i++;
      else return i - start;
    }
  };

  const number = (): number | bigint => {
    const start = i;
    if (text.charCodeAt(i) === MINUS) i++;
    const first = text.charCodeAt(i);
    if (first === ZERO) i++;
    else if (first > ZERO && first <= NINE) digits();
    else throw BAIL;
    let integer = true;
    if (text.charCodeAt(i) === DOT) {
      i++;
      if (digits() === 0) throw BAIL;
      integer = false;
    }
    const e = text.charCodeAt(i);
    if (e === LOWER_E || e === UPPER_E) {
      i++;
      const sign = text.charCodeAt(i);
      if (sign === PLUS || sign === MINUS) i++;
      if (digits() === 0) throw BAIL;
      integer = false;
    }
    const token = text.slice(start, i);
    if (integer) return BigInt(token);
    const value = Number(token);
    if (!Number.isFinite(value)) throw BAIL;
    return value;
  };

  /**
   * A flat array of numbers none of which is an integer (a vector): checked in one pass without a string per
   * number, then read by the native parser, which gives each the same double `Number(token)` would. Undefined
   * (and `i` unmoved) for any other array.
   */
  const floatArray = (): number[] | undefined => {
    const start = i;
    i++;
    for (;;) {
      skipSpace();
      const c = text.charCodeAt(i);
      if (c !== MINUS && !(c >= ZERO && c <= NINE)) break;
      if (c === MINUS) i++;
      const first = text.charCodeAt(i);
      if (first === ZERO) i++;
      else if (first > ZERO && first <= NINE) digits();
      else break;
      let integer = true;
      if (text.charCodeAt(i) === DOT) {
        i++;
        if (digits() === 0) break;
        integer = false;
      }
      const e = text.charCodeAt(i);
      if (e === LOWER_E || e === UPPER_E) {
        i++;
        const sign = text.charCodeAt(i);
        if (sign === PLUS || sign === MINUS) i++;
        if (digits() === 0) break;
        integer = false;
      }
      if (integer) break;
      skipSpace();
      const next = text.charCodeAt(i++);
      if (next === CLOSE_BRACKET) {
        const values = JSON.parse(text.slice(start, i)) as number[];
        for (let k = 0; k < values.length; k++) if (!Number.isFinite(values[k])) throw BAIL;
        return values;
      }
      if (next !== COMMA) break;
    }
    i = start;
    return undefined;
  };

  const string = (): string => {
    // At the opening quote.
    const start = ++i;
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) return text.slice(start, i++);
      // Escapes and raw control characters: not the common case.
      if (c === BACKSLASH || c < SPACE || i >= length) throw BAIL;
      i++;
    }
  };

  const value = (depth: number): unknown => {
    skipSpace();
    const c = text.charCodeAt(i);
    // A value gets a copy of its own; a key needs none (V8 interns a property name, copying it).
    if (c === QUOTE) return ownCopy(string());
    if (c === OPEN_BRACE) {
      if (depth >= maxDepth) throw BAIL;
      i++;
      const object: Record<string, unknown> = {};
      skipSpace();
      if (text.charCodeAt(i) === CLOSE_BRACE) {
        i++;
        return object;
      }
      for (;;) {
        skipSpace();
        if (text.charCodeAt(i) !== QUOTE) throw BAIL;
        const key = string();
        if (key === '__proto__' || hasOwn.call(object, key)) throw BAIL;
        skipSpace();
        if (text.charCodeAt(i) !== COLON) throw BAIL;
        i++;
        object[key] = value(depth + 1);
        skipSpace();
        const next = text.charCodeAt(i++);
        if (next === CLOSE_BRACE) return object;
        if (next !== COMMA) throw BAIL;
      }
    }
    if (c === OPEN_BRACKET) {
      if (depth >= maxDepth) throw BAIL;
      const floats = floatArray();
      if (floats !== undefined) return floats;
      i++;
      const array: unknown[] = [];
      skipSpace();
      if (text.charCodeAt(i) === CLOSE_BRACKET) {
        i++;
        return array;
      }
      for (;;) {
        array.push(value(depth + 1));
        skipSpace();
        const next = text.charCodeAt(i++);
        if (next === CLOSE_BRACKET) return array;
        if (next !== COMMA) throw BAIL;
      }
    }
    if (c === MINUS || (c >= ZERO && c <= NINE)) return number();
    if (text.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return null;
    }
    throw BAIL;
  };

  try {
    const result = value(0);
    skipSpace();
    return i === length ? result : NOT_SIMPLE;
  } catch (error) {
    if (error instanceof Bail) return NOT_SIMPLE;
    throw error;
  }
}
