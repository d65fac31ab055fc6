import { Controller } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import { AliasesService, ClusterService, CollectionsService } from '@vectorstore/collections';
import { ValidationIssues } from '@vectorstore/common';
import type { ChangeAliases__Output } from './generated/vectorstore/ChangeAliases';
import type { CollectionClusterInfoRequest__Output } from './generated/vectorstore/CollectionClusterInfoRequest';
import type { CollectionClusterInfoResponse } from './generated/vectorstore/CollectionClusterInfoResponse';
import type { CollectionExistsRequest__Output } from './generated/vectorstore/CollectionExistsRequest';
import type { CollectionExistsResponse } from './generated/vectorstore/CollectionExistsResponse';
import type { CollectionOperationResponse } from './generated/vectorstore/CollectionOperationResponse';
import type { CreateCollection__Output } from './generated/vectorstore/CreateCollection';
import type { CreateShardKeyRequest__Output } from './generated/vectorstore/CreateShardKeyRequest';
import type { CreateShardKeyResponse } from './generated/vectorstore/CreateShardKeyResponse';
import type { DeleteCollection__Output } from './generated/vectorstore/DeleteCollection';
import type { DeleteShardKeyRequest__Output } from './generated/vectorstore/DeleteShardKeyRequest';
import type { DeleteShardKeyResponse } from './generated/vectorstore/DeleteShardKeyResponse';
import type { GetCollectionInfoRequest__Output } from './generated/vectorstore/GetCollectionInfoRequest';
import type { GetCollectionInfoResponse } from './generated/vectorstore/GetCollectionInfoResponse';
import type { ListAliasesResponse } from './generated/vectorstore/ListAliasesResponse';
import type { ListCollectionAliasesRequest__Output } from './generated/vectorstore/ListCollectionAliasesRequest';
import type { ListCollectionsResponse } from './generated/vectorstore/ListCollectionsResponse';
import type { ListShardKeysRequest__Output } from './generated/vectorstore/ListShardKeysRequest';
import type { ListShardKeysResponse } from './generated/vectorstore/ListShardKeysResponse';
import type { UpdateCollection__Output } from './generated/vectorstore/UpdateCollection';
import type { UpdateCollectionClusterSetupRequest__Output } from './generated/vectorstore/UpdateCollectionClusterSetupRequest';
import type { UpdateCollectionClusterSetupResponse } from './generated/vectorstore/UpdateCollectionClusterSetupResponse';
import { clusterSetupFromProto } from './mappers/cluster-setup.mapper';
import {
  aliasActionsFromProto,
  createCollectionFromProto,
  createShardKeyFromProto,
  shardKeyFromProto,
  updateCollectionFromProto,
} from './mappers/collections-request.mapper';
import { clusterInfoToProto, collectionInfoToProto, shardKeyToProto } from './mappers/collections-response.mapper';
import { readU64 } from './mappers/scalars.mapper';

/**
 * `Collections` service, mounted at /vectorstore.Collections/* and /qdrant.Collections/*.
 * Each handler maps the request, calls the domain, maps the answer; `time` is added by an interceptor.
 */
@Controller()
export class CollectionsGrpcController {
  constructor(
    private readonly collections: CollectionsService,
    private readonly aliases: AliasesService,
    private readonly cluster: ClusterService,
  ) {}

  @GrpcMethod('Collections', 'Get')
  get(request: GetCollectionInfoRequest__Output): GetCollectionInfoResponse {
    return { result: collectionInfoToProto(this.collections.get(request.collectionName ?? '')) };
  }

  @GrpcMethod('Collections', 'List')
  list(): ListCollectionsResponse {
    return { collections: this.collections.list().map((name) => ({ name })) };
  }

  @GrpcMethod('Collections', 'Create')
  async create(request: CreateCollection__Output): Promise<CollectionOperationResponse> {
    return { result: await this.collections.create(createCollectionFromProto(request)) };
  }

  @GrpcMethod('Collections', 'Update')
  async update(request: UpdateCollection__Output): Promise<CollectionOperationResponse> {
    return { result: await this.collections.update(updateCollectionFromProto(request)) };
  }

  @GrpcMethod('Collections', 'Delete')
  async delete(request: DeleteCollection__Output): Promise<CollectionOperationResponse> {
    const issues = new ValidationIssues();
    const timeout = readU64(issues, 'timeout', request.timeout);
    issues.throwIfAny();
    return { result: await this.collections.delete(request.collectionName ?? '', timeout) };
  }

  @GrpcMethod('Collections', 'UpdateAliases')
  async updateAliases(request: ChangeAliases__Output): Promise<CollectionOperationResponse> {
    const { actions, timeout } = aliasActionsFromProto(request);
    return { result: await this.aliases.update(actions, timeout) };
  }

  @GrpcMethod('Collections', 'ListCollectionAliases')
  listCollectionAliases(request: ListCollectionAliasesRequest__Output): ListAliasesResponse {
    return { aliases: this.aliases.listFor(request.collectionName ?? '') };
  }

  @GrpcMethod('Collections', 'ListAliases')
  listAliases(): ListAliasesResponse {
    return { aliases: this.aliases.list() };
  }

  @GrpcMethod('Collections', 'CollectionClusterInfo')
  collectionClusterInfo(request: CollectionClusterInfoRequest__Output): CollectionClusterInfoResponse {
    return clusterInfoToProto(this.cluster.clusterInfo(request.collectionName ?? ''));
  }

  @GrpcMethod('Collections', 'CollectionExists')
  collectionExists(request: CollectionExistsRequest__Output): CollectionExistsResponse {
    return { result: { exists: this.collections.exists(request.collectionName ?? '') } };
  }

  @GrpcMethod('Collections', 'UpdateCollectionClusterSetup')
  async updateCollectionClusterSetup(
    request: UpdateCollectionClusterSetupRequest__Output,
  ): Promise<UpdateCollectionClusterSetupResponse> {
    const name = request.collectionName ?? '';
    const operation = clusterSetupFromProto(request);
    switch (operation.kind) {
      case 'createShardKey':
        return { result: await this.cluster.createShardKey(name, operation.request, operation.timeout) };
      case 'deleteShardKey':
        return { result: await this.cluster.deleteShardKey(name, operation.shardKey, operation.timeout) };
      case 'peerTransfer':
        return this.cluster.rejectPeerOperation(operation.operation);
    }
  }

  @GrpcMethod('Collections', 'CreateShardKey')
  async createShardKey(request: CreateShardKeyRequest__Output): Promise<CreateShardKeyResponse> {
    const issues = new ValidationIssues();
    const shardKeyRequest = createShardKeyFromProto(issues, 'request', request.request);
    const timeout = readU64(issues, 'timeout', request.timeout);
    issues.throwIfAny();
    return { result: await this.cluster.createShardKey(request.collectionName ?? '', shardKeyRequest!, timeout) };
  }

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

  @GrpcMethod('Collections', 'ListShardKeys')
  listShardKeys(request: ListShardKeysRequest__Output): ListShardKeysResponse {
    return {
      shardKeys: this.cluster.listShardKeys(request.collectionName ?? '').map((key) => ({ key: shardKeyToProto(key) })),
    };
  }
}
