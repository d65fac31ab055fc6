import { comparePeerIds, READABLE_REPLICA_STATES, type ShardRecord } from '@vectorstore/collections';
import { DomainError } from '@vectorstore/common';
import type { ReadConsistency } from '@vectorstore/points';

/** One peer's share of a read: the shards it answers for. */
export interface ReadPart {
  peerId: string;
  shardIds: number[];
}

/**
 * Who answers a read, as copies: each copy reads every selected shard once, from a different replica
 * than the other copies. One copy by default; `readConsistency` asks for more (All: every readable
 * replica; Majority: more than half of the readable ones; Quorum: more than half of all replicas; a
 * factor: that many). This peer's own replica comes first, then the others in an order that spreads
 * shards over peers. Peers in `unreachable` are left out (a retry after they failed), and so is, for each
 * shard, every peer `asked` lists for it (a replica a hedged read has asked already, see hedged-read.ts).
 */
export function planReads(
  replicas: readonly ShardRecord[],
  selfId: string,
  readConsistency: ReadConsistency | undefined,
  unreachable: ReadonlySet<string> = new Set(),
  asked: ReadonlyMap<number, ReadonlySet<string>> = new Map(),
): ReadPart[][] {
  const byShard = new Map<number, ShardRecord[]>();
  for (const replica of replicas) byShard.set(replica.shardId, [...(byShard.get(replica.shardId) ?? []), replica]);
  const copies: Array<Map<string, number[]>> = [];
  for (const [shardId, all] of [...byShard].sort(([a], [b]) => a - b)) {
    const peerOf = (replica: ShardRecord) => replica.peerId ?? selfId;
    const left = (peerId: string) => !unreachable.has(peerId) && !asked.get(shardId)?.has(peerId);
    const readable = all
      .filter((replica) => READABLE_REPLICA_STATES.has(replica.state) && left(peerOf(replica)))
      .map(peerOf)
      .sort(comparePeerIds);
    // Spread shards over their replicas' peers; this peer's own replica first (no network hop).
    const rotated = readable.map((_, i) => readable[(i + shardId) % readable.length]);
    const ordered = rotated.includes(selfId) ? [selfId, ...rotated.filter((p) => p !== selfId)] : rotated;
    const needed = copiesNeeded(readConsistency, ordered.length, all.length);
    if (ordered.length === 0 || ordered.length < needed) {
      const which = readConsistency ? ` for read consistency ${describe(readConsistency)}` : '';
      throw DomainError.unavailable(
        `Service unavailable: shard ${shardId} has ${ordered.length} readable replica(s) of ${all.length}; ${Math.max(needed, 1)} needed${which}`,
      );
    }
    for (let c = 0; c < needed; c++) {
      const copy = (copies[c] ??= new Map());
      copy.set(ordered[c], [...(copy.get(ordered[c]) ?? []), shardId]);
    }
  }
  return copies.map((copy) => [...copy].map(([peerId, shardIds]) => ({ peerId, shardIds })));
}

function copiesNeeded(consistency: ReadConsistency | undefined, readable: number, total: number): number {
  if (!consistency) return 1;
  // As Qdrant, a factor above the replica count asks for every replica.
  if ('factor' in consistency) return Math.min(Math.max(1, consistency.factor), total);
  switch (consistency.type) {
    case 'All':
      return Math.max(1, readable);
    case 'Majority':
      return Math.floor(readable / 2) + 1;
    case 'Quorum':
      return Math.floor(total / 2) + 1;
  }
}

function describe(consistency: ReadConsistency): string {
  return 'factor' in consistency ? String(consistency.factor) : consistency.type.toLowerCase();
}
