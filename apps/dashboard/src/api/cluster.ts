import type { CollectionClusterInfo } from './types';

/** `GET /cluster`, as Qdrant answers it: `{status: "disabled"}` standalone, peers and raft state in cluster mode. */
export interface ClusterStatus {
  status: string;
  peer_id?: number | string;
  peers?: Record<string, { uri?: string }>;
  raft_info?: { leader?: number | string; role?: string; term?: number; commit?: number; pending_operations?: number };
  consensus_thread_status?: { consensus_thread_status?: string; err?: string; last_update?: string };
  message_send_failures?: Record<string, { count?: number; latest_error?: string; latest_error_timestamp?: string }>;
}

export interface PeerRow {
  peer: string;
  uri?: string;
  /** This node, the leader, both, or neither. */
  roles: string[];
  shards: number;
  /** Shard states seen on this peer, each with how many shards are in it. */
  states: Record<string, number>;
}

/**
 * One row per peer: the peers `/cluster` lists (cluster mode), and any peer that holds a shard of a collection
 * (in standalone mode, only this node). Sorted by peer id as text.
 */
export function peerRows(status: ClusterStatus, collections: CollectionClusterInfo[]): PeerRow[] {
  const rows = new Map<string, PeerRow>();
  const row = (peer: string): PeerRow => {
    let found = rows.get(peer);
    if (!found) rows.set(peer, (found = { peer, roles: [], shards: 0, states: {} }));
    return found;
  };
  for (const [peer, info] of Object.entries(status.peers ?? {})) row(peer).uri = info.uri;
  const addShard = (peer: string, state = 'unknown'): void => {
    const entry = row(peer);
    entry.shards += 1;
    entry.states[state] = (entry.states[state] ?? 0) + 1;
  };
  for (const cluster of collections) {
    cluster.local_shards.forEach((shard) => addShard(String(cluster.peer_id), shard.state));
    cluster.remote_shards.forEach((shard) => addShard(String(shard.peer_id ?? 'unknown'), shard.state));
  }
  const self = status.peer_id ?? collections[0]?.peer_id;
  if (self !== undefined) row(String(self)).roles.push('this node');
  const leader = status.raft_info?.leader;
  if (leader !== undefined) row(String(leader)).roles.push('leader');
  return [...rows.values()].sort((a, b) => (a.peer < b.peer ? -1 : a.peer > b.peer ? 1 : 0));
}
