// Well-formed protobuf messages with bad values, drawn from the message types themselves (protobufjs reflection),
// so a field added to a proto is fuzzed without a change here.
import * as protobuf from 'protobufjs';
import { Rng } from '../seeded-random';
import { EDGE_NUMBERS, Json, ODD_STRINGS, RawJson } from './json-arbitrary';

/** The fixture's collections and vector size: a generated name or vector is often one of them, to get past lookups. */
export const FIXTURE = { collection: 'fuzz', named: 'fuzz_named', dim: 4 } as const;

const INT32 = [0, 1, -1, 4, 100, 2 ** 31 - 1, -(2 ** 31)];
const UINT32 = [0, 1, 4, 10, 100, 65535, 2 ** 32 - 1];
const INT64 = ['0', '1', '-1', '4', '9007199254740993', '9223372036854775807', '-9223372036854775808'];
const UINT64 = ['0', '1', '2', '4', '9007199254740993', '18446744073709551615'];
const FLOATS = [0, 1, -1, 0.5, 4, 1e-45, 3.4e38, 3.5e38, 1e308, NaN, Infinity, -Infinity, -0];

export interface ProtoShape {
  /** int64 values as JSON numbers (REST bodies) instead of the decimal strings grpc-js takes. */
  longsAsNumbers: boolean;
  /**
   * The share of values drawn from the edges; the others are plausible (small counts, the fixture's names, unit
   * floats), so that a message gets past the first check and its one bad value meets the deeper code.
   */
  badness: number;
}

const PLAUSIBLE_STRINGS = ['city', 'n', 'tags', 'dense', 'sparse', 'London', 'Paris', 'fuzz', 'a'];

/** A message of `type`: each field present or not, one member of each oneof, values from the edges. */
export function protoMessage(rng: Rng, type: protobuf.Type, shape: ProtoShape, depth = 5): Record<string, Json> {
  const message: Record<string, Json> = {};
  const chosen = new Map<protobuf.OneOf, protobuf.Field | undefined>();
  for (const oneof of type.oneofsArray) {
    const members = oneof.fieldsArray;
    chosen.set(oneof, rng.bool(0.8) ? rng.pick(members) : undefined);
  }
  for (const field of type.fieldsArray) {
    const oneof = field.partOf;
    if (oneof && oneof.fieldsArray.length > 1 && chosen.get(oneof) !== field) continue;
    if (!oneof && !isCollectionName(field) && !rng.bool(depth >= 5 ? 0.8 : 0.4)) continue;
    if (oneof && oneof.fieldsArray.length === 1 && !rng.bool(0.6)) continue; // proto3 `optional`
    message[field.name] = fieldValue(rng, field, shape, depth);
  }
  return message;
}

function isCollectionName(field: protobuf.Field): boolean {
  return /^collection_?name$/i.test(field.name);
}

function fieldValue(rng: Rng, field: protobuf.Field, shape: ProtoShape, depth: number): Json {
  if (field instanceof protobuf.MapField) {
    const map: Record<string, Json> = {};
    for (let i = rng.int(0, depth > 2 ? 3 : 1); i > 0; i--) {
      const key = field.keyType === 'string' ? rng.pick(ODD_STRINGS) : String(rng.pick(INT32));
      map[key] = single(rng, field, shape, depth);
    }
    return map;
  }
  if (field.repeated) {
    if (isVectorData(field) && rng.bool(0.5)) return Array.from({ length: FIXTURE.dim }, () => rng.float(-1, 1));
    const length = depth > 2 ? rng.pick([0, 1, 1, 2, 3, 4, 40]) : rng.int(0, 1);
    return Array.from({ length }, () => single(rng, field, shape, depth));
  }
  return single(rng, field, shape, depth);
}

function isVectorData(field: protobuf.Field): boolean {
  return field.type === 'float' && /^(data|vector)$/i.test(field.name);
}

function single(rng: Rng, field: protobuf.Field, shape: ProtoShape, depth: number): Json {
  const resolved = field.resolvedType;
  if (!(resolved instanceof protobuf.Type) && !rng.bool(shape.badness)) return plausible(rng, field, shape);
  if (resolved instanceof protobuf.Enum) {
    const names = Object.keys(resolved.values);
    return rng.bool(0.85) ? rng.pick(names) : rng.pick([99, -1, 2 ** 31 - 1]);
  }
  if (resolved instanceof protobuf.Type) return depth > 0 ? protoMessage(rng, resolved, shape, depth - 1) : {};
  const long = (pool: readonly string[]): Json => {
    const text = rng.pick(pool);
    return shape.longsAsNumbers ? new RawJson(text) : text;
  };
  switch (field.type) {
    case 'string':
      if (isCollectionName(field) || field.name === 'collection') return collectionName(rng);
      return rng.pick(ODD_STRINGS);
    case 'bool':
      return rng.bool();
    case 'bytes':
      return Buffer.from(Array.from({ length: rng.int(0, 8) }, () => rng.int(0, 255))).toString('base64');
    case 'double':
    case 'float':
      return finiteForJson(rng.pick(FLOATS), shape);
    case 'int32':
    case 'sint32':
    case 'sfixed32':
      return rng.pick(INT32);
    case 'uint32':
    case 'fixed32':
      return rng.pick(UINT32);
    case 'int64':
    case 'sint64':
    case 'sfixed64':
      return long(INT64);
    case 'uint64':
    case 'fixed64':
      return long(UINT64);
    default:
      return rng.pick(EDGE_NUMBERS);
  }
}

function plausible(rng: Rng, field: protobuf.Field, shape: ProtoShape): Json {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Enum) return rng.pick(Object.keys(resolved.values));
  switch (field.type) {
    case 'string':
      return isCollectionName(field) || field.name === 'collection' ? collectionName(rng) : rng.pick(PLAUSIBLE_STRINGS);
    case 'bool':
      return rng.bool();
    case 'double':
    case 'float':
      return rng.float(-1, 1);
    case 'bytes':
      return '';
    default: {
      const n = rng.pick([1, 2, 3, 4, 10]);
      return /64$/.test(field.type) && !shape.longsAsNumbers ? String(n) : n;
    }
  }
}

/** JSON has no NaN or Infinity: a REST body gets an out-of-range literal instead. */
function finiteForJson(value: number, shape: ProtoShape): Json {
  if (!shape.longsAsNumbers || Number.isFinite(value)) return value;
  return new RawJson(Number.isNaN(value) ? '1e400' : value > 0 ? '1e400' : '-1e400');
}

/** A collection name: the fixture's most of the time, so handlers get past "not found". */
export function collectionName(rng: Rng): string {
  const roll = rng.below(10);
  if (roll < 7) return FIXTURE.collection;
  if (roll < 8) return FIXTURE.named;
  return rng.pick(ODD_STRINGS);
}

/** Every message type in a root, for "any body" draws. */
export function messageTypes(root: protobuf.Root): protobuf.Type[] {
  const types: protobuf.Type[] = [];
  const walk = (namespace: protobuf.NamespaceBase): void => {
    for (const nested of namespace.nestedArray) {
      if (nested instanceof protobuf.Type) types.push(nested);
      if (nested instanceof protobuf.Namespace || nested instanceof protobuf.Type) walk(nested);
    }
  };
  walk(root);
  return types;
}
