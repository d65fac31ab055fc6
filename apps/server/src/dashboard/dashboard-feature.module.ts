import { Module } from '@nestjs/common';
import { DashboardHttpController } from './dashboard.http.controller';

/** Serves the web dashboard's static bundle at `/dashboard` (HTTP only). */
@Module({ controllers: [DashboardHttpController] })
export class DashboardFeatureModule {}
