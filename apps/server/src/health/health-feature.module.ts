import { Module } from '@nestjs/common';
import { HealthGrpcController } from './health.grpc.controller';
import { HealthHttpController } from './health.http.controller';

/** Liveness and version, open without credentials, on both transports. */
@Module({ controllers: [HealthGrpcController, HealthHttpController] })
export class HealthFeatureModule {}
