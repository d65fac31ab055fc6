import { Module } from '@nestjs/common';
import { AliasesGrpcController } from './aliases.grpc.controller';

/** Aliases over gRPC and HTTP. */
@Module({ controllers: [AliasesGrpcController] })
export class AliasesFeatureModule {}
