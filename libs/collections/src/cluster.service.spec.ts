import { ErrorKind } from '@vectorstore/common';
import { AliasesService } from './aliases.service';
import { CollectionCatalog } from './catalog/collection-catalog';
import { ClusterMembership } from './cluster/cluster-membership';
import { ClusterService } from './cluster.service';
import { CollectionsService } from './collections.service';
import { EmptyCollectionStatsProvider, emptyShardStats } from './stats/collection-stats.provider';
import {
  collectionsFixture,
  domainErrorOf,
  openCatalog,
  rejectionOf,
  removeTempDir,
} from './testing/collections-fixtures';

const PEER_ID = '12345';

describe(ClusterService.name, () => {
  let dir: string;
  let catalog: CollectionCatalog;
  let collections: CollectionsService;
  let cluster: ClusterService;

  beforeEach(async () => {
    ({ dir, catalog, collections } = await collectionsFixture('vs-cluster-'));
    cluster = new ClusterService(catalog, PEER_ID, new EmptyCollectionStatsProvider());
    await collections.create({ name: 'auto', shardNumber: 3 });
    await collections.create({ name: 'custom', shardingMethod: 'Custom', shardNumber: 2, replicationFactor: 1 });
  });

  afterEach(() => {
    removeTempDir(dir);
  });

  describe('clusterInfo', () => {
    it('should report this peer, the shard count and every local shard as Active with 0 points', () => {
      expect(cluster.clusterInfo('auto')).toEqual({
        peerId: PEER_ID,
        shardCount: 3,
        remoteShards: [],
        shardTransfers: [],
        reshardingOperations: [],
        localShards: [
          { shardId: 0, state: 'Active', ...emptyShardStats() },
          { shardId: 1, state: 'Active', ...emptyShardStats() },
          { shardId: 2, state: 'Active', ...emptyShardStats() },
        ],
      });
    });

    it('should report a default collection with one shard 0', async () => {
      await collections.create({ name: 'one' });

      expect(cluster.clusterInfo('one')).toEqual({
        peerId: PEER_ID,
        shardCount: 1,
        remoteShards: [],
        shardTransfers: [],
        reshardingOperations: [],
        localShards: [{ shardId: 0, state: 'Active', ...emptyShardStats() }],
      });
    });

    it("should report each shard's live state from the stats provider", () => {
      const live = { ...emptyShardStats(), pointsCount: 5, appliedOpNum: 9, status: 'Yellow' as const };
      const reporting = new ClusterService(catalog, PEER_ID, {
        statsFor: (record) => ({ ...new EmptyCollectionStatsProvider().statsFor(record), shards: { 1: live } }),
      });

      const [first, second] = reporting.clusterInfo('auto').localShards;

      expect(first).toEqual({ shardId: 0, state: 'Active', ...emptyShardStats() });
      expect(second).toEqual({ shardId: 1, state: 'Active', ...live });
    });

    it('should sort local shards by id', async () => {
      await catalog.mutate((draft) => {
        draft.collections.get('auto')!.shards.reverse();
      });

      expect(cluster.clusterInfo('auto').localShards.map((shard) => shard.shardId)).toEqual([0, 1, 2]);
    });

    it('should report no shards for a fresh custom-sharded collection', () => {
      expect(cluster.clusterInfo('custom')).toEqual({
        peerId: PEER_ID,
        shardCount: 0,
        localShards: [],
        remoteShards: [],
        shardTransfers: [],
        reshardingOperations: [],
      });
    });

    it('should resolve an alias', async () => {
      await new AliasesService(catalog).update([{ createAlias: { collectionName: 'auto', aliasName: 'al' } }]);

      expect(cluster.clusterInfo('al').shardCount).toBe(3);
    });

    it('should answer NotFound for an unknown collection', () => {
      const error = domainErrorOf(() => cluster.clusterInfo('missing'));

      expect(error.kind).toBe(ErrorKind.NotFound);
      expect(error.message).toBe("Not found: Collection `missing` doesn't exist!");
    });
  });

  describe('listShardKeys', () => {
    it('should be empty for an auto-sharded collection', () => {
      expect(cluster.listShardKeys('auto')).toEqual([]);
    });

    it('should list created keys in creation order', async () => {
      await cluster.createShardKey('custom', { shardKey: { keyword: 'eu' } });
      await cluster.createShardKey('custom', { shardKey: { number: '7' } });

      expect(cluster.listShardKeys('custom')).toEqual([{ keyword: 'eu' }, { number: '7' }]);
    });
  });

  describe('createShardKey', () => {
    it('should answer FailedPrecondition on an auto-sharded collection', async () => {
      const error = await rejectionOf(cluster.createShardKey('auto', { shardKey: { keyword: 'k' } }));

      expect(error.kind).toBe(ErrorKind.FailedPrecondition);
      expect(catalog.require('auto').shards).toHaveLength(3);
    });

    it("should create the collection's shard_number shards by default", async () => {
      await expect(cluster.createShardKey('custom', { shardKey: { keyword: 'eu' } })).resolves.toBe(true);

      const record = catalog.require('custom');
      expect(record.shards).toEqual([
        { shardId: 0, state: 'Active', shardKey: { keyword: 'eu' } },
        { shardId: 1, state: 'Active', shardKey: { keyword: 'eu' } },
      ]);
      expect(record.shardKeys).toEqual([{ key: { keyword: 'eu' }, shardsNumber: 2, replicationFactor: 1 }]);
    });

    it('should create shards_number shards and continue ids across keys', async () => {
      await cluster.createShardKey('custom', { shardKey: { keyword: 'a' }, shardsNumber: 3 });
      await cluster.createShardKey('custom', { shardKey: { keyword: 'b' }, shardsNumber: 1, replicationFactor: 2 });

      const record = catalog.require('custom');
      expect(
        record.shards.map((shard) => [shard.shardId, 'keyword' in shard.shardKey! ? shard.shardKey.keyword : '']),
      ).toEqual([
        [0, 'a'],
        [1, 'a'],
        [2, 'a'],
        [3, 'b'],
      ]);
      expect(record.shardKeys[1]).toEqual({ key: { keyword: 'b' }, shardsNumber: 1, replicationFactor: 2 });
      expect(cluster.clusterInfo('custom').shardCount).toBe(4);
    });

    it('should not reuse shard ids after a key was deleted', async () => {
      await cluster.createShardKey('custom', { shardKey: { keyword: 'a' }, shardsNumber: 1 });
      await cluster.deleteShardKey('custom', { keyword: 'a' });

      await cluster.createShardKey('custom', { shardKey: { keyword: 'b' }, shardsNumber: 1 });

      expect(catalog.require('custom').shards.map((shard) => shard.shardId)).toEqual([1]);
    });

    it('should use the requested initial state', async () => {
      await cluster.createShardKey('custom', { shardKey: { keyword: 'a' }, shardsNumber: 1, initialState: 'Partial' });

      expect(cluster.clusterInfo('custom').localShards[0].state).toBe('Partial');
    });

    it('should answer AlreadyExists for a duplicate key and add no shards', async () => {
      await cluster.createShardKey('custom', { shardKey: { keyword: 'eu' } });

      const error = await rejectionOf(cluster.createShardKey('custom', { shardKey: { keyword: 'eu' } }));

      expect(error.kind).toBe(ErrorKind.AlreadyExists);
      expect(error.message).toContain('"eu"');
      expect(catalog.require('custom').shards).toHaveLength(2);
    });

    it('should treat number and keyword keys with the same text as distinct', async () => {
      await cluster.createShardKey('custom', { shardKey: { number: '1' }, shardsNumber: 1 });

      await expect(cluster.createShardKey('custom', { shardKey: { keyword: '1' }, shardsNumber: 1 })).resolves.toBe(
        true,
      );
      const error = await rejectionOf(cluster.createShardKey('custom', { shardKey: { number: '1' } }));

      expect(error.kind).toBe(ErrorKind.AlreadyExists);
      expect(cluster.listShardKeys('custom')).toEqual([{ number: '1' }, { keyword: '1' }]);
    });

    it('should keep u64 number keys exact', async () => {
      await cluster.createShardKey('custom', { shardKey: { number: '18446744073709551615' }, shardsNumber: 1 });

      const reopened = await openCatalog(dir);

      expect(new ClusterService(reopened, PEER_ID, new EmptyCollectionStatsProvider()).listShardKeys('custom')).toEqual(
        [{ number: '18446744073709551615' }],
      );
    });

    it('should accept a placement that includes this peer', async () => {
      await expect(
        cluster.createShardKey('custom', { shardKey: { keyword: 'a' }, placement: [PEER_ID] }),
      ).resolves.toBe(true);
    });

    it('should answer InvalidArgument for a placement without this peer', async () => {
      const error = await rejectionOf(
        cluster.createShardKey('custom', { shardKey: { keyword: 'a' }, placement: ['999'] }),
      );

      expect(error.kind).toBe(ErrorKind.InvalidArgument);
      expect(error.message).toContain('request.placement');
      expect(cluster.listShardKeys('custom')).toEqual([]);
    });

    it('should reject shards_number 0, replication_factor 0, an empty keyword and timeout 0 together', async () => {
      const error = await rejectionOf(
        cluster.createShardKey('custom', { shardKey: { keyword: '' }, shardsNumber: 0, replicationFactor: 0 }, 0),
      );

      expect(error.kind).toBe(ErrorKind.InvalidArgument);
      for (const field of [
        'timeout',
        'request.shards_number',
        'request.replication_factor',
        'request.shard_key.keyword',
      ]) {
        expect(error.message).toContain(`${field}: `);
      }
    });

    it('should answer NotFound for an unknown collection', async () => {
      expect((await rejectionOf(cluster.createShardKey('missing', { shardKey: { keyword: 'a' } }))).kind).toBe(
        ErrorKind.NotFound,
      );
    });

    it('should resolve an alias', async () => {
      await new AliasesService(catalog).update([{ createAlias: { collectionName: 'custom', aliasName: 'al' } }]);

      await cluster.createShardKey('al', { shardKey: { keyword: 'a' }, shardsNumber: 1 });

      expect(cluster.listShardKeys('custom')).toEqual([{ keyword: 'a' }]);
    });
  });

  describe('deleteShardKey', () => {
    it('should remove the key and only its shards', async () => {
      await cluster.createShardKey('custom', { shardKey: { keyword: 'a' }, shardsNumber: 2 });
      await cluster.createShardKey('custom', { shardKey: { keyword: 'b' }, shardsNumber: 1 });

      await expect(cluster.deleteShardKey('custom', { keyword: 'a' })).resolves.toBe(true);

      expect(cluster.listShardKeys('custom')).toEqual([{ keyword: 'b' }]);
      expect(catalog.require('custom').shards).toEqual([{ shardId: 2, state: 'Active', shardKey: { keyword: 'b' } }]);
    });

    it('should answer NotFound for an unknown key', async () => {
      await cluster.createShardKey('custom', { shardKey: { number: '1' } });

      const error = await rejectionOf(cluster.deleteShardKey('custom', { keyword: '1' }));

      expect(error.kind).toBe(ErrorKind.NotFound);
      expect(cluster.listShardKeys('custom')).toEqual([{ number: '1' }]);
    });

    it('should answer FailedPrecondition on an auto-sharded collection', async () => {
      expect((await rejectionOf(cluster.deleteShardKey('auto', { keyword: 'a' }))).kind).toBe(
        ErrorKind.FailedPrecondition,
      );
    });

    it('should answer NotFound for an unknown collection', async () => {
      expect((await rejectionOf(cluster.deleteShardKey('missing', { keyword: 'a' }))).kind).toBe(ErrorKind.NotFound);
    });

    it('should reject timeout 0', async () => {
      expect((await rejectionOf(cluster.deleteShardKey('custom', { keyword: 'a' }, 0))).kind).toBe(
        ErrorKind.InvalidArgument,
      );
    });
  });

  describe('updateClusterSetup', () => {
    it('should create and delete shard keys', async () => {
      await expect(
        cluster.updateClusterSetup('custom', { createShardKey: { shardKey: { keyword: 'a' }, shardsNumber: 1 } }),
      ).resolves.toBe(true);
      expect(cluster.listShardKeys('custom')).toEqual([{ keyword: 'a' }]);
      await expect(cluster.updateClusterSetup('custom', { deleteShardKey: { keyword: 'a' } })).resolves.toBe(true);
      expect(cluster.listShardKeys('custom')).toEqual([]);
    });

    it('should refuse a peer operation as standalone once its request is valid', async () => {
      const transfer = { shardId: 0, fromPeerId: '1', toPeerId: '2' };
      const error = await rejectionOf(cluster.updateClusterSetup('auto', { peerOperation: 'moveShard', transfer }));
      expect(error.kind).toBe(ErrorKind.Unimplemented);
    });

    it('should refuse a transfer of a shard to itself first, in Qdrant words, with timeout 0 too', async () => {
      const transfer = { shardId: 0, fromPeerId: '7', toPeerId: '7' };
      const error = await rejectionOf(
        cluster.updateClusterSetup('auto', { peerOperation: 'replicateShard', transfer }, 0),
      );
      expect(error.kind).toBe(ErrorKind.InvalidArgument);
      expect(error.validationIssues).toEqual([
        'timeout: value 0 invalid, must be 1 or larger',
        'replicate_shard.to_peer_id: cannot transfer shard to itself, "to_peer_id" must be different than 7 in "from_peer_id"',
      ]);
    });

    it('should allow the same peer when the target shard differs', async () => {
      const transfer = { shardId: 0, fromPeerId: '7', toPeerId: '7', toShardId: 1 };
      const error = await rejectionOf(cluster.updateClusterSetup('auto', { peerOperation: 'abortTransfer', transfer }));
      expect(error.kind).toBe(ErrorKind.Unimplemented);
    });
  });

  describe('rejectPeerOperation', () => {
    it.each([
      'moveShard',
      'replicateShard',
      'abortTransfer',
      'dropReplica',
      'restartTransfer',
      'replicatePoints',
    ] as const)('should answer Unimplemented for %s, saying the node runs standalone', (operation) => {
      const error = domainErrorOf(() => cluster.rejectPeerOperation(operation));

      expect(error.kind).toBe(ErrorKind.Unimplemented);
      expect(error.message).toContain('running in standalone mode');
      expect(error.message).toContain(operation);
    });
  });
});

