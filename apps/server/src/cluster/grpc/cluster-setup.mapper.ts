import { CreateShardKeyRequest, PeerTransferOperation, ShardKey } from '@vectorstore/collections';
import { ValidationIssues } from '@vectorstore/common';
import type { UpdateCollectionClusterSetupRequest__Output } from '../../grpc/generated/vectorstore/UpdateCollectionClusterSetupRequest';
import { createShardKeyFromProto, shardKeyFromProto } from './shard-key.grpc.mapper';
import { readU64 } from '../../core/scalars';

export type ClusterSetupOperation =
  | { kind: 'createShardKey'; request: CreateShardKeyRequest; timeout?: number }
  | { kind: 'deleteShardKey'; shardKey: ShardKey; timeout?: number }
  | { kind: 'peerTransfer'; operation: PeerTransferOperation };

/** Decodes and validates the oneof of UpdateCollectionClusterSetupRequest (validation comes first, as in Qdrant). */
export function clusterSetupFromProto(r: UpdateCollectionClusterSetupRequest__Output): ClusterSetupOperation {
  const issues = new ValidationIssues();
  const timeout = readU64(issues, 'timeout', r.timeout);
  issues.range('timeout', timeout, 1);
  let result: ClusterSetupOperation | undefined;
  switch (r.operation) {
    case 'createShardKey': {
      const request = createShardKeyFromProto(issues, 'create_shard_key', r.createShardKey);
      if (request) result = { kind: 'createShardKey', request, timeout };
      break;
    }
    case 'deleteShardKey': {
      const shardKey = shardKeyFromProto(issues, 'delete_shard_key.shard_key', r.deleteShardKey?.shardKey);
      if (shardKey) result = { kind: 'deleteShardKey', shardKey, timeout };
      break;
    }
    case 'moveShard':
    case 'replicateShard':
    case 'abortTransfer':
    case 'restartTransfer': {
      const transfer = r[r.operation];
      if (
        transfer &&
        transfer.fromPeerId === transfer.toPeerId &&
        (transfer.toShardId === undefined || transfer.toShardId === transfer.shardId)
      ) {
        issues.add(
          r.operation === 'moveShard' ? 'move_shard' : r.operation,
          'cannot transfer shard to itself: from_peer_id equals to_peer_id',
        );
      }
      result = { kind: 'peerTransfer', operation: r.operation };
      break;
    }
    case 'dropReplica':
    case 'replicatePoints':
      result = { kind: 'peerTransfer', operation: r.operation };
      break;
    default:
      issues.add(
        'operation',
        'empty operation: set one of move_shard, replicate_shard, abort_transfer, drop_replica, create_shard_key, delete_shard_key, restart_transfer, replicate_points',
      );
  }
  issues.throwIfAny();
  return result!;
}
