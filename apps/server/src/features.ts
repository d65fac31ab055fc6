import { AliasesFeatureModule } from './aliases/aliases-feature.module';
import { AuthFeatureModule } from './auth/auth-feature.module';
import { ClusterFeatureModule } from './cluster/cluster-feature.module';
import { CollectionsFeatureModule } from './collections/collections-feature.module';
import { DashboardFeatureModule } from './dashboard/dashboard-feature.module';
import { HealthFeatureModule } from './health/health-feature.module';
import { OpenApiFeatureModule } from './openapi/openapi-feature.module';
import { PointsFeatureModule } from './points/points-feature.module';
import { SnapshotsFeatureModule } from './snapshots/snapshots-feature.module';

/**
 * The app's feature modules: each serves one area over gRPC and HTTP. Points first: Express tries the routes in
 * the order they were registered, one pattern after another, and the points routes take nearly every request.
 */
export const FEATURE_MODULES = [
  PointsFeatureModule,
  AuthFeatureModule,
  HealthFeatureModule,
  CollectionsFeatureModule,
  AliasesFeatureModule,
  ClusterFeatureModule,
  SnapshotsFeatureModule,
  DashboardFeatureModule,
  OpenApiFeatureModule,
];
