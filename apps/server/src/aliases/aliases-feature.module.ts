import { Module } from '@nestjs/common';
import { AliasesGrpcController } from './aliases.grpc.controller';
import { AliasesHttpController } from './aliases.http.controller';

/** Aliases over gRPC and HTTP. */
@Module({ controllers: [AliasesGrpcController, AliasesHttpController] })
export class AliasesFeatureModule {}
