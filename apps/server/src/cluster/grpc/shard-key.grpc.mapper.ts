import { CreateShardKeyRequest, ReplicaState, ShardKey } from '@vectorstore/collections';
import { ValidationIssues } from '@vectorstore/common';
import type { CreateShardKey__Output } from '../../grpc/generated/vectorstore/CreateShardKey';
import type { ShardKey as ProtoShardKey, ShardKey__Output } from '../../grpc/generated/vectorstore/ShardKey';
import { defined, readEnum } from '../../core/scalars';

export function shardKeyFromProto(
  issues: ValidationIssues,
  path: string,
  key: ShardKey__Output | undefined,
): ShardKey | undefined {
  if (key?.key === 'keyword') return { keyword: key.keyword ?? '' };
  if (key?.key === 'number') return { number: BigInt(key.number ?? '0').toString() };
  issues.add(path, 'must set keyword or number');
  return undefined;
}

export function createShardKeyFromProto(
  issues: ValidationIssues,
  path: string,
  r: CreateShardKey__Output | undefined,
): CreateShardKeyRequest | undefined {
  if (!r) {
    issues.add(path, 'empty request');
    return undefined;
  }
  const shardKey = shardKeyFromProto(issues, `${path}.shard_key`, r.shardKey);
  if (!shardKey) return undefined;
  return defined({
    shardKey,
    shardsNumber: r.shardsNumber,
    replicationFactor: r.replicationFactor,
    placement: r.placement && r.placement.length > 0 ? r.placement.map(String) : undefined,
    initialState: readEnum<ReplicaState>(r.initialState),
  });
}

export function shardKeyToProto(key: ShardKey): ProtoShardKey {
  return 'keyword' in key ? { keyword: key.keyword } : { number: key.number };
}
