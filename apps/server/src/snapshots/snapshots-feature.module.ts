import { Module } from '@nestjs/common';
import { MulterModule } from '@nestjs/platform-express';
import { APP_CONFIG, AppConfig } from '@vectorstore/config';
import { FullSnapshotsHttpController } from './full-snapshots.http.controller';
import { SnapshotsGrpcController } from './snapshots.grpc.controller';
import { ShardSnapshotsHttpController } from './shard-snapshots.http.controller';
import { SnapshotsHttpController } from './snapshots.http.controller';
import {
  ClusterBackups,
  ClusterRestores,
  CollectionRecovery,
  MAX_SNAPSHOT_BYTES,
  ShardRecovery,
  SnapshotsService,
} from '@vectorstore/snapshots';

/** Collection snapshots over gRPC and HTTP. Uploads stream to a work folder on disk, never to memory. */
@Module({
  imports: [
    MulterModule.registerAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        dest: SnapshotsService.uploadsDir(config),
        limits: { fileSize: MAX_SNAPSHOT_BYTES, files: 1, fields: 16 },
      }),
    }),
  ],
  controllers: [
    SnapshotsGrpcController,
    SnapshotsHttpController,
    ShardSnapshotsHttpController,
    FullSnapshotsHttpController,
  ],
  providers: [SnapshotsService, ShardRecovery, CollectionRecovery, ClusterBackups, ClusterRestores],
})
export class SnapshotsFeatureModule {}
