import { Module } from '@nestjs/common';
import { ClusterGrpcController } from './cluster.grpc.controller';
import { ClusterHttpController } from './cluster.http.controller';

/** Cluster info, shard keys and the standalone answers to peer operations, over gRPC and HTTP. */
@Module({ controllers: [ClusterGrpcController, ClusterHttpController] })
export class ClusterFeatureModule {}
