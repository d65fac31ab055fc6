import { JsonValue } from '@vectorstore/common';
import { isInteger, LosslessNumber, parse } from 'lossless-json';
import { NOT_SIMPLE, parseSimpleJson } from './fast-rest-json';

/** Qdrant's JSON reader (serde_json) stops at 128 levels of nesting. */
export const REST_JSON_MAX_DEPTH = 128;

/** A body that is JSON but not one Qdrant would read: answered 400 `Format error in JSON body: …`. */
export class RestJsonFormatError extends Error {}

/**
 * Parses a REST body: integers become `bigint` (exact up to 2^64−1 and beyond, so ids and u64
 * fields are never rounded), other numbers doubles. Payload and metadata keep int vs float this way.
 * Nesting deeper than {@link REST_JSON_MAX_DEPTH} and numbers beyond the double range are refused as
 * serde refuses them: deep values would later overflow the stack wherever they are walked (flush,
 * snapshots, answers), and JSON cannot carry an infinity back.
 */
export function parseRestJson(text: string): unknown {
  // The common case first (same values, ~4× faster); anything unusual is decided by the lossless parser.
  const simple = parseSimpleJson(text, REST_JSON_MAX_DEPTH);
  return simple !== NOT_SIMPLE ? simple : parseRestJsonLossless(text);
}

/** {@link parseRestJson} by the lossless parser alone: the reference the fast path must agree with. */
export function parseRestJsonLossless(text: string): unknown {
  checkNesting(text);
  return parse(text, null, (value: string) => {
    if (isInteger(value)) return BigInt(value);
    const number = Number(value);
    if (!Number.isFinite(number)) throw new RestJsonFormatError(`number out of range: ${value.slice(0, 40)}`);
    return number;
  });
}

/** One pass over the text, outside strings, counting open brackets. */
function checkNesting(text: string): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > REST_JSON_MAX_DEPTH) throw new RestJsonFormatError('recursion limit exceeded');
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
}

/** JSON text written into an answer as it is (see {@link stringifyRestJson}): pre-encoded parts of large answers. */
export class RestRawJson {
  constructor(readonly text: string) {}
}

/**
 * Serialises an answer: `bigint` as exact digits, {@link LosslessNumber} as its own text,
 * {@link RestRawJson} verbatim, non-finite numbers as null (JSON has no NaN; Qdrant writes null).
 * A direct writer: lossless-json's generic stringify was the slowest part of large answers.
 */
export function stringifyRestJson(value: unknown): string {
  return write(value) ?? 'null';
}

function write(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      if (value === null) return 'null';
      if (value instanceof RestRawJson) return value.text;
      if (value instanceof LosslessNumber) return value.value;
      if (Array.isArray(value)) {
        let out = '[';
        for (let i = 0; i < value.length; i++) out += (i > 0 ? ',' : '') + (write(value[i]) ?? 'null');
        return out + ']';
      }
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
        return write((value as { toJSON: () => unknown }).toJSON());
      }
      return writeObject(value as Record<string, unknown>);
    default:
      return undefined;
  }
}

function writeObject(value: Record<string, unknown>): string {
  let out = '{';
  let first = true;
  for (const key of Object.keys(value)) {
    const item = write(value[key]);
    if (item === undefined) continue;
    out += (first ? '' : ',') + JSON.stringify(key) + ':' + item;
    first = false;
  }
  return out + '}';
}

/**
 * User JSON (payload, metadata) for the wire: integers (bigint) stay integers and doubles keep a
 * decimal point (`1.0`), so a value written as a float reads back as a float, as in Qdrant.
 */
export function userJsonToRest(value: JsonValue): unknown {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return null;
    const text = String(value);
    return new LosslessNumber(/[.eE]/.test(text) ? text : `${text}.0`);
  }
  if (Array.isArray(value)) return value.map(userJsonToRest);
  if (typeof value === 'object' && value !== null) {
    const result: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(result, key, { value: userJsonToRest(item), enumerable: true, writable: true });
    }
    return result;
  }
  return value;
}

/** The shortest text that reads back as the same f32 (`0.19`, not `0.1899999976158142`). */
export function f32Text(value: number): LosslessNumber | null {
  return Number.isFinite(value) ? new LosslessNumber(shortestF32(value)) : null;
}

/** {@link f32Text} for a whole vector, written straight to JSON text (no object per float). */
export function f32ArrayText(values: ArrayLike<number>): RestRawJson {
  let out = '[';
  for (let i = 0; i < values.length; i++) {
    out += (i > 0 ? ',' : '') + (Number.isFinite(values[i]) ? shortestF32(values[i]) : 'null');
  }
  return new RestRawJson(out + ']');
}

/**
 * Shortest decimal with at most 9 significant digits that rounds to the same f32. Seven digits
 * are tried first: when they fit, shorter ones are looked for; otherwise 8, then 9 (always enough).
 */
function shortestF32(value: number): string {
  const f = Math.fround(value);
  const fits = (precision: number): string | undefined => {
    const text = f.toPrecision(precision);
    return Math.fround(Number(text)) === f ? text : undefined;
  };
  let best = fits(7);
  if (best !== undefined) {
    for (let precision = 1; precision < 7; precision++) {
      const shorter = fits(precision);
      if (shorter !== undefined) {
        best = shorter;
        break;
      }
    }
  } else best = fits(8) ?? f.toPrecision(9);
  return String(Number(best));
}

/** Arrays at least this long are written in slices, yielding to the event loop between them. */
const SLICED_MIN_LENGTH = 256;
/** Longest stretch of encoding before other requests get a turn. */
const SLICE_MS = 8;
/** How deep into the answer big arrays are looked for (envelope → result → points). */
const SLICED_MAX_DEPTH = 3;

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * {@link stringifyRestJson}, with the large arrays near the top of an answer (a scroll's points, a search's hits)
 * written a slice at a time: a 7.5 MiB answer used to hold the event loop, and every other request, for over a
 * second. The text is the same.
 */
export async function stringifyRestJsonSliced(value: unknown, depth = 0): Promise<string> {
  if (Array.isArray(value) && value.length >= SLICED_MIN_LENGTH) {
    let out = '[';
    let since = performance.now();
    for (let i = 0; i < value.length; i++) {
      out += (i > 0 ? ',' : '') + stringifyRestJson(value[i]);
      if (performance.now() - since > SLICE_MS) {
        await yieldToLoop();
        since = performance.now();
      }
    }
    return out + ']';
  }
  if (depth >= SLICED_MAX_DEPTH || !isPlainRecord(value)) return stringifyRestJson(value);
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const child = value[key];
    if (!Array.isArray(child) && !isPlainRecord(child)) continue;
    const text = await stringifyRestJsonSliced(child, depth + 1);
    copy ??= { ...value };
    Object.defineProperty(copy, key, {
      value: new RestRawJson(text),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return stringifyRestJson(copy ?? value);
}
