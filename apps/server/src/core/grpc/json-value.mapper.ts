import { JsonObject, JsonValue, setOwn, ValidationIssues } from '@vectorstore/common';
import type { Value, Value__Output } from '../../grpc/generated/vectorstore/Value';

/** proto `Value` (json_with_int) to domain JSON: integer_value becomes bigint so it stays exact. */
export function fromProtoValue(issues: ValidationIssues, path: string, value: Value__Output): JsonValue {
  switch (value.kind) {
    case 'doubleValue':
      if (!Number.isFinite(value.doubleValue)) {
        issues.add(path, 'must be a finite number');
        return null;
      }
      return value.doubleValue ?? 0;
    case 'integerValue':
      return BigInt(value.integerValue ?? '0');
    case 'stringValue':
      return value.stringValue ?? '';
    case 'boolValue':
      return value.boolValue ?? false;
    case 'structValue':
      return fromProtoStruct(issues, path, value.structValue?.fields ?? {});
    case 'listValue':
      return (value.listValue?.values ?? []).map((item, i) => fromProtoValue(issues, `${path}[${i}]`, item));
    default:
      // null_value, or a Value with no kind at all.
      return null;
  }
}

export function fromProtoStruct(
  issues: ValidationIssues,
  path: string,
  fields: Record<string, Value__Output>,
): JsonObject {
  const result: JsonObject = {};
  for (const [key, item] of Object.entries(fields)) setOwn(result, key, fromProtoValue(issues, `${path}.${key}`, item));
  return result;
}

/** Domain JSON to proto `Value`: bigint to integer_value, other numbers to double_value. */
export function toProtoValue(value: JsonValue): Value {
  if (value === null) return { nullValue: 'NULL_VALUE' };
  if (typeof value === 'bigint') return { integerValue: value.toString() };
  if (typeof value === 'number') return { doubleValue: value };
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (Array.isArray(value)) return { listValue: { values: value.map(toProtoValue) } };
  return { structValue: { fields: toProtoStruct(value) } };
}

export function toProtoStruct(object: JsonObject): Record<string, Value> {
  return Object.fromEntries(Object.entries(object).map(([key, item]) => [key, toProtoValue(item)]));
}
