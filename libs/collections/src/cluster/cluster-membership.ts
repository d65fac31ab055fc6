import type { CatalogState } from '../catalog/catalog-state';
import type { PeerStanding } from './shard-transfers';

// What the rest of the server may ask of cluster mode, without depending on it: the peers as this
// peer sees them, and whether it may still write. Absent in standalone mode.

export interface ClusterPeerView {
  peerId: string;
  /** The internal peer service address, as Qdrant's `/cluster` shows each peer's `uri`. */
  uri: string;
}

export interface ClusterStatusView {
  peerId: string;
  peers: ClusterPeerView[];
  /** The leader's peer id, when one is known. */
  leaderId?: string;
  /** This peer could not renew its lease in time: it refuses writes and metadata changes. */
  fenced: boolean;
  /** Failed calls to other peers since the last success, by peer address. */
  sendFailures: Record<string, { count: number; latestError: string; latestErrorTimestamp: string }>;
}

export interface ClusterMembership {
  status(): ClusterStatusView;
  /** Live peers now: a new collection gets this many shards unless it asks otherwise (as Qdrant). */
  livePeerCount(): number;
  /**
   * The peers of each of `count` new shards, `replicationFactor` distinct ones each (fewer when fewer
   * candidates): over `placement` (peer ids that must be live) or all live peers, least-loaded first by
   * the replicas `state` already places on each.
   */
  placeShards(
    count: number,
    state: Readonly<CatalogState>,
    placement?: readonly string[],
    replicationFactor?: number,
  ): string[][];
  /** Retires another peer for good: it can never rejoin, and its live registration is ended. */
  retirePeer(peerId: string): Promise<void>;
  /** Asks every live peer whether it answers, so that the next placement leaves out one that died a moment ago. */
  probePeers?(): Promise<void>;
  /** Whether `peerId` is live, joined once but is gone now, or never joined (or was removed). */
  peerStanding(peerId: string): Promise<PeerStanding>;
}

export const CLUSTER_MEMBERSHIP = Symbol('CLUSTER_MEMBERSHIP');
