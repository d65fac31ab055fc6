import { Module } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { MulterModule } from '@nestjs/platform-express';
import { APP_CONFIG, AppConfig } from '@vectorstore/config';
import { FullSnapshotsHttpController } from './full-snapshots.http.controller';
import { SnapshotsGrpcController } from './snapshots.grpc.controller';
import { ShardSnapshotsHttpController } from './shard-snapshots.http.controller';
import { SnapshotsHttpController } from './snapshots.http.controller';
import { CLUSTER_MEMBERSHIP, ClusterMembership, CollectionCatalog } from '@vectorstore/collections';
import { POINTS_PEERS, PointsPeers, SHARD_SNAPSHOT_HOST } from '@vectorstore/replication';
import {
  ClusterBackups,
  ClusterRestores,
  CollectionRecovery,
  MAX_SNAPSHOT_BYTES,
  ShardRecovery,
  ShardSnapshotParts,
  SNAPSHOT_PEERS,
  SnapshotsService,
} from '@vectorstore/snapshots';
import { ClusterBackupsHttpController } from './cluster-backups.http.controller';
import { PeerSnapshots } from './peer-snapshots';

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
    ClusterBackupsHttpController,
  ],
  providers: [
    SnapshotsService,
    ShardRecovery,
    CollectionRecovery,
    ClusterBackups,
    ClusterRestores,
    // Another peer's backup or restore asks this one for its shards (through the peer service's ShardRead).
    ShardSnapshotParts,
    { provide: SHARD_SNAPSHOT_HOST, useExisting: ShardSnapshotParts },
    // Cluster mode: backups reach the other peers over the peer service; standalone has none.
    {
      provide: SNAPSHOT_PEERS,
      inject: [CollectionCatalog, ModuleRef, { token: CLUSTER_MEMBERSHIP, optional: true }],
      // POINTS_PEERS is the replication module's own: looked up when a backup first needs it.
      useFactory: (catalog: CollectionCatalog, moduleRef: ModuleRef, membership?: ClusterMembership) =>
        membership
          ? new PeerSnapshots(catalog, () => moduleRef.get<PointsPeers>(POINTS_PEERS, { strict: false }), membership)
          : undefined,
    },
  ],
})
export class SnapshotsFeatureModule {}
