import { Global, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { RequestMetrics } from './metrics/request-metrics';
import { TransportExceptionFilter } from './transport-exception.filter';

/**
 * Plumbing shared by every feature: the one exception filter (DomainError per transport) and the
 * request metrics both transports record. No global interceptor: the REST envelope is bound per HTTP
 * controller (`rest/http-controller.decorator.ts`) and gRPC calls are timed by the transport
 * (`grpc/timed-grpc-server.ts`), so gRPC calls skip Nest's interceptor chain. Beside it in
 * this folder: the REST envelope, body and query decoding (`rest/`), the `{collection_name}` path
 * check (bound with the envelope by `HttpController`, so every REST route has it and no gRPC call
 * pays for it), and the class-validator pipe for DTO bodies (`validation/`), which features apply by
 * name.
 */
@Global()
@Module({
  providers: [RequestMetrics, { provide: APP_FILTER, useClass: TransportExceptionFilter }],
  exports: [RequestMetrics],
})
export class CoreModule {}
