import {
  CatalogState,
  ClusterMembership,
  CollectionRecord,
  ReplicaState,
  shardKeyEquals,
  ShardKey,
  ShardRecord,
} from '@vectorstore/collections';
import { randomUUID } from 'node:crypto';

/** The states a restored collection's replicas start in: the first replica of each shard, and the others. */
export interface RestoredStates {
  first: ReplicaState;
  others: ReplicaState;
  /** Shards whose first replica must be on this peer (the one holding their data), replacing a placed one. */
  holder?: { peerId: string; shardIds: readonly number[] };
}

/**
 * Puts into `draft` the record of collection `name` made from a record of another cluster (a backup's, a
 * snapshot's): the same config, shard ids, shard keys and router (so every point lies in the shard it is routed
 * to), a new id, and replicas placed anew on this cluster's live peers by `membership` (cluster mode: each
 * shard's replication factor, capped at the live peers, least loaded first) or one per shard (standalone). The
 * first peer of each shard is the one its data is restored on. Replaces a collection of that name.
 */
export function putRestoredRecord(
  draft: CatalogState,
  archived: CollectionRecord,
  name: string,
  membership: ClusterMembership | undefined,
  states: RestoredStates,
): CollectionRecord {
  const record: CollectionRecord = {
    id: randomUUID(),
    name,
    createdAt: new Date().toISOString(),
    config: structuredClone(archived.config),
    shards: [],
    shardKeys: structuredClone(archived.shardKeys),
    nextShardId: archived.nextShardId,
    ...(archived.router ? { router: archived.router } : {}),
  };
  // In the draft first: each group's placement then counts the replicas placed for the groups before it.
  draft.collections.set(name, record);
  for (const group of shardGroups(archived)) {
    const peers = membership?.placeShards(group.shardIds.length, draft, undefined, group.replicationFactor);
    group.shardIds.forEach((shardId, i) => {
      const key = group.shardKey ? { shardKey: structuredClone(group.shardKey) } : {};
      if (!peers) {
        record.shards.push({ shardId, state: states.first, ...key });
        return;
      }
      const placed = withHolder(peers[i], shardId, states.holder);
      placed.forEach((peerId, n) =>
        record.shards.push({ shardId, state: n === 0 ? states.first : states.others, ...key, peerId }),
      );
    });
  }
  record.nextShardId = Math.max(record.nextShardId, ...record.shards.map((s) => s.shardId + 1));
  return record;
}

/** `peers` with the holder first when the shard is one of its own (it replaces the last placed peer if absent). */
function withHolder(peers: string[], shardId: number, holder: RestoredStates['holder']): string[] {
  if (!holder || !holder.shardIds.includes(shardId)) return peers;
  const others = peers.filter((peerId) => peerId !== holder.peerId);
  return [holder.peerId, ...others.slice(0, Math.max(0, peers.length - 1))];
}

/** The peer each shard's data is restored on: its first replica's (undefined on a standalone server). */
export function restoreTargets(record: CollectionRecord): Map<number, string | undefined> {
  const targets = new Map<number, string | undefined>();
  for (const shard of record.shards) if (!targets.has(shard.shardId)) targets.set(shard.shardId, shard.peerId);
  return targets;
}

/** The record's distinct shards, grouped by shard key (each key has its own replication factor). */
function shardGroups(
  record: CollectionRecord,
): Array<{ shardKey?: ShardKey; replicationFactor: number; shardIds: number[] }> {
  const groups: Array<{ shardKey?: ShardKey; replicationFactor: number; shardIds: number[] }> = [];
  const seen = new Set<number>();
  for (const shard of [...record.shards].sort((a, b) => a.shardId - b.shardId)) {
    if (seen.has(shard.shardId)) continue;
    seen.add(shard.shardId);
    let group = groups.find((g) => sameKey(g.shardKey, shard.shardKey));
    if (!group) {
      group = { shardKey: shard.shardKey, replicationFactor: replicationFactorOf(record, shard), shardIds: [] };
      groups.push(group);
    }
    group.shardIds.push(shard.shardId);
  }
  return groups;
}

function sameKey(a: ShardKey | undefined, b: ShardKey | undefined): boolean {
  return a === undefined || b === undefined ? a === b : shardKeyEquals(a, b);
}

function replicationFactorOf(record: CollectionRecord, shard: ShardRecord): number {
  const key = shard.shardKey;
  const ofKey = key && record.shardKeys.find((entry) => shardKeyEquals(entry.key, key))?.replicationFactor;
  return Math.max(1, ofKey ?? record.config.params.replicationFactor ?? 1);
}
