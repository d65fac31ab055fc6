import { Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import { RequestMetrics } from './metrics/request-metrics';
import { CollectionNamePathPipe } from './rest/collection-name.param';
import { TransportExceptionFilter } from './transport-exception.filter';

/**
 * Plumbing shared by every feature: the one exception filter (DomainError per transport) and the
 * request metrics both transports record. No global interceptor: the REST envelope is bound per HTTP
 * controller (`rest/http-controller.decorator.ts`) and gRPC calls are timed by the transport
 * (`grpc/timed-grpc-server.ts`), so gRPC calls skip Nest's interceptor chain. Beside it in
 * this folder: the REST envelope, body and query decoding (`rest/`), the `{collection_name}` path
 * check (a global pipe, so every route has it), and the class-validator pipe for DTO bodies
 * (`validation/`), which features apply by name.
 */
@Global()
@Module({
  providers: [
    RequestMetrics,
    { provide: APP_FILTER, useClass: TransportExceptionFilter },
    { provide: APP_PIPE, useClass: CollectionNamePathPipe },
  ],
  exports: [RequestMetrics],
})
export class CoreModule {}
