import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthModule } from '@vectorstore/auth';
import { GrpcAuthGuard } from './grpc-auth.guard';

/** Registers the global gRPC guard. */
@Module({
  imports: [AuthModule],
  providers: [{ provide: APP_GUARD, useClass: GrpcAuthGuard }],
})
export class GrpcAuthModule {}
