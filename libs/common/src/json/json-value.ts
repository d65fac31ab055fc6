import { isInteger, parse, stringify } from 'lossless-json';

/**
 * JSON as the domain stores it: integers are `bigint` (exact 64-bit, as Qdrant's payloads),
 * other numbers are doubles. This keeps `integer_value` and `double_value` apart across a round-trip.
 */
export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

/** Parses text written by {@link stringifyJson}; integers come back as bigint, decimals as number. */
export function parseJson(text: string): unknown {
  return parse(text, null, (value: string) => (isInteger(value) ? BigInt(value) : Number(value)));
}

/** Serialises with bigint as integer literals and integral doubles as `1.0`, so their kind survives. */
export function stringifyJson(value: unknown, space?: number): string {
  const text = stringify(value, undefined, space, [
    { test: (v: unknown) => typeof v === 'bigint', stringify: (v: unknown) => (v as bigint).toString() },
    {
      test: (v: unknown) => typeof v === 'number',
      stringify: (v: unknown) => formatDouble(v as number),
    },
  ]);
  if (text === undefined) {
    throw new TypeError('value is not serialisable as JSON');
  }
  return text;
}

function formatDouble(value: number): string {
  if (!Number.isFinite(value)) {
    // JSON has no NaN/Infinity; Qdrant rejects them in payloads too.
    throw new TypeError(`non-finite number ${value} cannot be stored as JSON`);
  }
  const text = String(value);
  return /[.eE]/.test(text) ? text : `${text}.0`;
}

/**
 * Turns the bigints {@link parseJson} produced back into numbers (for configuration-like data),
 * except inside keys for which `keepExact` is true (user data such as metadata keeps them exact).
 */
export function integersToNumbers(
  value: unknown,
  keepExact: (key: string) => boolean = () => false,
  exact = false,
): unknown {
  if (typeof value === 'bigint') return exact ? value : Number(value);
  if (Array.isArray(value)) return value.map((item) => integersToNumbers(item, keepExact, exact));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, integersToNumbers(item, keepExact, exact || keepExact(key))]),
    );
  }
  return value;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Sets an own property even for keys like `__proto__`, which plain assignment would treat as the
 * prototype. Payload keys, metadata keys and vector names are user data; any string must round-trip.
 */
export function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
