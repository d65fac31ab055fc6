import { Global, Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR } from '@nestjs/core';
import { GrpcTimingInterceptor } from './grpc/grpc-timing.interceptor';
import { GrpcRequestMetricsInterceptor } from './metrics/grpc-request-metrics.interceptor';
import { RequestMetrics } from './metrics/request-metrics';
import { RestEnvelopeInterceptor } from './rest/rest-envelope.interceptor';
import { TransportExceptionFilter } from './transport-exception.filter';

/**
 * Plumbing shared by every feature: the one exception filter (DomainError per transport) and the
 * response interceptors of each wire, and the request metrics both transports record.
 */
@Global()
@Module({
  providers: [
    RequestMetrics,
    { provide: APP_INTERCEPTOR, useClass: GrpcRequestMetricsInterceptor },
    { provide: APP_FILTER, useClass: TransportExceptionFilter },
    { provide: APP_INTERCEPTOR, useClass: GrpcTimingInterceptor },
    { provide: APP_INTERCEPTOR, useClass: RestEnvelopeInterceptor },
  ],
  exports: [RequestMetrics],
})
export class CoreModule {}
