import { ClusterSetupOperation, ShardTransfer } from '@vectorstore/collections';
import { ValidationIssues } from '@vectorstore/common';
import type { UpdateCollectionClusterSetupRequest__Output } from '../../grpc/generated/vectorstore/UpdateCollectionClusterSetupRequest';
import { createShardKeyFromProto, shardKeyFromProto } from './shard-key.grpc.mapper';
import { defined, readU64 } from '../../core/scalars';

/** A transfer's shard and peers (uint64 peer ids as exact decimal text). */
function transferFromProto(t: {
  shardId?: number;
  fromPeerId?: string;
  toPeerId?: string;
  toShardId?: number;
}): ShardTransfer {
  return defined({
    shardId: t.shardId ?? 0,
    fromPeerId: BigInt(t.fromPeerId ?? '0').toString(),
    toPeerId: BigInt(t.toPeerId ?? '0').toString(),
    toShardId: t.toShardId,
  });
}

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
      operation = defined({ peerOperation: r.operation, transfer: transfer && transferFromProto(transfer) });
      break;
    }
    case 'dropReplica': {
      const replica = r.dropReplica;
      issues.range('drop_replica.shard_id', replica?.shardId, 0);
      if (!replica?.peerId) issues.add('drop_replica.peer_id', 'is required');
      if (replica?.peerId) operation = { dropReplica: { shardId: replica.shardId ?? 0, peerId: replica.peerId } };
      break;
    }
    case 'replicatePoints':
      operation = { peerOperation: r.operation };
      break;
    default:
      issues.add(
        'operation',
        'empty operation: set one of move_shard, replicate_shard, abort_transfer, drop_replica, create_shard_key, delete_shard_key, restart_transfer, replicate_points',
      );
  }
  issues.throwIfAny();
  return { operation: operation!, timeout };
}
