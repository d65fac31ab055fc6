import { Module } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR } from '@nestjs/core';
import { GrpcTimingInterceptor } from './grpc/grpc-timing.interceptor';
import { TransportExceptionFilter } from './transport-exception.filter';

/**
 * Plumbing shared by every feature: the one exception filter (DomainError per transport) and the
 * response interceptors of each wire.
 */
@Module({
  providers: [
    { provide: APP_FILTER, useClass: TransportExceptionFilter },
    { provide: APP_INTERCEPTOR, useClass: GrpcTimingInterceptor },
  ],
})
export class CoreModule {}
