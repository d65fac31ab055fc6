import { JsonValue } from '@vectorstore/common';
import { isInteger, LosslessNumber, parse, stringify } from 'lossless-json';

/**
 * Parses a REST body: integers become `bigint` (exact up to 2^64−1 and beyond, so ids and u64
 * fields are never rounded), other numbers doubles. Payload and metadata keep int vs float this way.
 */
export function parseRestJson(text: string): unknown {
  return parse(text, null, (value: string) => (isInteger(value) ? BigInt(value) : Number(value)));
}

/** Serialises an answer: `bigint` as exact digits, {@link LosslessNumber} as its own text. */
export function stringifyRestJson(value: unknown): string {
  return (
    stringify(value, undefined, undefined, [
      { test: (v: unknown) => typeof v === 'bigint', stringify: (v: unknown) => (v as bigint).toString() },
      {
        test: (v: unknown) => typeof v === 'number',
        // JSON has no NaN or Infinity; Qdrant writes them as null.
        stringify: (v: unknown) => (Number.isFinite(v) ? JSON.stringify(v) : 'null'),
      },
    ]) ?? 'null'
  );
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
  if (!Number.isFinite(value)) return null;
  const f = Math.fround(value);
  for (let precision = 1; precision <= 9; precision++) {
    const text = f.toPrecision(precision);
    if (Math.fround(Number(text)) === f) return new LosslessNumber(String(Number(text)));
  }
  return new LosslessNumber(String(f));
}
