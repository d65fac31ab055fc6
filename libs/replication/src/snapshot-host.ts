// What one peer asks another for a cluster backup or restore (docs/cluster.md, "Snapshots"): carried as a
// `snapshot` kind of the peer service's ShardRead call, and served by the snapshots library through this port.
/** The collection a coordinator named: its name, and its id to tell a re-created one apart. */
interface RoutedCollection {
  id: string;
  name: string;
}

/** One step of copying a shard snapshot off a peer, or onto one. */
export type SnapshotPart =
  /** Take a shard snapshot of this peer's replica now, into a work file: its handle, size and sha256. */
  | { op: 'take'; shardId: number }
  /** Up to `length` bytes of a taken or written file from `offset` (fewer at its end). */
  | { op: 'read'; handle: string; offset: number; length: number }
  /** Remove a taken or written file. */
  | { op: 'release'; handle: string }
  /** Write `data` at `offset` of a file being uploaded (no handle: a new file); its handle. */
  | { op: 'write'; handle?: string; offset: number; data: Uint8Array }
  /** Recover this peer's replica of shard `shardId` from an uploaded file, then remove the file. */
  | { op: 'recover'; handle: string; shardId: number; sha256: string; priority: 'snapshot' | 'replica' | 'no_sync' };

export type SnapshotPartResult =
  { handle: string; size: number; sha256: string } | { handle: string } | Uint8Array | null;

export interface ShardSnapshotHost {
  serve(collection: RoutedCollection, part: SnapshotPart): Promise<SnapshotPartResult>;
}

/** Bound by the app (the snapshots feature module); absent, a peer refuses snapshot parts. */
export const SHARD_SNAPSHOT_HOST = Symbol('SHARD_SNAPSHOT_HOST');
