import { Controller } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import { Operation, visibleCollections } from '@vectorstore/auth';
import { principalOfMessage } from '../auth/request-principal';
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
  listAliases(request: unknown): ListAliasesResponse {
    const principal = principalOfMessage(request);
    // Fail closed: the guard always leaves the principal; without one, nothing is shown.
    return { aliases: this.aliases.list(principal ? visibleCollections(principal.access) : new Set<string>()) };
  }
}
