import { DynamicModule, Module, Provider } from '@nestjs/common';
import { COLLECTION_STATS_GATHERER, POINTS_CLUSTER, SHARD_WRITER } from '@vectorstore/points';
import { ClusterStatsGatherer } from './cluster-stats';
import { ReplicatedPointsCluster } from './points-cluster';
import { POINTS_PEERS, PointsPeers } from './points-peers';
import { ReadRouter } from './read-router';
import { ReplicaWriter } from './replica-writer';
import { ShardEndpoint } from './shard-endpoint';
import { LocalReplicas } from './local-replicas';
import { TransferDriver } from './transfers/transfer-driver';
import { TransferReceiver } from './transfers/transfer-receiver';
import { ReshardingDriver } from './resharding/resharding-driver';
import { CLUSTER_TOPOLOGY, ClusterTopology, HEALING_SETTINGS, ReplicaHealer } from './healing/replica-healer';
import { HealingSettings } from './healing/healing-plan';
import { DamagedReplicaReporter } from './healing/damaged-replica-reporter';

export interface ReplicationModuleOptions {
  /** Cluster mode: the other peers, which hold the shards this peer does not. Absent: a standalone server. */
  peers?: PointsPeers;
  /** Cluster mode: who leads and who is live, for the leader's healing of replicas. */
  topology?: ClusterTopology;
  healing?: HealingSettings;
}

/**
 * The replicated layer over the (global) PointsModule: reads routed over the peers, writes to every
 * replica of a shard, and this peer's side of the peer service. It binds points' ports: the shard
 * writer always (ReplicaWriter writes to the local shard on a standalone server), the cluster and the
 * stats gatherer in cluster mode only, so that points sees a standalone server otherwise.
 */
@Module({})
export class ReplicationModule {
  static forRoot(options: ReplicationModuleOptions = {}): DynamicModule {
    const clusterPorts: Provider[] = options.peers
      ? [
          { provide: POINTS_PEERS, useValue: options.peers },
          { provide: POINTS_CLUSTER, useClass: ReplicatedPointsCluster },
          { provide: COLLECTION_STATS_GATHERER, useClass: ClusterStatsGatherer },
          ...(options.topology ? [{ provide: CLUSTER_TOPOLOGY, useValue: options.topology }] : []),
          ...(options.healing ? [{ provide: HEALING_SETTINGS, useValue: options.healing }] : []),
        ]
      : [];
    return {
      module: ReplicationModule,
      // Global like PointsModule: the transports use ReadRouter, and points' services use the ports.
      global: true,
      providers: [
        ...clusterPorts,
        ReadRouter,
        ReplicaWriter,
        LocalReplicas,
        TransferReceiver,
        TransferDriver,
        ReplicaHealer,
        DamagedReplicaReporter,
        ReshardingDriver,
        ShardEndpoint,
        { provide: SHARD_WRITER, useExisting: ReplicaWriter },
      ],
      exports: [
        ReadRouter,
        ShardEndpoint,
        SHARD_WRITER,
        ...(options.peers ? [POINTS_CLUSTER, COLLECTION_STATS_GATHERER] : []),
      ],
    };
  }
}
