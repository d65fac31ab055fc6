import { JsonObject, JsonValue, setOwn } from '@vectorstore/common';
import { bodyFormatError } from './rest-format.error';

/**
 * Structural decoding of REST bodies, as serde does it in Qdrant: a value of the wrong type, a
 * negative unsigned number or an unknown enum name is a 400 naming the field. Rules on values
 * (ranges, lengths) are the domain's, reported as 422. Unknown fields are ignored; `null` means absent.
 */
export type Decoder<T> = (value: unknown, path: string) => T;

/** How serde names a JSON value in its messages. */
export function describeJson(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'bigint') return `integer \`${value}\``;
  if (typeof value === 'number') return `floating point \`${value}\``;
  if (typeof value === 'boolean') return `boolean \`${value}\``;
  if (typeof value === 'string')
    return `string ${JSON.stringify(value.length > 64 ? value.slice(0, 64) + '…' : value)}`;
  if (Array.isArray(value)) return 'a sequence';
  return 'a map';
}

function invalidType(path: string, value: unknown, expected: string): never {
  throw bodyFormatError(path, `invalid type: ${describeJson(value)}, expected ${expected}`);
}

function unsigned(bits: 32 | 64): Decoder<number> {
  const max = bits === 32 ? 2 ** 32 - 1 : Number.MAX_SAFE_INTEGER;
  return (value, path) => {
    if (typeof value !== 'bigint') return invalidType(path, value, `u${bits}`);
    if (value < 0n || (bits === 32 && value > BigInt(max))) {
      throw bodyFormatError(path, `invalid value: integer \`${value}\`, expected u${bits}`);
    }
    if (value > BigInt(max)) throw bodyFormatError(path, `integer \`${value}\` is too large (at most ${max})`);
    return Number(value);
  };
}

export const u64 = unsigned(64);
export const u32 = unsigned(32);

/** A u64 kept exact as a decimal string (shard keys, peer ids). */
export const u64Text: Decoder<string> = (value, path) => {
  if (typeof value !== 'bigint') return invalidType(path, value, 'u64');
  if (value < 0n || value >= 2n ** 64n)
    throw bodyFormatError(path, `invalid value: integer \`${value}\`, expected u64`);
  return value.toString();
};

export const f64: Decoder<number> = (value, path) => {
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'number') return value;
  return invalidType(path, value, 'f64');
};

export const bool: Decoder<boolean> = (value, path) =>
  typeof value === 'boolean' ? value : invalidType(path, value, 'a boolean');

export const str: Decoder<string> = (value, path) =>
  typeof value === 'string' ? value : invalidType(path, value, 'a string');

/** A string enum, REST name → domain name. */
export function enumOf<T>(names: Record<string, T>): Decoder<T> {
  return (value, path) => {
    if (typeof value !== 'string') return invalidType(path, value, `one of ${Object.keys(names).join(', ')}`);
    if (!Object.prototype.hasOwnProperty.call(names, value)) {
      throw bodyFormatError(
        path,
        `unknown variant \`${value}\`, expected one of ${Object.keys(names)
          .map((n) => `\`${n}\``)
          .join(', ')}`,
      );
    }
    return names[value];
  };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const objectValue: Decoder<Record<string, unknown>> = (value, path) =>
  isPlainObject(value) ? value : invalidType(path, value, 'a map');

function camel(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

type FieldDecoders = Record<string, Decoder<unknown>>;

/**
 * An object of known snake_case fields, decoded into camelCase ones; absent and `null` fields are
 * left out. `required` fields must be present (serde's `missing field`). `aliases` maps another
 * accepted name to a field's name (serde's `alias`), read when the field itself is absent.
 */
export function object<T>(
  fields: FieldDecoders,
  required: readonly string[] = [],
  aliases: Readonly<Record<string, string>> = {},
): Decoder<T> {
  return (value, path) => {
    const input = objectValue(value, path);
    const result: Record<string, unknown> = {};
    for (const [field, decode] of Object.entries(fields)) {
      const name = Object.prototype.hasOwnProperty.call(input, field)
        ? field
        : (Object.keys(aliases).find(
            (alias) => aliases[alias] === field && Object.prototype.hasOwnProperty.call(input, alias),
          ) ?? field);
      const item = Object.prototype.hasOwnProperty.call(input, name) ? input[name] : undefined;
      if (item === undefined || item === null) {
        if (required.includes(field)) throw bodyFormatError(path, `missing field \`${field}\``);
        continue;
      }
      result[camel(field)] = decode(item, join(path, name));
    }
    return result as T;
  };
}

/** A map from user-chosen names (vector names…) to decoded values. */
export function record<T>(decode: Decoder<T>): Decoder<Record<string, T>> {
  return (value, path) => {
    const input = objectValue(value, path);
    const result: Record<string, T> = {};
    for (const [key, item] of Object.entries(input)) setOwn(result, key, decode(item, join(path, key)));
    return result;
  };
}

export function array<T>(decode: Decoder<T>): Decoder<T[]> {
  return (value, path) =>
    Array.isArray(value)
      ? value.map((item, i) => decode(item, `${path}[${i}]`))
      : invalidType(path, value, 'a sequence');
}

/** Arbitrary user JSON (metadata): kept as parsed, integers exact. */
export const jsonObject: Decoder<JsonObject> = (value, path) => objectValue(value, path) as JsonObject;

export const jsonValue: Decoder<JsonValue> = (value) => value as JsonValue;

/** Decodes a whole body; an absent body (no bytes) is serde's EOF error. */
export function decodeBody<T>(body: unknown, decode: Decoder<T>): T {
  if (body === undefined) throw bodyFormatError('', 'EOF while parsing a value at line 1 column 0');
  return decode(body, '');
}
