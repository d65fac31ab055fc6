// Property-based requests without a library: values drawn from the seeded Rng (test/support/seeded-random.ts),
// biased toward what breaks servers (wrong types, extremes, odd text), and a greedy shrinker that makes a failing
// body small before it is reported. fast-check is not a dependency; this is the part of it the fuzz specs need.
import { Rng } from '../seeded-random';

/** A JSON number or literal written as is, for what JSON.stringify cannot write (1e400, 2^64 exactly). */
export class RawJson {
  constructor(readonly text: string) {}
}

export type Json = null | boolean | number | string | RawJson | Json[] | { [key: string]: Json };

/** JSON text of a value holding RawJson leaves. */
export function jsonText(value: Json): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([key, item]) => `${JSON.stringify(key)}:${jsonText(item)}`)
      .join(',')}}`;
  }
  // JSON.stringify writes NaN and Infinity as null; the raw forms go through RawJson.
  return JSON.stringify(value) ?? 'null';
}

/** Numbers at the edges of every integer and float type a field may hold. */
export const EDGE_NUMBERS: readonly number[] = [
  0,
  1,
  -1,
  2,
  3,
  4,
  5,
  0.5,
  -0.5,
  1.5,
  1e-7,
  1e-320,
  100,
  255,
  256,
  65535,
  65536,
  2 ** 31 - 1,
  2 ** 31,
  -(2 ** 31),
  2 ** 32 - 1,
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53 + 2,
  -(2 ** 53),
  1e15,
  1e21,
  3.4e38,
  3.5e38,
  1e308,
  -1e308,
];

/** Number literals beyond float64 or 53-bit integers, written as they come. */
export const RAW_NUMBERS: readonly string[] = [
  '1e400',
  '-1e400',
  '18446744073709551615',
  '18446744073709551616',
  '9223372036854775807',
  '-9223372036854775809',
  '123456789012345678901234567890',
  '-0',
  '1.0',
  '1E2',
  '4.000000000000000000001',
  '0.1e-400',
];

export const ODD_STRINGS: readonly string[] = [
  '',
  ' ',
  'x',
  'fuzz',
  'Dot',
  'Cosine',
  'Euclid',
  'Manhattan',
  'keyword',
  'integer',
  'float',
  'geo',
  'text',
  'bool',
  'datetime',
  'uuid',
  'Float32',
  'Uint8',
  'Float16',
  'int8',
  'asc',
  'desc',
  'all',
  'majority',
  'quorum',
  'strong',
  'weak',
  'medium',
  'snapshot',
  'replica',
  'no_sync',
  'rrf',
  'dbsf',
  'fusion',
  'random',
  'sample',
  'nearest',
  'best_score',
  'average_vector',
  'sum_scores',
  'city',
  'n',
  'extra',
  'dense',
  'sparse',
  '00000000-0000-0000-0000-000000000000',
  '6f0f5b9a-1b1e-4c2f-9a8e-6c1e1f2a3b4c',
  '6F0F5B9A1B1E4C2F9A8E6C1E1F2A3B4C',
  '2024-01-01T00:00:00Z',
  '2024-13-45',
  'not-a-date',
  '-1',
  '1e400',
  '18446744073709551616',
  'NaN',
  'Infinity',
  'true',
  'null',
  '{}',
  '[]',
  'a.b[].c',
  'a[',
  'a..b',
  '$.x',
  'metadata.x',
  '../../etc/passwd',
  '..',
  '/',
  'a/b',
  '%00',
  '\u0000',
  '\ud800',
  '\uffff',
  'ünï©ødé 💥',
  'e\u0301',
  '<script>',
  'x'.repeat(256),
  'y'.repeat(5000),
  'http://127.0.0.1:1/none.snapshot',
  'file:///nonexistent/x.snapshot',
  'file:///etc/passwd',
];

/** A scalar of any JSON type, most often an awkward one. */
export function badScalar(rng: Rng): Json {
  switch (rng.below(6)) {
    case 0:
      return rng.pick(EDGE_NUMBERS) * (rng.bool(0.2) ? -1 : 1);
    case 1:
      return new RawJson(rng.pick(RAW_NUMBERS));
    case 2:
    case 3:
      return rng.pick(ODD_STRINGS);
    case 4:
      return rng.bool();
    default:
      return null;
  }
}

/** Any JSON value: a scalar, or an array or object of them, with keys from `keys` (or odd ones). */
export function anyJson(rng: Rng, keys: readonly string[], depth = 3): Json {
  const roll = rng.below(10);
  if (depth <= 0 || roll < 5) return badScalar(rng);
  if (roll < 7) return Array.from({ length: rng.int(0, 4) }, () => anyJson(rng, keys, depth - 1));
  if (roll < 8) return deepNesting(rng);
  const object: Record<string, Json> = {};
  for (let i = rng.int(0, 4); i > 0; i--) object[anyKey(rng, keys)] = anyJson(rng, keys, depth - 1);
  return object;
}

export function anyKey(rng: Rng, keys: readonly string[]): string {
  return rng.bool(0.9) && keys.length > 0 ? rng.pick(keys) : rng.pick(['', '__proto__', 'constructor', '\ud800', 'x']);
}

/** Arrays or objects nested a few hundred deep (parsers and recursive mappers have limits). */
export function deepNesting(rng: Rng): Json {
  const depth = rng.pick([20, 64, 65, 200, 1000]);
  let value: Json = rng.bool() ? 1 : [];
  for (let i = 0; i < depth; i++) value = rng.bool() ? [value] : { a: value };
  return value;
}

/** Replaces one node of `value` (chosen uniformly along a random walk) with `replacement(rng)`. */
export function mutate(rng: Rng, value: Json, replacement: (rng: Rng) => Json): Json {
  if (value === null || typeof value !== 'object' || value instanceof RawJson || rng.bool(0.25))
    return replacement(rng);
  if (Array.isArray(value)) {
    if (value.length === 0) return [replacement(rng)];
    const copy = [...value];
    const at = rng.below(copy.length);
    copy[at] = mutate(rng, copy[at], replacement);
    return copy;
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return { [rng.pick(ODD_STRINGS)]: replacement(rng) };
  const key = rng.pick(keys);
  return { ...value, [key]: mutate(rng, value[key], replacement) };
}

/** Smaller variants of a value: each element or key removed, each subtree replaced by its children or by null. */
function* smaller(value: Json): Generator<Json> {
  if (value === null || typeof value !== 'object' || value instanceof RawJson) return;
  if (Array.isArray(value)) {
    if (value.length > 1) yield value.slice(0, Math.ceil(value.length / 2));
    for (let i = 0; i < value.length; i++) yield [...value.slice(0, i), ...value.slice(i + 1)];
    for (let i = 0; i < value.length; i++) {
      for (const item of smaller(value[i])) yield [...value.slice(0, i), item, ...value.slice(i + 1)];
    }
    return;
  }
  const keys = Object.keys(value);
  for (const key of keys) {
    const rest = { ...value };
    delete rest[key];
    yield rest;
  }
  for (const key of keys) for (const item of smaller(value[key])) yield { ...value, [key]: item };
}

/**
 * Greedy shrinking: the first smaller variant that still fails replaces the value, until none does or `budget`
 * attempts are spent. The result fails too (it is the input when nothing smaller does).
 */
export async function shrink(value: Json, fails: (value: Json) => Promise<boolean>, budget = 150): Promise<Json> {
  let current = value;
  let attempts = 0;
  for (let progressed = true; progressed && attempts < budget;) {
    progressed = false;
    for (const candidate of smaller(current)) {
      if (++attempts > budget) break;
      if (await fails(candidate)) {
        current = candidate;
        progressed = true;
        break;
      }
    }
  }
  return current;
}

/** Seed and run count: fixed in `npm test`, FUZZ_SEED=random (or a number) and FUZZ_RUNS for a long run. */
export function fuzzSettings(defaultRuns: number): { seed: number; runs: number } {
  const seedText = process.env.FUZZ_SEED;
  const seed =
    seedText === 'random' ? Math.floor(Math.random() * 2 ** 32) : seedText ? Number(seedText) >>> 0 : 0x28_0008;
  const runs = process.env.FUZZ_RUNS ? Math.max(1, Number(process.env.FUZZ_RUNS)) : defaultRuns;
  return { seed, runs };
}

/** A stream per case, so one route's runs do not depend on which others ran: the seed mixed with the case's name. */
export function caseRng(seed: number, name: string): Rng {
  let h = seed ^ 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return new Rng(h >>> 0);
}
