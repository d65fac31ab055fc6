import { Controller } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import { Operation, visibleCollections } from '@vectorstore/auth';
import { principalOfMessage } from '../auth/request-principal';
import { CollectionsService } from '@vectorstore/collections';
import { ValidationIssues } from '@vectorstore/common';
import type { CollectionExistsRequest__Output } from '../grpc/generated/vectorstore/CollectionExistsRequest';
import type { CollectionExistsResponse } from '../grpc/generated/vectorstore/CollectionExistsResponse';
import type { CollectionOperationResponse } from '../grpc/generated/vectorstore/CollectionOperationResponse';
import type { CreateCollection__Output } from '../grpc/generated/vectorstore/CreateCollection';
import type { DeleteCollection__Output } from '../grpc/generated/vectorstore/DeleteCollection';
import type { GetCollectionInfoRequest__Output } from '../grpc/generated/vectorstore/GetCollectionInfoRequest';
import type { GetCollectionInfoResponse } from '../grpc/generated/vectorstore/GetCollectionInfoResponse';
import type { ListCollectionsResponse } from '../grpc/generated/vectorstore/ListCollectionsResponse';
import type { UpdateCollection__Output } from '../grpc/generated/vectorstore/UpdateCollection';
import { readU64 } from '../core/scalars';
import { createCollectionFromProto, updateCollectionFromProto } from './grpc/collections-request.mapper';
import { collectionInfoToProto } from './grpc/collections-response.mapper';

/**
 * The collection methods of the `Collections` service, mounted at /vectorstore.Collections/* and
 * /qdrant.Collections/*. Each handler maps the request, calls the domain, maps the answer; `time`
 * is added by an interceptor.
 */
@Controller()
export class CollectionsGrpcController {
  constructor(private readonly collections: CollectionsService) {}

  @Operation('Collections/Get')
  @GrpcMethod('Collections', 'Get')
  async get(request: GetCollectionInfoRequest__Output): Promise<GetCollectionInfoResponse> {
    return { result: collectionInfoToProto(await this.collections.describe(request.collectionName ?? '')) };
  }

  @Operation('Collections/List')
  @GrpcMethod('Collections', 'List')
  list(request: unknown): ListCollectionsResponse {
    const principal = principalOfMessage(request);
    // Fail closed: the guard always leaves the principal; without one, nothing is shown.
    const visible = principal ? visibleCollections(principal.access) : new Set<string>();
    return { collections: this.collections.list(visible).map((name) => ({ name })) };
  }

  @Operation('Collections/Create')
  @GrpcMethod('Collections', 'Create')
  async create(request: CreateCollection__Output): Promise<CollectionOperationResponse> {
    return { result: await this.collections.create(createCollectionFromProto(request)) };
  }

  @Operation('Collections/Update')
  @GrpcMethod('Collections', 'Update')
  async update(request: UpdateCollection__Output): Promise<CollectionOperationResponse> {
    return { result: await this.collections.update(updateCollectionFromProto(request)) };
  }

  @Operation('Collections/Delete')
  @GrpcMethod('Collections', 'Delete')
  async delete(request: DeleteCollection__Output): Promise<CollectionOperationResponse> {
    const issues = new ValidationIssues();
    const timeout = readU64(issues, 'timeout', request.timeout);
    issues.throwIfAny();
    return { result: await this.collections.delete(request.collectionName ?? '', timeout) };
  }

  @Operation('Collections/CollectionExists')
  @GrpcMethod('Collections', 'CollectionExists')
  collectionExists(request: CollectionExistsRequest__Output): CollectionExistsResponse {
    return { result: { exists: this.collections.exists(request.collectionName ?? '') } };
  }
}
