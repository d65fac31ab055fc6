import { Controller } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import { Operation } from '@vectorstore/auth';
import { DomainError } from '@vectorstore/common';
import type { CreateSnapshotRequest__Output } from '../grpc/generated/vectorstore/CreateSnapshotRequest';
import type { CreateSnapshotResponse } from '../grpc/generated/vectorstore/CreateSnapshotResponse';
import type { DeleteSnapshotRequest__Output } from '../grpc/generated/vectorstore/DeleteSnapshotRequest';
import type { DeleteSnapshotResponse } from '../grpc/generated/vectorstore/DeleteSnapshotResponse';
import type { ListSnapshotsRequest__Output } from '../grpc/generated/vectorstore/ListSnapshotsRequest';
import type { ListSnapshotsResponse } from '../grpc/generated/vectorstore/ListSnapshotsResponse';
import { snapshotDescriptionToProto } from './grpc/snapshots.grpc-mapper';
import { SnapshotsService } from './snapshots.service';

/**
 * The collection methods of the `Snapshots` service, at /vectorstore.Snapshots/* and
 * /qdrant.Snapshots/*. The full-snapshot methods are declared (so access is checked first) but not
 * built yet: they answer UNIMPLEMENTED.
 */
@Controller()
export class SnapshotsGrpcController {
  constructor(private readonly snapshots: SnapshotsService) {}

  @Operation('Snapshots/Create')
  @GrpcMethod('Snapshots', 'Create')
  async create(request: CreateSnapshotRequest__Output): Promise<CreateSnapshotResponse> {
    const description = await this.snapshots.create(request.collectionName ?? '');
    return { snapshotDescription: snapshotDescriptionToProto(description) };
  }

  @Operation('Snapshots/List')
  @GrpcMethod('Snapshots', 'List')
  async list(request: ListSnapshotsRequest__Output): Promise<ListSnapshotsResponse> {
    const descriptions = await this.snapshots.list(request.collectionName ?? '');
    return { snapshotDescriptions: descriptions.map(snapshotDescriptionToProto) };
  }

  @Operation('Snapshots/Delete')
  @GrpcMethod('Snapshots', 'Delete')
  async delete(request: DeleteSnapshotRequest__Output): Promise<DeleteSnapshotResponse> {
    await this.snapshots.delete(request.collectionName ?? '', request.snapshotName ?? '');
    return {};
  }

  @Operation('Snapshots/CreateFull')
  @GrpcMethod('Snapshots', 'CreateFull')
  createFull(): never {
    throw fullSnapshotsNotBuilt();
  }

  @Operation('Snapshots/ListFull')
  @GrpcMethod('Snapshots', 'ListFull')
  listFull(): never {
    throw fullSnapshotsNotBuilt();
  }

  @Operation('Snapshots/DeleteFull')
  @GrpcMethod('Snapshots', 'DeleteFull')
  deleteFull(): never {
    throw fullSnapshotsNotBuilt();
  }
}

function fullSnapshotsNotBuilt(): DomainError {
  return DomainError.unimplemented('Full snapshots are not supported yet');
}
