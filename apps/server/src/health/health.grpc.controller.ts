import { Controller } from '@nestjs/common';
import { GrpcMethod } from '@nestjs/microservices';
import { Public } from '@vectorstore/auth';
import type { HealthCheckReply } from '../grpc/generated/vectorstore/HealthCheckReply';
import type { HealthCheckResponse } from '../grpc/generated/grpc/health/v1/HealthCheckResponse';
import { SERVER_TITLE, SERVER_VERSION } from '../version';

/** Liveness over gRPC: Qdrant's HealthCheck and the standard grpc.health.v1 Check. Open without credentials. */
@Public()
@Controller()
export class HealthGrpcController {
  @GrpcMethod('Qdrant', 'HealthCheck')
  healthCheck(): HealthCheckReply {
    return { title: SERVER_TITLE, version: SERVER_VERSION };
  }

  /** Always SERVING, whatever `service` asks, as Qdrant answers. */
  @GrpcMethod('Health', 'Check')
  check(): HealthCheckResponse {
    return { status: 'SERVING' };
  }
}
