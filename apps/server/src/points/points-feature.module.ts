import { Module } from '@nestjs/common';
import { PointsGrpcController } from './points.grpc.controller';

/** Points over gRPC (REST comes with the next issue). */
@Module({ controllers: [PointsGrpcController] })
export class PointsFeatureModule {}
