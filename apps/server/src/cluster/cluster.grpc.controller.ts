import { Controller } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import { Operation } from '@vectorstore/auth';
import { ClusterService } from '@vectorstore/collections';
import { ValidationIssues } from '@vectorstore/common';
import type { CollectionClusterInfoRequest__Output } from '../grpc/generated/vectorstore/CollectionClusterInfoRequest';
import type { CollectionClusterInfoResponse } from '../grpc/generated/vectorstore/CollectionClusterInfoResponse';
import type { CreateShardKeyRequest__Output } from '../grpc/generated/vectorstore/CreateShardKeyRequest';
import type { CreateShardKeyResponse } from '../grpc/generated/vectorstore/CreateShardKeyResponse';
import type { DeleteShardKeyRequest__Output } from '../grpc/generated/vectorstore/DeleteShardKeyRequest';
import type { DeleteShardKeyResponse } from '../grpc/generated/vectorstore/DeleteShardKeyResponse';
import type { ListShardKeysRequest__Output } from '../grpc/generated/vectorstore/ListShardKeysRequest';
import type { ListShardKeysResponse } from '../grpc/generated/vectorstore/ListShardKeysResponse';
import type { UpdateCollectionClusterSetupRequest__Output } from '../grpc/generated/vectorstore/UpdateCollectionClusterSetupRequest';
import type { UpdateCollectionClusterSetupResponse } from '../grpc/generated/vectorstore/UpdateCollectionClusterSetupResponse';
import { readU64 } from '../core/scalars';
import { clusterInfoToProto } from './grpc/cluster-info.grpc.mapper';
import { clusterSetupFromProto } from './grpc/cluster-setup.mapper';
import { createShardKeyFromProto, shardKeyFromProto, shardKeyToProto } from './grpc/shard-key.grpc.mapper';

/** The cluster and shard-key methods of the `Collections` service (standalone answers). */
@Controller()
export class ClusterGrpcController {
  constructor(private readonly cluster: ClusterService) {}

  @Operation('Collections/CollectionClusterInfo')
  @GrpcMethod('Collections', 'CollectionClusterInfo')
  collectionClusterInfo(request: CollectionClusterInfoRequest__Output): CollectionClusterInfoResponse {
    return clusterInfoToProto(this.cluster.clusterInfo(request.collectionName ?? ''));
  }

  @Operation('Collections/UpdateCollectionClusterSetup')
  @GrpcMethod('Collections', 'UpdateCollectionClusterSetup')
  async updateCollectionClusterSetup(
    request: UpdateCollectionClusterSetupRequest__Output,
  ): Promise<UpdateCollectionClusterSetupResponse> {
    const { operation, timeout } = clusterSetupFromProto(request);
    return { result: await this.cluster.updateClusterSetup(request.collectionName ?? '', operation, timeout) };
  }

  @Operation('Collections/CreateShardKey')
  @GrpcMethod('Collections', 'CreateShardKey')
  async createShardKey(request: CreateShardKeyRequest__Output): Promise<CreateShardKeyResponse> {
    const issues = new ValidationIssues();
    const shardKeyRequest = createShardKeyFromProto(issues, 'request', request.request);
    const timeout = readU64(issues, 'timeout', request.timeout);
    issues.throwIfAny();
    return { result: await this.cluster.createShardKey(request.collectionName ?? '', shardKeyRequest!, timeout) };
  }

  @Operation('Collections/DeleteShardKey')
  @GrpcMethod('Collections', 'DeleteShardKey')
  async deleteShardKey(request: DeleteShardKeyRequest__Output): Promise<DeleteShardKeyResponse> {
    const issues = new ValidationIssues();
    if (!request.request) issues.add('request', 'empty request');
    const shardKey = request.request
      ? shardKeyFromProto(issues, 'request.shard_key', request.request.shardKey)
      : undefined;
    const timeout = readU64(issues, 'timeout', request.timeout);
    issues.throwIfAny();
    return { result: await this.cluster.deleteShardKey(request.collectionName ?? '', shardKey!, timeout) };
  }

  @Operation('Collections/ListShardKeys')
  @GrpcMethod('Collections', 'ListShardKeys')
  listShardKeys(request: ListShardKeysRequest__Output): ListShardKeysResponse {
    return {
      shardKeys: this.cluster.listShardKeys(request.collectionName ?? '').map((key) => ({ key: shardKeyToProto(key) })),
    };
  }
}
