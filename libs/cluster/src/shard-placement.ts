// Where new shards go: spread over the candidate peers, least-loaded first (by replicas the catalog already
// places on each), ties by peer id, so that a collection's shards land on distinct peers when it can. The
// replicas of one shard always land on distinct peers (as many as there are candidates, at most).
import { DomainError } from '@vectorstore/common';
import { type CatalogState, comparePeerIds } from '@vectorstore/collections';

export function placeShards(
  count: number,
  state: Readonly<CatalogState>,
  livePeers: readonly string[],
  placement?: readonly string[],
  replicationFactor = 1,
): string[][] {
  if (placement) {
    const unknown = placement.filter((peerId) => !livePeers.includes(peerId));
    if (unknown.length > 0)
      throw DomainError.invalidArgument(
        `Wrong input: placement names peers that are not live members of the cluster: ${unknown.join(', ')}`,
      );
  }
  const candidates = [...new Set(placement ?? livePeers)];
  if (candidates.length === 0) throw DomainError.unavailable('no live peer can take the shards; try again');
  const load = new Map(candidates.map((peerId) => [peerId, 0]));
  for (const record of state.collections.values()) {
    for (const shard of record.shards) {
      if (shard.peerId !== undefined && load.has(shard.peerId)) load.set(shard.peerId, load.get(shard.peerId)! + 1);
    }
  }
  const placed: string[][] = [];
  const replicas = Math.min(Math.max(1, replicationFactor), candidates.length);
  for (let i = 0; i < count; i++) {
    const chosen = [...load]
      .sort(([a, la], [b, lb]) => la - lb || comparePeerIds(a, b))
      .slice(0, replicas)
      .map(([peerId]) => peerId);
    for (const peerId of chosen) load.set(peerId, load.get(peerId)! + 1);
    placed.push(chosen);
  }
  return placed;
}
