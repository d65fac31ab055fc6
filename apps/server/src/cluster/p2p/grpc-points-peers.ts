// The replicated layer's view of the other peers (libs/replication PointsPeers), over the internal peer service.
import type { ClusterNode } from '@vectorstore/cluster';
import type { CollectionRecord } from '@vectorstore/collections';
import { DomainError } from '@vectorstore/common';
import { encodeOperation } from '@vectorstore/points';
import type { ClockTag, RecoveryPoint, ShardChecksum, UpdateOperation } from '@vectorstore/points';
import {
  StaleRouting,
  type PointsPeers,
  type ShardRead,
  type ShardReadResults,
  type TransferApplyRequest,
} from '@vectorstore/replication';
import { deserialize, serialize } from 'node:v8';
import { GrpcPeerTransport } from './peer-client';

/**
 * How long one shard's part may take on another peer. A write waits for every replica before it is
 * acknowledged (a replica that does not answer is then marked Dead), so its bound is shorter than a
 * read's (an exact scan of a large shard).
 */
const UPDATE_TIMEOUT_MS = 30_000;
const READ_TIMEOUT_MS = 60_000;
/** One batch of a transfer: up to a few MB of points or files, applied (and fsynced) on the target. */
const TRANSFER_TIMEOUT_MS = 60_000;

export class GrpcPointsPeers implements PointsPeers {
  constructor(
    private readonly node: ClusterNode,
    private readonly transport: GrpcPeerTransport,
  ) {}

  get selfId(): string {
    return this.node.identity.peerId;
  }

  get incarnation(): string {
    return this.node.identity.incarnation;
  }

  assertWritable(): void {
    this.node.assertWritable();
  }

  async update(
    peerId: string,
    collection: CollectionRecord,
    shardId: number,
    operation: UpdateOperation,
    lead = false,
    epoch?: number,
    tag?: ClockTag,
  ): Promise<number> {
    const reply = await this.transport.shardUpdate(
      this.addressOf(peerId),
      { id: collection.id, name: collection.name },
      shardId,
      encodeOperation(operation),
      // A leader waits for the replicas it passes the write to.
      lead ? 2 * UPDATE_TIMEOUT_MS : UPDATE_TIMEOUT_MS,
      lead,
      epoch,
      tag,
    );
    if (reply.staleEpoch !== undefined) throw new StaleRouting(reply.staleEpoch);
    return reply.operationId;
  }

  async transferApply(peerId: string, request: TransferApplyRequest): Promise<void> {
    await this.transport.transferApply(
      this.addressOf(peerId),
      {
        collection: request.collection,
        shardId: request.transfer.shardId,
        toShardId: request.transfer.toShardId ?? request.transfer.shardId,
        fromPeerId: request.transfer.from,
        toPeerId: request.transfer.to,
        startedAt: request.startedAt,
        runId: request.runId,
        seq: request.seq,
        steps: serialize(request.steps),
      },
      TRANSFER_TIMEOUT_MS,
    );
  }

  async recoveryPoint(peerId: string, collection: CollectionRecord, shardId: number): Promise<RecoveryPoint> {
    const point = await this.transport.recoveryPoint(
      this.addressOf(peerId),
      { id: collection.id, name: collection.name },
      shardId,
      READ_TIMEOUT_MS,
    );
    return deserialize(point) as RecoveryPoint;
  }

  async checksum(peerId: string, collection: CollectionRecord, shardId: number): Promise<ShardChecksum> {
    return this.transport.shardChecksum(
      this.addressOf(peerId),
      { id: collection.id, name: collection.name },
      shardId,
      READ_TIMEOUT_MS,
    );
  }

  async read<K extends ShardRead['kind']>(
    peerId: string,
    collection: CollectionRecord,
    shardIds: readonly number[],
    read: Extract<ShardRead, { kind: K }>,
  ): Promise<ShardReadResults[K]> {
    const result = await this.transport.shardRead(
      this.addressOf(peerId),
      { id: collection.id, name: collection.name },
      serialize({ shardIds, read }),
      // The client's own `timeout` (seconds) bounds each peer's part too.
      Math.min(READ_TIMEOUT_MS, timeoutOf(read) * 1000),
    );
    return deserialize(result) as ShardReadResults[K];
  }

  private addressOf(peerId: string): string {
    const address = this.node.peerAddress(peerId);
    // A peer without a live registration cannot take its shards' part: with one copy per shard
    // (no replication yet) the request fails rather than answer without those points.
    if (address === undefined)
      throw DomainError.unavailable(
        `Service unavailable: peer ${peerId}, which holds shards of this collection, is not live`,
      );
    return address;
  }
}

function timeoutOf(read: ShardRead): number {
  const timeout = 'timeout' in read.request ? read.request.timeout : undefined;
  return typeof timeout === 'number' && timeout > 0 ? timeout : Infinity;
}
