import { CollectionClusterInfo } from '@vectorstore/collections';
import type { CollectionClusterInfoResponse } from '../../grpc/generated/vectorstore/CollectionClusterInfoResponse';
import { defined } from '../../core/scalars';
import { shardKeyToProto } from './shard-key.grpc.mapper';

export function clusterInfoToProto(info: CollectionClusterInfo): CollectionClusterInfoResponse {
  return {
    peerId: info.peerId,
    shardCount: info.shardCount,
    localShards: info.localShards.map((shard) =>
      defined({
        shardId: shard.shardId,
        pointsCount: shard.pointsCount,
        state: shard.state,
        shardKey: shard.shardKey ? shardKeyToProto(shard.shardKey) : undefined,
      }),
    ),
    remoteShards: info.remoteShards.map((shard) =>
      defined({
        shardId: shard.shardId,
        peerId: shard.peerId,
        state: shard.state,
        shardKey: shard.shardKey ? shardKeyToProto(shard.shardKey) : undefined,
      }),
    ),
    shardTransfers: info.shardTransfers.map((transfer) =>
      defined({
        shardId: transfer.shardId,
        toShardId: transfer.toShardId,
        from: transfer.from,
        to: transfer.to,
        sync: transfer.sync,
      }),
    ),
    reshardingOperations: info.reshardingOperations.map((operation) =>
      defined({
        shardId: operation.shardId,
        peerId: operation.peerId,
        direction: operation.direction,
        shardKey: operation.shardKey ? shardKeyToProto(operation.shardKey) : undefined,
      }),
    ),
  };
}
