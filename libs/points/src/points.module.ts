import { DynamicModule, Module } from '@nestjs/common';
import { OptimizerService } from './optimizer/optimizer.service';
import { CollectionContexts } from './service/collection-context';
import { CollectionStatsReporter } from './service/collection-stats.reporter';
import { OptimizationsReporter } from './service/optimizations.reporter';
import { SegmentsReporter } from './service/segments.reporter';
import { DistanceMatrixService } from './service/distance-matrix';
import { PointsReader } from './service/points-reader';
import { PointsWriter } from './service/points-writer';
import { QueryEngine } from './service/query-engine';
import { VectorNameOperations } from './service/vector-names';
import { VectorDropsRunner } from './service/vector-drops.runner';
import { CollectionSnapshots } from './storage/collection-snapshots';
import { OPEN_SHARD_LOG, POINTS_DATA_DIR, PointsStorage } from './storage/points-storage';
import { OpenShardLog } from './storage/shard-log';
import { WriteAheadLog } from './wal/write-ahead-log';
import { SCRUB_SETTINGS, ScrubService, ScrubSettings } from './storage/scrub/scrub.service';

export interface PointsModuleOptions {
  dataDir: string;
  /** The background scrub of segment files; absent: off. */
  scrub?: ScrubSettings;
}

/**
 * Points storage and the services over it, on one node. Needs the (global) CollectionsModule for the
 * catalog. The replicated layer (@vectorstore/replication's ReplicationModule) binds the ports of
 * service/replication-ports.ts; unbound, the services behave as a standalone server.
 */
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
        ...(options.scrub ? [{ provide: SCRUB_SETTINGS, useValue: options.scrub }] : []),
        PointsStorage,
        ScrubService,
        CollectionContexts,
        PointsWriter,
        PointsReader,
        QueryEngine,
        DistanceMatrixService,
        VectorNameOperations,
        VectorDropsRunner,
        OptimizerService,
        CollectionStatsReporter,
        CollectionSnapshots,
        OptimizationsReporter,
        SegmentsReporter,
      ],
      exports: [
        PointsWriter,
        PointsReader,
        QueryEngine,
        DistanceMatrixService,
        VectorNameOperations,
        PointsStorage,
        ScrubService,
        CollectionSnapshots,
        OptimizationsReporter,
        SegmentsReporter,
        // For the replicated layer's shard endpoint.
        CollectionContexts,
        CollectionStatsReporter,
      ],
    };
  }
}
