import { CollectionInfo } from '@vectorstore/collections';
import type { CollectionInfo as ProtoCollectionInfo } from '../../grpc/generated/vectorstore/CollectionInfo';
import { collectionConfigToProto } from './collection-config.mapper';
import { payloadIndexParamsToProto } from './payload-index.mapper';
import { defined } from '../../core/scalars';

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
