import { Module } from '@nestjs/common';
import { SnapshotsGrpcController } from './snapshots.grpc.controller';
import { SnapshotsHttpController } from './snapshots.http.controller';
import { SnapshotsService } from './snapshots.service';

/** Collection snapshots over gRPC and HTTP. */
@Module({
  controllers: [SnapshotsGrpcController, SnapshotsHttpController],
  providers: [SnapshotsService],
})
export class SnapshotsFeatureModule {}
