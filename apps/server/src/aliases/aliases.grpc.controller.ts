import { Controller } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import { Operation } from '@vectorstore/auth';
import { AliasesService } from '@vectorstore/collections';
import type { ChangeAliases__Output } from '../grpc/generated/vectorstore/ChangeAliases';
import type { CollectionOperationResponse } from '../grpc/generated/vectorstore/CollectionOperationResponse';
import type { ListAliasesResponse } from '../grpc/generated/vectorstore/ListAliasesResponse';
import type { ListCollectionAliasesRequest__Output } from '../grpc/generated/vectorstore/ListCollectionAliasesRequest';
import { aliasActionsFromProto } from './grpc/aliases.grpc.mapper';

/** The alias methods of the `Collections` service, at /vectorstore.Collections/* and /qdrant.Collections/*. */
@Controller()
export class AliasesGrpcController {
  constructor(private readonly aliases: AliasesService) {}

  @Operation('Collections/UpdateAliases')
  @GrpcMethod('Collections', 'UpdateAliases')
  async updateAliases(request: ChangeAliases__Output): Promise<CollectionOperationResponse> {
    const { actions, timeout } = aliasActionsFromProto(request);
    return { result: await this.aliases.update(actions, timeout) };
  }

  @Operation('Collections/ListCollectionAliases')
  @GrpcMethod('Collections', 'ListCollectionAliases')
  listCollectionAliases(request: ListCollectionAliasesRequest__Output): ListAliasesResponse {
    return { aliases: this.aliases.listFor(request.collectionName ?? '') };
  }

  @Operation('Collections/ListAliases')
  @GrpcMethod('Collections', 'ListAliases')
  listAliases(): ListAliasesResponse {
    return { aliases: this.aliases.list() };
  }
}
