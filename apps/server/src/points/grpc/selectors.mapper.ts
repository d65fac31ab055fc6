import type { ShardKey } from '@vectorstore/collections';
import { ValidationIssues } from '@vectorstore/common';
import type { PayloadSelector, PointsSelector, ShardKeySelector, VectorSelector } from '@vectorstore/points';
import type { PointsSelector__Output } from '../../grpc/generated/vectorstore/PointsSelector';
import type { ShardKeySelector__Output } from '../../grpc/generated/vectorstore/ShardKeySelector';
import type { WithPayloadSelector__Output } from '../../grpc/generated/vectorstore/WithPayloadSelector';
import type { WithVectorsSelector__Output } from '../../grpc/generated/vectorstore/WithVectorsSelector';
import { shardKeyFromProto } from '../../cluster/grpc/shard-key.grpc.mapper';
import { filterFromProto } from './filter.mapper';
import { pointIdsFromProto } from './point-id.mapper';

/**
 * WithPayloadSelector (oneof enable | include | exclude). Absent means the RPC's default
 * (`absent`): false for Get, Search, Recommend and Query, true for Scroll, as in Qdrant.
 */
export function payloadSelectorFromProto(
  issues: ValidationIssues,
  path: string,
  s: WithPayloadSelector__Output | undefined,
  absent: boolean,
): PayloadSelector {
  if (!s) return { enable: absent };
  switch (s.selectorOptions) {
    case 'enable':
      return { enable: s.enable ?? false };
    case 'include':
      return { include: [...(s.include?.fields ?? [])] };
    case 'exclude':
      return { exclude: [...(s.exclude?.fields ?? [])] };
    default:
      issues.add(path, 'must set one of enable, include, exclude');
      return { enable: absent };
  }
}

/** WithVectorsSelector (oneof enable | include); absent means no vectors. */
export function vectorSelectorFromProto(
  issues: ValidationIssues,
  path: string,
  s: WithVectorsSelector__Output | undefined,
): VectorSelector {
  if (!s) return { enable: false };
  switch (s.selectorOptions) {
    case 'enable':
      return { enable: s.enable ?? false };
    case 'include':
      return { include: [...(s.include?.names ?? [])] };
    default:
      issues.add(path, 'must set enable or include');
      return { enable: false };
  }
}

/** PointsSelector (oneof points | filter); a missing selector or empty oneof is reported. */
export function pointsSelectorFromProto(
  issues: ValidationIssues,
  path: string,
  s: PointsSelector__Output | undefined,
): PointsSelector | undefined {
  switch (s?.pointsSelectorOneOf) {
    case 'points':
      return { ids: pointIdsFromProto(issues, `${path}.points.ids`, s.points?.ids) };
    case 'filter':
      return { filter: filterFromProto(issues, `${path}.filter`, s.filter) ?? {} };
    default:
      issues.add(path, s ? 'must set points or filter' : 'must be set');
      return undefined;
  }
}

export function shardKeySelectorFromProto(
  issues: ValidationIssues,
  path: string,
  s: ShardKeySelector__Output | undefined,
): ShardKeySelector | undefined {
  if (!s) return undefined;
  const shardKeys: ShardKey[] = [];
  (s.shardKeys ?? []).forEach((key, i) => {
    const mapped = shardKeyFromProto(issues, `${path}.shard_keys[${i}]`, key);
    if (mapped) shardKeys.push(mapped);
  });
  const fallback = s.fallback ? shardKeyFromProto(issues, `${path}.fallback`, s.fallback) : undefined;
  return fallback ? { shardKeys, fallback } : { shardKeys };
}
