import { ValidationIssues } from '@vectorstore/common';
import { canonicalUuid, MAX_U64, PointId } from '@vectorstore/points';
import type { PointId as ProtoPointId, PointId__Output } from '../../grpc/generated/vectorstore/PointId';

/**
 * Reads a uint64/int64 that proto-loader delivered as a decimal string into an exact bigint,
 * reporting text that is not an integer or lies outside [min, max].
 */
export function readBigInt(
  issues: ValidationIssues,
  path: string,
  value: string | number | undefined,
  min: bigint = 0n,
  max: bigint = MAX_U64,
): bigint | undefined {
  if (value === undefined) return undefined;
  const text = String(value).trim();
  if (!/^-?\d+$/.test(text)) {
    issues.add(path, `value ${text} invalid, must be an integer`);
    return undefined;
  }
  const parsed = BigInt(text);
  if (parsed < min || parsed > max) {
    issues.add(path, `value ${text} invalid, must be from ${min} to ${max}`);
    return undefined;
  }
  return parsed;
}

export const MIN_I64 = -(1n << 63n);
export const MAX_I64 = (1n << 63n) - 1n;

/** proto PointId (oneof num | uuid) to the domain id: a bigint, or a canonical lowercase hyphenated UUID. */
export function pointIdFromProto(
  issues: ValidationIssues,
  path: string,
  id: PointId__Output | undefined | null,
): PointId | undefined {
  switch (id?.pointIdOptions) {
    case 'num':
      return readBigInt(issues, `${path}.num`, id.num ?? '0');
    case 'uuid': {
      const uuid = canonicalUuid(id.uuid ?? '');
      if (uuid === undefined) issues.add(`${path}.uuid`, `Unable to parse UUID: ${id.uuid ?? ''}`);
      return uuid;
    }
    default:
      issues.add(path, 'must set num or uuid');
      return undefined;
  }
}

/** Maps a repeated PointId, reporting each bad element by index; bad elements are dropped. */
export function pointIdsFromProto(
  issues: ValidationIssues,
  path: string,
  ids: readonly PointId__Output[] | undefined,
): PointId[] {
  const result: PointId[] = [];
  (ids ?? []).forEach((id, i) => {
    const mapped = pointIdFromProto(issues, `${path}[${i}]`, id);
    if (mapped !== undefined) result.push(mapped);
  });
  return result;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export function pointIdToProto(id: PointId): ProtoPointId {
  if (typeof id !== 'bigint') return { uuid: id };
  // A number is encoded without the string parse a uint64 text costs protobufjs; past 2^53 only text is exact.
  return { num: id <= MAX_SAFE ? Number(id) : id.toString() };
}
