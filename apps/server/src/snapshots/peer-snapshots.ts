import { ClusterMembership, CollectionCatalog, CollectionRecord } from '@vectorstore/collections';
import { DomainError } from '@vectorstore/common';
import { PointsPeers, SnapshotPart, SnapshotPartResult } from '@vectorstore/replication';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { BackupPeer, SnapshotPeers, SnapshotPriority } from '@vectorstore/snapshots';

/** Bytes per part copied between peers (well under the peer channel's message limit). */
const PART_BYTES = 8 * 1024 * 1024;

/**
 * SnapshotPeers over the peer service: each step is a `snapshot` ShardRead served by the other peer's
 * ShardSnapshotHostService; files move in parts of {@link PART_BYTES}.
 */
export class PeerSnapshots implements SnapshotPeers {
  constructor(
    private readonly catalog: CollectionCatalog,
    private readonly peers: () => PointsPeers,
    private readonly membership: ClusterMembership,
  ) {}

  livePeers(): BackupPeer[] {
    return this.membership.status().peers.map((peer) => ({ peerId: peer.peerId, uri: peer.uri }));
  }

  /**
   * This peer's catalog once it holds every change the metadata store had committed when called (its watch may
   * lag behind a replica just marked Dead); the replica chosen is checked Active again on its own peer too.
   */
  async latestCatalog() {
    await this.catalog.catchUp();
    return this.catalog.snapshot;
  }

  async fetchShardSnapshot(
    peerId: string,
    collection: string,
    shardId: number,
    file: string,
  ): Promise<{ sha256: string; size: number }> {
    const record = this.catalog.require(collection);
    const taken = (await this.part(peerId, record, { op: 'take', shardId })) as {
      handle: string;
      size: number;
      sha256: string;
    };
    const hash = createHash('sha256');
    const out = await fs.open(file, 'wx', 0o600);
    try {
      for (let offset = 0; offset < taken.size;) {
        const length = Math.min(PART_BYTES, taken.size - offset);
        const data = (await this.part(peerId, record, {
          op: 'read',
          handle: taken.handle,
          offset,
          length,
        })) as Uint8Array;
        if (data.byteLength === 0)
          throw DomainError.internal(`Service internal error: peer ${peerId} sent a short file`);
        hash.update(data);
        await out.write(data, 0, data.byteLength, offset);
        offset += data.byteLength;
      }
      await out.sync();
    } finally {
      await out.close();
      await this.part(peerId, record, { op: 'release', handle: taken.handle }).catch(() => undefined);
    }
    const sha256 = hash.digest('hex');
    if (sha256 !== taken.sha256)
      throw DomainError.internal(`Service internal error: the copy of shard ${shardId} from peer ${peerId} is damaged`);
    return { sha256, size: taken.size };
  }

  async recoverShardOn(
    peerId: string,
    collection: string,
    shardId: number,
    file: string,
    sha256: string,
    priority: SnapshotPriority,
  ): Promise<void> {
    const record = this.catalog.require(collection);
    const input = await fs.open(file, 'r');
    let handle: string | undefined;
    try {
      const buffer = Buffer.alloc(PART_BYTES);
      for (let offset = 0; ;) {
        const { bytesRead } = await input.read(buffer, 0, PART_BYTES, offset);
        if (bytesRead === 0 && handle !== undefined) break;
        const data = new Uint8Array(buffer.subarray(0, bytesRead));
        handle = ((await this.part(peerId, record, { op: 'write', handle, offset, data })) as { handle: string })
          .handle;
        offset += bytesRead;
        if (bytesRead === 0) break;
      }
    } finally {
      await input.close();
    }
    await this.part(peerId, record, { op: 'recover', handle: handle!, shardId, sha256, priority });
  }

  private part(peerId: string, record: CollectionRecord, request: SnapshotPart): Promise<SnapshotPartResult> {
    return this.peers().read(peerId, record, [], { kind: 'snapshot', request });
  }
}
