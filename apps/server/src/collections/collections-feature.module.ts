import { Module } from '@nestjs/common';
import { CollectionsGrpcController } from './collections.grpc.controller';
import { CollectionsHttpController } from './collections.http.controller';
import { OptimizationsHttpController } from './optimizations.http.controller';
import { PayloadIndexHttpController } from './payload-index.http.controller';
import { VectorNamesHttpController } from './vector-names.http.controller';

/** Collections over gRPC and HTTP, on the global CollectionsModule's services. */
@Module({
  controllers: [
    CollectionsGrpcController,
    CollectionsHttpController,
    PayloadIndexHttpController,
    OptimizationsHttpController,
    VectorNamesHttpController,
  ],
})
export class CollectionsFeatureModule {}
