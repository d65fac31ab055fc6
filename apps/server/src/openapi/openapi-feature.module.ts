import { Module } from '@nestjs/common';
import { OpenApiHttpController } from './openapi.http.controller';

/** The REST API's description at `/openapi.json` (HTTP only). */
@Module({ controllers: [OpenApiHttpController] })
export class OpenApiFeatureModule {}
