import { Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { GrpcTimingInterceptor } from './grpc/grpc-timing.interceptor';
import { GrpcRequestMetricsInterceptor } from './metrics/grpc-request-metrics.interceptor';
import { RequestMetrics } from './metrics/request-metrics';
import { CollectionNamePathPipe } from './rest/collection-name.param';
import { RestEnvelopeInterceptor } from './rest/rest-envelope.interceptor';
import { TransportExceptionFilter } from './transport-exception.filter';

/**
 * Plumbing shared by every feature: the one exception filter (DomainError per transport), the
 * response interceptors of each wire, and the request metrics both transports record. Beside it in
 * this folder: the REST envelope, body and query decoding (`rest/`), the `{collection_name}` path
 * check (a global pipe, so every route has it), and the class-validator pipe for DTO bodies
 * (`validation/`), which features apply by name.
 */
@Global()
@Module({
  providers: [
    RequestMetrics,
    { provide: APP_INTERCEPTOR, useClass: GrpcRequestMetricsInterceptor },
    { provide: APP_FILTER, useClass: TransportExceptionFilter },
    { provide: APP_INTERCEPTOR, useClass: GrpcTimingInterceptor },
    { provide: APP_INTERCEPTOR, useClass: RestEnvelopeInterceptor },
    { provide: APP_PIPE, useClass: CollectionNamePathPipe },
  ],
  exports: [RequestMetrics],
})
export class CoreModule {}
