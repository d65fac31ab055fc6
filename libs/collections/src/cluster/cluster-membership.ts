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
}

export const CLUSTER_MEMBERSHIP = Symbol('CLUSTER_MEMBERSHIP');
