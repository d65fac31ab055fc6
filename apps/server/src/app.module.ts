import { DynamicModule, Module } from '@nestjs/common';
import { CollectionsModule } from '@vectorstore/collections';
import type { ClusterNode } from '@vectorstore/cluster';
import { AppConfig, ConfigModule } from '@vectorstore/config';
import { PointsModule, type PointsPeers } from '@vectorstore/points';
import { LoggerModule } from 'nestjs-pino';
import { CoreModule } from './core/core.module';
import { FEATURE_MODULES } from './features';

/** One process: each feature serves HTTP and gRPC over the same domain modules. */
@Module({})
export class AppModule {
  /**
   * `cluster`: this peer's cluster node in cluster mode (the catalog then lives in etcd); `peers`: the
   * other peers as the points services route to them.
   */
  static forRoot(config: AppConfig, cluster?: ClusterNode, peers?: PointsPeers): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot({
          pinoHttp: {
            level: config.logLevel,
            // Health probes would drown the log.
            autoLogging: { ignore: (req) => /^\/(healthz|livez|readyz)$/.test(req.url ?? '') },
            redact: ['req.headers.authorization', 'req.headers["api-key"]', 'req.headers.cookie'],
          },
        }),
        CollectionsModule.forRoot({
          dataDir: config.dataDir,
          ...(cluster ? { catalogStore: cluster.catalogStore, membership: cluster } : {}),
        }),
        PointsModule.forRoot({ dataDir: config.dataDir, ...(peers ? { peers } : {}) }),
        CoreModule,
        ...FEATURE_MODULES,
      ],
    };
  }
}
