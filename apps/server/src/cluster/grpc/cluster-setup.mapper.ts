import { ClusterSetupOperation, ShardTransfer, TRANSFER_METHODS, TransferMethod } from '@vectorstore/collections';
import { filterFromProto } from '../../points/grpc/filter.mapper';
import { ValidationIssues } from '@vectorstore/common';
import type { UpdateCollectionClusterSetupRequest__Output } from '../../grpc/generated/vectorstore/UpdateCollectionClusterSetupRequest';
import { createShardKeyFromProto, shardKeyFromProto } from './shard-key.grpc.mapper';
import { defined, readU64 } from '../../core/scalars';

/** The proto enum's names, which are the domain's. */
const METHODS: Record<string, TransferMethod> = Object.fromEntries(TRANSFER_METHODS.map((method) => [method, method]));

/** A transfer's shard and peers (uint64 peer ids as exact decimal text) and method. */
function transferFromProto(
  issues: ValidationIssues,
  path: string,
  t: {
    shardId?: number;
    fromPeerId?: string;
    toPeerId?: string;
    toShardId?: number;
    method?: string | number;
  },
): ShardTransfer {
  const method = t.method === undefined || t.method === null ? undefined : METHODS[String(t.method)];
  if (t.method !== undefined && t.method !== null && method === undefined)
    issues.add(`${path}.method`, `unknown transfer method ${String(t.method)}`);
  return defined({
    shardId: t.shardId ?? 0,
    fromPeerId: BigInt(t.fromPeerId ?? '0').toString(),
    toPeerId: BigInt(t.toPeerId ?? '0').toString(),
    toShardId: t.toShardId,
    method,
  });
}

const SNAKE = {
  moveShard: 'move_shard',
  replicateShard: 'replicate_shard',
  abortTransfer: 'abort_transfer',
  restartTransfer: 'restart_transfer',
} as const;

/** Decodes the oneof of UpdateCollectionClusterSetupRequest; the rules on it are ClusterService's. */
export function clusterSetupFromProto(r: UpdateCollectionClusterSetupRequest__Output): {
  operation: ClusterSetupOperation;
  timeout?: number;
} {
  const issues = new ValidationIssues();
  const timeout = readU64(issues, 'timeout', r.timeout);
  let operation: ClusterSetupOperation | undefined;
  switch (r.operation) {
    case 'createShardKey': {
      const request = createShardKeyFromProto(issues, 'create_shard_key', r.createShardKey);
      if (request) operation = { createShardKey: request };
      break;
    }
    case 'deleteShardKey': {
      const shardKey = shardKeyFromProto(issues, 'delete_shard_key.shard_key', r.deleteShardKey?.shardKey);
      if (shardKey) operation = { deleteShardKey: shardKey };
      break;
    }
    case 'moveShard':
    case 'replicateShard':
    case 'abortTransfer':
    case 'restartTransfer': {
      const transfer = r[r.operation];
      const decoded = transfer && transferFromProto(issues, SNAKE[r.operation], transfer);
      // RestartTransfer's method is a plain proto3 enum: StreamRecords (0) is not on the wire.
      if (decoded && r.operation === 'restartTransfer') decoded.method ??= 'StreamRecords';
      operation = defined({ peerOperation: r.operation, transfer: decoded });
      break;
    }
    case 'dropReplica': {
      const replica = r.dropReplica;
      issues.range('drop_replica.shard_id', replica?.shardId, 0);
      if (!replica?.peerId) issues.add('drop_replica.peer_id', 'is required');
      if (replica?.peerId) operation = { dropReplica: { shardId: replica.shardId ?? 0, peerId: replica.peerId } };
      break;
    }
    case 'replicatePoints': {
      const request = r.replicatePoints;
      const fromShardKey = shardKeyFromProto(issues, 'replicate_points.from_shard_key', request?.fromShardKey);
      const toShardKey = shardKeyFromProto(issues, 'replicate_points.to_shard_key', request?.toShardKey);
      const filter = filterFromProto(issues, 'replicate_points.filter', request?.filter);
      if (fromShardKey && toShardKey) operation = { replicatePoints: defined({ fromShardKey, toShardKey, filter }) };
      break;
    }
    default:
      issues.add(
        'operation',
        'empty operation: set one of move_shard, replicate_shard, abort_transfer, drop_replica, create_shard_key, delete_shard_key, restart_transfer, replicate_points',
      );
  }
  issues.throwIfAny();
  return { operation: operation!, timeout };
}
