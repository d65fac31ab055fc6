import { DomainError } from '@vectorstore/common';

/**
 * What a REST body decoder accepts at its top level, learnt by running the decoder itself on probe bodies: the
 * fields it reads (a Proxy records every property it looks up), the ones it requires (its serde-style
 * "missing field" error), and each field's JSON types (a value of each type is tried; a type is accepted unless
 * the decoder answers a format error naming that field). So the API description follows the decoders' rules and
 * cannot drift from them. Rules on values (ranges, 422s) are not types and are not reported, nor are the keys of a
 * tagged union that a decoder finds with `Object.keys` rather than by name (`query`'s `{"recommend": …}`).
 */
export interface ProbedBody {
  /** Field name → the JSON types the decoder accepts there, in the order the decoder reads the fields. */
  fields: [string, JsonType[]][];
  required: string[];
  /** For fields that take an object: the fields read inside it and their types (one level down). */
  nested: Record<string, [string, JsonType[]][]>;
}

export type JsonType = 'integer' | 'number' | 'string' | 'boolean' | 'array' | 'object';

/** One value of each JSON type, as the REST body parser gives them (integers as `bigint`). */
const SAMPLES: [JsonType, () => unknown][] = [
  ['integer', () => 1n],
  ['number', () => 0.5],
  ['string', () => 'x'],
  ['boolean', () => true],
  ['array', () => []],
  ['object', () => ({})],
];

/** Keys the JS runtime itself looks up on any object; not fields. */
const NOT_FIELDS = new Set([
  'then',
  'toJSON',
  'constructor',
  'length',
  'prototype',
  '__proto__',
  'valueOf',
  'undefined',
]);

const MISSING = /^Format error in JSON body: missing field `([^`]+)`$/;

function recording(base: Record<string, unknown>, seen: Set<string>): Record<string, unknown> {
  const note = (key: string | symbol): void => {
    if (typeof key === 'string' && !NOT_FIELDS.has(key)) seen.add(key);
  };
  return new Proxy(base, {
    get(target, key, receiver) {
      note(key);
      return Reflect.get(target, key, receiver) as unknown;
    },
    has(target, key) {
      note(key);
      return Reflect.has(target, key);
    },
    getOwnPropertyDescriptor(target, key) {
      note(key);
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
  });
}

/** The error `read` throws for `body`, or undefined when it accepts it. */
function failure(read: (body: unknown) => unknown, body: unknown): Error | undefined {
  try {
    read(body);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** Whether `error` is a format error about `field` (a dotted path: at it or inside it). */
function rejects(error: Error | undefined, field: string, sample?: unknown): boolean {
  if (error === undefined) return false;
  if (!(error instanceof DomainError)) return true;
  const missing = MISSING.exec(error.message);
  if (missing) return missing[1] === field;
  const prefix = 'Format error in JSON body: ';
  if (!error.message.startsWith(prefix)) return false;
  const rest = error.message.slice(prefix.length);
  // Qdrant's flattened request structs put a prefix before some fields (`internal.limit`).
  const at = [field, `internal.${field}`];
  // An empty list or object may be the right type with content missing (`{}` is no variant of `query`'s union):
  // only "invalid type" rules the type out.
  if (typeof sample === 'object' && sample !== null) return at.some((path) => rest.startsWith(`${path}: invalid type`));
  return at.some((path) => [':', '.', '['].some((next) => rest.startsWith(path + next)));
}

/** A value of the first type `read` accepts for `field` (with `base`'s other fields), or undefined. */
function acceptedSample(read: (body: unknown) => unknown, base: Record<string, unknown>, field: string): unknown {
  for (const [, sample] of SAMPLES) {
    const value = sample();
    if (!rejects(failure(read, { ...base, [field]: value }), field, value)) return value;
  }
  return undefined;
}

export function probeBody(read: (body: unknown) => unknown): ProbedBody {
  const base: Record<string, unknown> = {};
  const seen = new Set<string>();
  const required: string[] = [];
  // Required fields one after another: each found is given a value the decoder takes, and the probe runs again.
  for (let round = 0; round < 8; round++) {
    const missing = MISSING.exec(failure(read, recording({ ...base }, seen))?.message ?? '');
    if (!missing || required.includes(missing[1]) || missing[1].includes('.')) break;
    required.push(missing[1]);
    seen.add(missing[1]);
    base[missing[1]] = acceptedSample(read, base, missing[1]);
  }
  const typesAt = (field: string, body: (value: unknown) => unknown, path: string): JsonType[] => {
    const types = SAMPLES.filter(([, sample]) => !rejects(failure(read, body(sample())), path, sample())).map(
      ([type]) => type,
    );
    // An integer is a number: say "number" alone when both pass.
    return types.includes('number') ? types.filter((t) => t !== 'integer') : types;
  };
  const fields: [string, JsonType[]][] = [...seen].map((field) => [
    field,
    typesAt(field, (value) => ({ ...base, [field]: value }), field),
  ]);
  const nested: ProbedBody['nested'] = {};
  for (const [field, types] of fields) {
    if (!types.includes('object')) continue;
    const inner = new Set<string>();
    failure(read, { ...base, [field]: recording({}, inner) });
    if (inner.size === 0) continue;
    nested[field] = [...inner].map((sub) => [
      sub,
      typesAt(sub, (value) => ({ ...base, [field]: { [sub]: value } }), `${field}.${sub}`),
    ]);
  }
  return { fields, required, nested };
}
