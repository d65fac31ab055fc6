import type { ShardRecord } from '@vectorstore/collections';
import { ErrorKind } from '@vectorstore/common';
import { planReads } from './read-plan';

const active = (shardId: number, peerId: string): ShardRecord => ({ shardId, state: 'Active', peerId });

describe(planReads.name, () => {
  // Three shards, rf 2, on peers 1, 2, 3 (each peer lacks one shard).
  const replicas = [active(0, '1'), active(0, '2'), active(1, '2'), active(1, '3'), active(2, '1'), active(2, '3')];

  it('takes this peer’s own replica first, and spreads the other shards over their replicas by shard id', () => {
    expect(planReads(replicas, '1', undefined)).toEqual([
      [
        { peerId: '1', shardIds: [0, 2] },
        { peerId: '3', shardIds: [1] },
      ],
    ]);
    expect(planReads(replicas, '2', undefined)).toEqual([
      [
        { peerId: '2', shardIds: [0, 1] },
        { peerId: '1', shardIds: [2] },
      ],
    ]);
  });

  it('plans as many copies as the consistency asks, each on other replicas, and refuses when too few are readable', () => {
    expect(planReads(replicas, '1', { type: 'All' })).toEqual([
      [
        { peerId: '1', shardIds: [0, 2] },
        { peerId: '3', shardIds: [1] },
      ],
      [
        { peerId: '2', shardIds: [0, 1] },
        { peerId: '3', shardIds: [2] },
      ],
    ]);
    const oneDead = replicas.map((replica) =>
      replica.peerId === '3' && replica.shardId === 1 ? { ...replica, state: 'Dead' as const } : replica,
    );
    expect(() => planReads(oneDead, '1', { factor: 2 })).toThrow(
      expect.objectContaining({ kind: ErrorKind.Unavailable }),
    );
  });

  it('leaves out unreachable peers, and for each shard the peers already asked for it', () => {
    expect(planReads(replicas, '1', undefined, new Set(['3']))).toEqual([
      [
        { peerId: '1', shardIds: [0, 2] },
        { peerId: '2', shardIds: [1] },
      ],
    ]);
    // Peer 1 was asked for shard 0 only: it still answers for shard 2.
    const asked = new Map([[0, new Set(['1'])]]);
    expect(planReads(replicas, '1', undefined, new Set(), asked)).toEqual([
      [
        { peerId: '2', shardIds: [0] },
        { peerId: '3', shardIds: [1] },
        { peerId: '1', shardIds: [2] },
      ],
    ]);
    expect(() => planReads(replicas, '1', undefined, new Set(['2']), asked)).toThrow(
      expect.objectContaining({ kind: ErrorKind.Unavailable }),
    );
  });
});
