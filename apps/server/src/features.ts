import { AliasesFeatureModule } from './aliases/aliases-feature.module';
import { AuthFeatureModule } from './auth/auth-feature.module';
import { ClusterFeatureModule } from './cluster/cluster-feature.module';
import { CollectionsFeatureModule } from './collections/collections-feature.module';
import { DashboardFeatureModule } from './dashboard/dashboard-feature.module';
import { HealthFeatureModule } from './health/health-feature.module';
import { PointsFeatureModule } from './points/points-feature.module';
import { SnapshotsFeatureModule } from './snapshots/snapshots-feature.module';

/** The app's feature modules: each serves one area over gRPC and HTTP. */
export const FEATURE_MODULES = [
  AuthFeatureModule,
  HealthFeatureModule,
  CollectionsFeatureModule,
  AliasesFeatureModule,
  ClusterFeatureModule,
  PointsFeatureModule,
  SnapshotsFeatureModule,
  DashboardFeatureModule,
];
