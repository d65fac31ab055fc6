import { Module } from '@nestjs/common';
import { PointsGrpcController } from './points.grpc.controller';
import { PointsQueryHttpController } from './points-query.http.controller';
import { PointsReadHttpController } from './points-read.http.controller';
import { PointsSearchHttpController } from './points-search.http.controller';
import { PointsWriteHttpController } from './points-write.http.controller';

/** Points over gRPC and HTTP, on the global PointsModule's services. */
@Module({
  controllers: [
    PointsGrpcController,
    // The hot routes first (see features.ts): queries, then writes.
    PointsQueryHttpController,
    PointsSearchHttpController,
    PointsWriteHttpController,
    PointsReadHttpController,
  ],
})
export class PointsFeatureModule {}
