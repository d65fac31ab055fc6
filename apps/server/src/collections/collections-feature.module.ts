import { Module } from '@nestjs/common';
import { CollectionsGrpcController } from './collections.grpc.controller';

/** Collections over gRPC and HTTP, on the global CollectionsModule's services. */
@Module({ controllers: [CollectionsGrpcController] })
export class CollectionsFeatureModule {}
