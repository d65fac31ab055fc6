import type { CatalogState } from '@vectorstore/collections';
import type { SnapshotPriority } from './recovery-priority';

/** A peer of the cluster as a backup records it. */
export interface BackupPeer {
  peerId: string;
  /** Its public REST address. */
  uri: string;
}

/**
 * What cluster snapshots need of the other peers (cluster mode only; the app binds it over the peers' REST API).
 * Its absence is a standalone server.
 */
export interface SnapshotPeers {
  /** The live peers now, this one included. */
  livePeers(): BackupPeer[];
  /**
   * The catalog as the cluster's metadata store holds it now (a linearizable read), not this peer's copy, which
   * its watch may not have brought up to date yet: a replica chosen from it as Active holds every write
   * acknowledged before the read (an acknowledgement waits for failed replicas to be marked Dead).
   */
  latestCatalog(): Promise<Readonly<CatalogState>>;
  /**
   * Has `peerId` take a snapshot of its replica of shard `shardId` of `collection` now, streams it into `file`, and
   * removes it from that peer. Resolves to the archive's sha256 and size.
   */
  fetchShardSnapshot(
    peerId: string,
    collection: string,
    shardId: number,
    file: string,
  ): Promise<{ sha256: string; size: number }>;
  /** Uploads the shard snapshot `file` to `peerId` and has it recover its replica of the shard from it. */
  recoverShardOn(
    peerId: string,
    collection: string,
    shardId: number,
    file: string,
    sha256: string,
    priority: SnapshotPriority,
  ): Promise<void>;
}

export const SNAPSHOT_PEERS = Symbol('SNAPSHOT_PEERS');
