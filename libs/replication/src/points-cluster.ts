import { Inject, Injectable } from '@nestjs/common';
import { CollectionRecord, isShardOf } from '@vectorstore/collections';
import { PointId, pointIdKey, type PointsCluster } from '@vectorstore/points';
import { POINTS_PEERS, PointsPeers } from './points-peers';
import { ReadRouter } from './read-router';

/** The other peers as the write services see them (the POINTS_CLUSTER port, bound in cluster mode). */
@Injectable()
export class ReplicatedPointsCluster implements PointsCluster {
  constructor(
    private readonly reads: ReadRouter,
    @Inject(POINTS_PEERS) private readonly peers: PointsPeers,
  ) {}

  assertWritable(): void {
    this.peers.assertWritable();
  }

  holdsEveryShard(record: CollectionRecord): boolean {
    return record.shards.every((shard) => isShardOf(shard, this.peers.selfId));
  }

  /** Read from every peer holding a shard, before anything of the write is applied. */
  async storedIds(collectionName: string, ids: PointId[]): Promise<Set<string>> {
    const found = await this.reads.fetch(collectionName, {
      ids,
      withPayload: { enable: false },
      withVectors: { enable: false },
    });
    return new Set(found.map((point) => pointIdKey(point.id)));
  }
}
