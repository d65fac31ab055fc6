import { Module } from '@nestjs/common';
import { HealthGrpcController } from './health.grpc.controller';
import { HealthHttpController } from './health.http.controller';
import { ServiceHttpController } from './service.http.controller';

/** Liveness and version (open without credentials) on both transports; metrics, telemetry and issues on HTTP. */
@Module({ controllers: [HealthGrpcController, HealthHttpController, ServiceHttpController] })
export class HealthFeatureModule {}
