import { Controller } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import { Operation } from '@vectorstore/auth';
import type { CreateSnapshotRequest__Output } from '../grpc/generated/vectorstore/CreateSnapshotRequest';
import type { CreateSnapshotResponse } from '../grpc/generated/vectorstore/CreateSnapshotResponse';
import type { DeleteFullSnapshotRequest__Output } from '../grpc/generated/vectorstore/DeleteFullSnapshotRequest';
import type { DeleteSnapshotRequest__Output } from '../grpc/generated/vectorstore/DeleteSnapshotRequest';
import type { DeleteSnapshotResponse } from '../grpc/generated/vectorstore/DeleteSnapshotResponse';
import type { ListSnapshotsRequest__Output } from '../grpc/generated/vectorstore/ListSnapshotsRequest';
import type { ListSnapshotsResponse } from '../grpc/generated/vectorstore/ListSnapshotsResponse';
import { snapshotDescriptionToProto } from './grpc/snapshots.grpc-mapper';
import { SnapshotsService } from '@vectorstore/snapshots';

/**
 * The collection methods of the `Snapshots` service, at /vectorstore.Snapshots/* and
 * /qdrant.Snapshots/*, collection and full snapshots.
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
  async createFull(): Promise<CreateSnapshotResponse> {
    return { snapshotDescription: snapshotDescriptionToProto(await this.snapshots.createFull()) };
  }

  @Operation('Snapshots/ListFull')
  @GrpcMethod('Snapshots', 'ListFull')
  async listFull(): Promise<ListSnapshotsResponse> {
    return { snapshotDescriptions: (await this.snapshots.listFull()).map(snapshotDescriptionToProto) };
  }

  @Operation('Snapshots/DeleteFull')
  @GrpcMethod('Snapshots', 'DeleteFull')
  async deleteFull(request: DeleteFullSnapshotRequest__Output): Promise<DeleteSnapshotResponse> {
    await this.snapshots.deleteFull(request.snapshotName ?? '');
    return {};
  }
}
