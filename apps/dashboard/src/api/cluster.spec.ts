import { peerRows } from './cluster';
import type { CollectionClusterInfo } from './types';

const shard = (shard_id: number, state: string, peer_id?: number) => ({ shard_id, state, peer_id, points_count: 1 });

describe('cluster', () => {
  describe(peerRows.name, () => {
    it('should show the one node of a standalone server with its shards', () => {
      const info: CollectionClusterInfo = {
        peer_id: 7,
        shard_count: 2,
        local_shards: [shard(0, 'Active'), shard(1, 'Active')],
        remote_shards: [],
        shard_transfers: [],
      };
      expect(peerRows({ status: 'disabled' }, [info, { ...info, local_shards: [shard(0, 'Partial')] }])).toEqual([
        { peer: '7', roles: ['this node'], shards: 3, states: { Active: 2, Partial: 1 } },
      ]);
    });

    it('should list every peer of a cluster, with its address, role and shards', () => {
      const rows = peerRows(
        {
          status: 'enabled',
          peer_id: 1,
          peers: { '1': { uri: 'http://a:6335/' }, '2': { uri: 'http://b:6335/' }, '3': { uri: 'http://c:6335/' } },
          raft_info: { leader: 2, role: 'Follower' },
        },
        [
          {
            peer_id: 1,
            shard_count: 2,
            local_shards: [shard(0, 'Active')],
            remote_shards: [shard(1, 'Dead', 2)],
            shard_transfers: [],
          },
        ],
      );
      expect(rows).toEqual([
        { peer: '1', uri: 'http://a:6335/', roles: ['this node'], shards: 1, states: { Active: 1 } },
        { peer: '2', uri: 'http://b:6335/', roles: ['leader'], shards: 1, states: { Dead: 1 } },
        { peer: '3', uri: 'http://c:6335/', roles: [], shards: 0, states: {} },
      ]);
    });
  });
});