describe(`${ClusterService.name} in cluster mode`, () => {
  let dir: string;
  let catalog: CollectionCatalog;
  let collections: CollectionsService;
  let cluster: ClusterService;
  const retired: string[] = [];
  // Two live peers: this one and 777; shards alternate between them.
  const membership: ClusterMembership = {
    status: () => ({ peerId: PEER_ID, peers: [], fenced: false, sendFailures: {} }),
    livePeerCount: () => 2,
    placeShards: (count) => Array.from({ length: count }, (_, i) => [i % 2 === 0 ? PEER_ID : '777']),
    retirePeer: async (peerId) => void retired.push(peerId),
    peerStanding: async (peerId) =>
      ['777', PEER_ID].includes(peerId) ? 'live' : peerId === '666' ? 'gone' : 'unknown',
  };

  beforeEach(async () => {
    retired.length = 0;
    ({ dir, catalog } = await collectionsFixture('vs-cluster-mode-'));
    collections = new CollectionsService(catalog, new EmptyCollectionStatsProvider(), membership);
    cluster = new ClusterService(catalog, PEER_ID, new EmptyCollectionStatsProvider(), membership);
    await collections.create({ name: 'spread' });
  });

  afterEach(() => {
    removeTempDir(dir);
  });

  it('should give a new collection one shard per live peer, placed by the membership', () => {
    const info = cluster.clusterInfo('spread');

    expect(info.shardCount).toBe(2);
    expect(info.localShards.map((shard) => shard.shardId)).toEqual([0]);
    expect(info.remoteShards).toEqual([{ shardId: 1, state: 'Active', peerId: '777' }]);
  });

  it('should refuse to remove a peer that holds shards without force, as Qdrant', async () => {
    const error = await rejectionOf(cluster.removePeer('777', false));

    expect(error.kind).toBe(ErrorKind.InvalidArgument);
    expect(error.message).toBe('Cannot remove peer 777 as there are shards on it');
    expect(retired).toEqual([]);
  });

  it('should remove it with force and mark its shards Dead', async () => {
    await cluster.removePeer('777', true);

    expect(retired).toEqual(['777']);
    expect(cluster.clusterInfo('spread').remoteShards).toEqual([{ shardId: 1, state: 'Dead', peerId: '777' }]);
  });

  it('should start, show and abort an operator move, naming cluster mode in refusals', async () => {
    await cluster.updateClusterSetup('spread', {
      peerOperation: 'moveShard',
      transfer: { shardId: 1, fromPeerId: '777', toPeerId: PEER_ID },
    });
    expect(cluster.clusterInfo('spread').shardTransfers).toEqual([
      { shardId: 1, from: '777', to: PEER_ID, sync: false, method: 'StreamRecords' },
    ]);
    expect(cluster.clusterInfo('spread').localShards.map((s) => `${s.shardId}:${s.state}`)).toEqual([
      '0:Active',
      '1:Partial',
    ]);
    await cluster.updateClusterSetup('spread', {
      peerOperation: 'abortTransfer',
      transfer: { shardId: 1, fromPeerId: '777', toPeerId: PEER_ID },
    });
    expect(cluster.clusterInfo('spread').shardTransfers).toEqual([]);
    expect(cluster.clusterInfo('spread').localShards.map((s) => s.shardId)).toEqual([0]);

    const restart = await rejectionOf(
      cluster.updateClusterSetup('spread', {
        peerOperation: 'restartTransfer',
        transfer: { shardId: 1, fromPeerId: '777', toPeerId: PEER_ID, method: 'Snapshot' },
      }),
    );
    expect(restart.kind).toBe(ErrorKind.NotFound);
    const recover = domainErrorOf(() => cluster.recoverRaftState());
    expect(recover.message).toContain('Cluster mode');
    expect(recover.message).not.toContain('standalone');
  });

  it('should refuse a transfer from a peer that never joined', async () => {
    const error = await rejectionOf(
      cluster.updateClusterSetup('spread', {
        peerOperation: 'replicateShard',
        transfer: { shardId: 0, fromPeerId: PEER_ID, toPeerId: '999' },
      }),
    );
    expect(error.message).toBe('Bad request: Peer 999 does not exist');
  });

  it('should remove a peer without shards and refuse to remove itself', async () => {
    await cluster.removePeer('888', false);
    const self = await rejectionOf(cluster.removePeer(PEER_ID, true));

    expect(retired).toEqual(['888']);
    expect(self.kind).toBe(ErrorKind.InvalidArgument);
  });
});
