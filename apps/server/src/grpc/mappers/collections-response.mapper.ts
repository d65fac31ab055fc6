import { CollectionClusterInfo, CollectionInfo, ShardKey } from '@vectorstore/collections';
import type { CollectionClusterInfoResponse } from '../generated/vectorstore/CollectionClusterInfoResponse';
import type { CollectionInfo as ProtoCollectionInfo } from '../generated/vectorstore/CollectionInfo';
import type { ShardKey as ProtoShardKey } from '../generated/vectorstore/ShardKey';
import { collectionConfigToProto } from './collection-config.mapper';
import { payloadIndexParamsToProto } from './payload-index.mapper';
import { defined } from './scalars.mapper';

export function collectionInfoToProto(info: CollectionInfo): ProtoCollectionInfo {
  return {
    status: info.status,
    optimizerStatus: info.optimizerStatus,
    segmentsCount: info.segmentsCount,
    config: collectionConfigToProto(info.config),
    payloadSchema: Object.fromEntries(
      Object.entries(info.payloadSchema).map(([field, schema]) => [
        field,
        defined({
          dataType: schema.dataType,
          params: schema.params && payloadIndexParamsToProto(schema.params),
          points: schema.points,
        }),
      ]),
    ),
    pointsCount: info.pointsCount,
    indexedVectorsCount: info.indexedVectorsCount,
    warnings: info.warnings.map((message) => ({ message })),
    updateQueue: { length: info.updateQueueLength },
  };
}

export function shardKeyToProto(key: ShardKey): ProtoShardKey {
  return 'keyword' in key ? { keyword: key.keyword } : { number: key.number };
}

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
    remoteShards: [],
    shardTransfers: [],
    reshardingOperations: [],
  };
}
