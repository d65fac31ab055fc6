import { DynamicModule, Module } from '@nestjs/common';
import { ClusterStatsGatherer } from './cluster/cluster-stats';
import { ReplicatedPointsCluster } from './cluster/points-cluster';
import { POINTS_PEERS, PointsPeers } from './cluster/points-peers';
import { ReadRouter } from './cluster/read-router';
import { ReplicaWriter } from './cluster/replica-writer';
import { ShardEndpoint } from './cluster/shard-endpoint';
import { OptimizerService } from './optimizer/optimizer.service';
import { CollectionContexts } from './service/collection-context';
import { CollectionStatsReporter } from './service/collection-stats.reporter';
import { OptimizationsReporter } from './service/optimizations.reporter';
import { SegmentsReporter } from './service/segments.reporter';
import { DistanceMatrixService } from './service/distance-matrix';
import { PointsReader } from './service/points-reader';
import { PointsWriter } from './service/points-writer';
import { QueryEngine } from './service/query-engine';
import { COLLECTION_STATS_GATHERER, POINTS_CLUSTER, SHARD_WRITER } from './service/replication-ports';
import { VectorNameOperations } from './service/vector-names';
import { CollectionSnapshots } from './storage/collection-snapshots';
import { OPEN_SHARD_LOG, POINTS_DATA_DIR, PointsStorage } from './storage/points-storage';
import { OpenShardLog } from './storage/shard-log';
import { WriteAheadLog } from './wal/write-ahead-log';

export interface PointsModuleOptions {
  dataDir: string;
  /** Cluster mode: the other peers, which hold the shards this peer does not. */
  peers?: PointsPeers;
}

/** Points storage and the services over it. Needs the (global) CollectionsModule for the catalog. */
@Module({})
export class PointsModule {
  static forRoot(options: PointsModuleOptions): DynamicModule {
    const openLog: OpenShardLog = (logOptions) => WriteAheadLog.open(logOptions);
    return {
      module: PointsModule,
      // Global like CollectionsModule: each transport feature module of the app uses these services.
      global: true,
      providers: [
        { provide: POINTS_DATA_DIR, useValue: options.dataDir },
        { provide: OPEN_SHARD_LOG, useValue: openLog },
        ...(options.peers
          ? [
              { provide: POINTS_PEERS, useValue: options.peers },
              { provide: POINTS_CLUSTER, useClass: ReplicatedPointsCluster },
              { provide: COLLECTION_STATS_GATHERER, useClass: ClusterStatsGatherer },
            ]
          : []),
        { provide: SHARD_WRITER, useExisting: ReplicaWriter },
        PointsStorage,
        CollectionContexts,
        PointsWriter,
        PointsReader,
        QueryEngine,
        DistanceMatrixService,
        ReadRouter,
        ReplicaWriter,
        ShardEndpoint,
        VectorNameOperations,
        OptimizerService,
        CollectionStatsReporter,
        CollectionSnapshots,
        OptimizationsReporter,
        SegmentsReporter,
      ],
      exports: [
        ReadRouter,
        ShardEndpoint,
        PointsWriter,
        PointsReader,
        QueryEngine,
        DistanceMatrixService,
        VectorNameOperations,
        PointsStorage,
        CollectionSnapshots,
        OptimizationsReporter,
        SegmentsReporter,
      ],
    };
  }
}
