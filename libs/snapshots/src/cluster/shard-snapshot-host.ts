import { Inject, Injectable } from '@nestjs/common';
import { CollectionCatalog, CollectionRecord, PEER_ID } from '@vectorstore/collections';
import { DomainError } from '@vectorstore/common';
import { APP_CONFIG, AppConfig } from '@vectorstore/config';
import { durableFs } from '@vectorstore/persistence';
import { CollectionSnapshots } from '@vectorstore/points';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { SNAPSHOT_WORK_DIR } from '../snapshot-limits';
import { writeSnapshot } from '../snapshot-writer';
import type { SnapshotPriority } from './recovery-priority';
import { ShardRecovery } from './shard-recovery';

/** How long a peer waits for its catalog to show a collection a coordinator just made (a restore). */
const CATCH_UP_MS = 10_000;
/** Largest part read at once. */
const MAX_PART_BYTES = 16 * 1024 * 1024;

/** The collection a coordinator named: its name, and its id to tell a re-created one apart. */
export interface PartsCollection {
  id: string;
  name: string;
}

/** One step of copying a shard snapshot off a peer, or onto one (the peer service carries it; see the app). */
export type ShardSnapshotPart =
  | { op: 'take'; shardId: number }
  | { op: 'read'; handle: string; offset: number; length: number }
  | { op: 'release'; handle: string }
  | { op: 'write'; handle?: string; offset: number; data: Uint8Array }
  | { op: 'recover'; handle: string; shardId: number; sha256: string; priority: SnapshotPriority };

export type ShardSnapshotPartResult =
  { handle: string; size: number; sha256: string } | { handle: string } | Uint8Array | null;

/**
 * This peer's side of a cluster backup or restore run by another peer (see SnapshotPart): shard snapshots of its
 * replicas taken into work files and read off in parts, and shard files written in parts and recovered. Work files
 * live under the data folder's snapshot work folder, which start empties.
 */
@Injectable()
export class ShardSnapshotParts {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly catalog: CollectionCatalog,
    private readonly collections: CollectionSnapshots,
    private readonly recovery: ShardRecovery,
    @Inject(PEER_ID) private readonly selfId: string,
  ) {}

  private get dir(): string {
    return path.join(this.config.dataDir, SNAPSHOT_WORK_DIR, 'peer-parts');
  }

  async serve(collection: PartsCollection, part: ShardSnapshotPart): Promise<ShardSnapshotPartResult> {
    switch (part.op) {
      case 'take':
        return this.take(await this.caughtUp(collection), part.shardId);
      case 'read': {
        const handle = await fs.open(this.fileOf(part.handle), 'r');
        try {
          const buffer = Buffer.alloc(Math.min(part.length, MAX_PART_BYTES));
          const { bytesRead } = await handle.read(buffer, 0, buffer.length, part.offset);
          return new Uint8Array(buffer.subarray(0, bytesRead));
        } finally {
          await handle.close();
        }
      }
      case 'release':
        await fs.rm(this.fileOf(part.handle), { force: true });
        return null;
      case 'write': {
        const handle = part.handle ?? `upload-${randomBytes(8).toString('hex')}.snapshot`;
        await durableFs.mkdir(this.dir, { recursive: true, mode: 0o700 });
        const file = await fs.open(this.fileOf(handle), part.handle ? 'r+' : 'wx', 0o600);
        try {
          await file.write(part.data, 0, part.data.byteLength, part.offset);
        } finally {
          await file.close();
        }
        return { handle };
      }
      case 'recover': {
        const record = await this.caughtUp(collection, part.shardId);
        const file = this.fileOf(part.handle);
        try {
          await this.recovery.recoverFromArchive(record.name, part.shardId, file, {
            checksum: part.sha256,
            requireChecksum: true,
            priority: part.priority,
          });
        } finally {
          await fs.rm(file, { force: true });
        }
        return null;
      }
    }
  }

  /** A shard snapshot of this peer's Active replica, written straight to a work file. */
  private async take(record: CollectionRecord, shardId: number): Promise<ShardSnapshotPartResult> {
    const replica = record.shards.find((s) => s.shardId === shardId && s.peerId === this.selfId);
    if (replica?.state !== 'Active')
      throw DomainError.failedPrecondition(
        `Failed precondition: the replica of shard ${shardId} of \`${record.name}\` on peer ${this.selfId} is ${replica?.state ?? 'not here'}, not Active: it cannot be backed up`,
      );
    await durableFs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const handle = `take-${randomBytes(8).toString('hex')}.snapshot`;
    const tree = await fs.mkdtemp(path.join(this.dir, 'tree-'));
    try {
      await this.collections.checkpointShard(record.name, shardId, tree);
      const written = await writeSnapshot({
        dir: this.dir,
        name: handle,
        kind: 'shard',
        peerId: this.selfId,
        collections: [record.name],
        shardId,
        directories: [{ root: tree, prefix: 'collection' }],
      });
      await fs.rm(written.checksumPath, { force: true });
      return { handle, size: written.size, sha256: written.sha256 };
    } finally {
      await fs.rm(tree, { recursive: true, force: true });
    }
  }

  /** The collection as the coordinator saw it, once this peer's catalog shows it (with a replica of `shardId`). */
  private async caughtUp(collection: PartsCollection, shardId?: number): Promise<CollectionRecord> {
    const deadline = Date.now() + CATCH_UP_MS;
    for (;;) {
      const record = [...this.catalog.snapshot.collections.values()].find((r) => r.id === collection.id);
      const here =
        shardId === undefined || record?.shards.some((s) => s.shardId === shardId && s.peerId === this.selfId);
      if (record && here) return record;
      if (Date.now() >= deadline)
        throw DomainError.notFound(`Not found: Collection \`${collection.name}\` doesn't exist on peer ${this.selfId}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  private fileOf(handle: string): string {
    if (!/^(take|upload)-[0-9a-f]{16}\.snapshot$/.test(handle))
      throw DomainError.invalidArgument('Bad request: no such part');
    return path.join(this.dir, handle);
  }
}
