import { Body, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { Operation } from '@vectorstore/auth';
import { ClusterService } from '@vectorstore/collections';
import { ShardEndpoint } from '@vectorstore/replication';
import { pathFormatError } from '../core/rest/rest-format.error';
import { readBoolParam, readMetaTimeout, RestQuery } from '../core/rest/rest-query';
import {
  clusterInfoToRest,
  clusterStatusToRest,
  clusterOperationFromRest,
  createShardKeyFromRest,
  dropShardKeyFromRest,
  shardKeyToRest,
} from './rest/cluster.rest-mapper';
import { HttpController } from '../core/rest/http-controller.decorator';
import { CollectionNameParam } from '../core/rest/collection-name.param';

/** Qdrant's cluster routes, answered as a standalone node answers them. */
@HttpController()
export class ClusterHttpController {
  constructor(
    private readonly cluster: ClusterService,
    private readonly shards: ShardEndpoint,
  ) {}

  /** Qdrant's tests read this to tell standalone from distributed mode. */
  @Operation('Cluster/Status')
  @Get('cluster')
  status(): unknown {
    return clusterStatusToRest(this.cluster.status());
  }

  @Operation('Cluster/Recover')
  @Post('cluster/recover')
  @HttpCode(200)
  recover(): never {
    return this.cluster.recoverRaftState();
  }

  @Operation('Cluster/RemovePeer')
  @Delete('cluster/peer/:peer_id')
  removePeer(@Param('peer_id') peerId: string, @Query() query: RestQuery): Promise<boolean> {
    if (!/^\d+$/.test(peerId)) throw pathFormatError('peer_id', `invalid digit found in string \`${peerId}\``);
    readMetaTimeout(query);
    const force = readBoolParam(query, 'force') ?? false;
    return this.cluster.removePeer(BigInt(peerId).toString(), force);
  }

  /**
   * `?checksum=true` (ours) adds each local replica's checksum (live points and an order-free digest), so that
   * the replicas of a shard can be compared peer by peer after a transfer or a recovery.
   */
  @Operation('Collections/CollectionClusterInfo')
  @Get('collections/:collection_name/cluster')
  info(@CollectionNameParam() name: string, @Query() query: RestQuery): unknown {
    const info = this.cluster.clusterInfo(name);
    const checksums = readBoolParam(query, 'checksum') ? this.shards.localChecksums(name) : undefined;
    return clusterInfoToRest(info, checksums);
  }

  @Operation('Collections/UpdateCollectionClusterSetup')
  @Post('collections/:collection_name/cluster')
  @HttpCode(200)
  async update(
    @CollectionNameParam() name: string,
    @Body() body: unknown,
    @Query() query: RestQuery,
  ): Promise<boolean> {
    const timeout = readMetaTimeout(query);
    return this.cluster.updateClusterSetup(name, clusterOperationFromRest(body), timeout);
  }

  /** Auto-sharded collections answer `{}`, as Qdrant leaves the list out. */
  @Operation('Collections/ListShardKeys')
  @Get('collections/:collection_name/shards')
  listShardKeys(@CollectionNameParam() name: string): unknown {
    const keys = this.cluster.listShardKeysIfCustom(name);
    return keys ? { shard_keys: keys.map((key) => ({ key: shardKeyToRest(key) })) } : {};
  }

  @Operation('Collections/CreateShardKey')
  @Put('collections/:collection_name/shards')
  createShardKey(
    @CollectionNameParam() name: string,
    @Body() body: unknown,
    @Query() query: RestQuery,
  ): Promise<boolean> {
    const timeout = readMetaTimeout(query);
    return this.cluster.createShardKey(name, createShardKeyFromRest(body), timeout);
  }

  @Operation('Collections/DeleteShardKey')
  @Post('collections/:collection_name/shards/delete')
  @HttpCode(200)
  deleteShardKey(
    @CollectionNameParam() name: string,
    @Body() body: unknown,
    @Query() query: RestQuery,
  ): Promise<boolean> {
    const timeout = readMetaTimeout(query);
    return this.cluster.deleteShardKey(name, dropShardKeyFromRest(body), timeout);
  }
}
