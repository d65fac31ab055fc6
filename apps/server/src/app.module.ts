import { DynamicModule, Module } from '@nestjs/common';
import { CollectionsModule } from '@vectorstore/collections';
import { AuthStoresModule } from '@vectorstore/auth';
import type { ClusterNode } from '@vectorstore/cluster';
import { AppConfig, ConfigModule } from '@vectorstore/config';
import { PointsModule } from '@vectorstore/points';
import { ReplicationModule, type PointsPeers } from '@vectorstore/replication';
import { LoggerModule } from 'nestjs-pino';
import { CoreModule } from './core/core.module';
import { createRequestLog, REQUEST_LOG } from './core/logging/request-log';
import { FEATURE_MODULES } from './features';

/** One process: each feature serves HTTP and gRPC over the same domain modules. */
@Module({})
export class AppModule {
  /**
   * `cluster`: this peer's cluster node in cluster mode (the catalog then lives in etcd); `peers`: the
   * other peers as the replicated layer routes to them.
   */
  static forRoot(config: AppConfig, cluster?: ClusterNode, peers?: PointsPeers): DynamicModule {
    const requestLog = createRequestLog(config.logLevel);
    return {
      module: AppModule,
      // main.ts mounts the request log first among the HTTP middleware (core/logging/request-log.ts).
      providers: [{ provide: REQUEST_LOG, useValue: requestLog }],
      exports: [REQUEST_LOG],
      imports: [
        ConfigModule.forRoot(config),
        // The app's logger over the request log's root logger; no nestjs-pino middleware (no routes).
        LoggerModule.forRoot({ pinoHttp: { logger: requestLog.logger, autoLogging: false }, forRoutes: [] }),
        // Cluster mode: users and refresh sessions in etcd, shared by every peer.
        ...(cluster
          ? [AuthStoresModule.forRoot({ users: cluster.users, refreshRecords: cluster.refreshRecords })]
          : []),
        CollectionsModule.forRoot({
          dataDir: config.dataDir,
          ...(cluster ? { catalogStore: cluster.catalogStore, membership: cluster } : {}),
        }),
        PointsModule.forRoot({
          dataDir: config.dataDir,
          scrub: {
            intervalMs: config.scrub.intervalSeconds * 1000,
            bytesPerSecond: config.scrub.mbPerSecond * 1_000_000,
          },
        }),
        ReplicationModule.forRoot(
          peers && cluster && config.cluster
            ? {
                peers,
                topology: cluster,
                healing: {
                  deadGraceMs: config.cluster.deadGraceSeconds * 1000,
                  transferLimit: config.cluster.transferLimit,
                  ...(config.cluster.autoReplicateAfterSeconds !== undefined
                    ? { autoReplicateAfterMs: config.cluster.autoReplicateAfterSeconds * 1000 }
                    : {}),
                },
              }
            : {},
        ),
        CoreModule,
        ...FEATURE_MODULES,
      ],
    };
  }
}
