import { Logger } from '@nestjs/common';
import { ClusterKeys } from './cluster-keys';
import { LeaderElection } from './leader-election';
import { MemoryMetadataStore } from './testing/memory-metadata-store';
import { until } from './testing/spec-helpers';

const keys = new ClusterKeys('test');

describe(LeaderElection.name, () => {
  beforeEach(() => {
    // Quiet the expected warnings (failed renewals, lost campaigns, failed listeners).
    for (const level of ['log', 'warn', 'error'] as const)
      jest.spyOn(Logger.prototype, level).mockImplementation(() => undefined);
  });

  afterEach(() => jest.restoreAllMocks());

  let store: MemoryMetadataStore;
  const opened: LeaderElection[] = [];

  /** A candidate on its own lease, with no campaign jitter. */
  async function candidate(peerId: string): Promise<{ election: LeaderElection; leaseId: string }> {
    const { id: leaseId } = await store.grantLease(10);
    const election = new LeaderElection(store, keys, { peerId, incarnation: `inc-${peerId}` }, () => leaseId, 0);
    opened.push(election);
    return { election, leaseId };
  }

  beforeEach(() => {
    store = new MemoryMetadataStore();
  });

  afterEach(async () => {
    for (const election of opened.splice(0)) await election.close();
  });

  describe('start', () => {
    it('should make the only candidate the leader', async () => {
      const { election, leaseId } = await candidate('1');

      await election.start();

      expect(election.isLeader).toBe(true);
      expect(election.leader).toEqual({ peerId: '1', incarnation: 'inc-1' });
      expect((await store.get(keys.leader))?.lease).toBe(leaseId);
    });

    it('should elect exactly one of two candidates, on whom both agree', async () => {
      const a = await candidate('1');
      const b = await candidate('2');

      await Promise.all([a.election.start(), b.election.start()]);

      expect([a.election.isLeader, b.election.isLeader].filter(Boolean)).toHaveLength(1);
      expect(a.election.leader).toEqual(b.election.leader);
      expect(a.election.leader).toBeDefined();
    });

    it('should not take over a leader of the same peer id with another incarnation', async () => {
      const a = await candidate('1');
      await a.election.start();
      const { id: leaseId } = await store.grantLease(10);
      const restarted = new LeaderElection(store, keys, { peerId: '1', incarnation: 'other' }, () => leaseId, 0);
      opened.push(restarted);

      await restarted.start();

      expect(restarted.isLeader).toBe(false);
      expect(restarted.leader).toEqual({ peerId: '1', incarnation: 'inc-1' });
      expect(restarted.leaderGuard).toBeUndefined();
    });
  });

  describe('failover', () => {
    it("should elect the other candidate when the leader's lease expires", async () => {
      const a = await candidate('1');
      const b = await candidate('2');
      await a.election.start();
      await b.election.start();

      store.expireLease(a.leaseId);
      await until(() => b.election.isLeader, 'peer 2 leading');
      await until(() => a.election.leader?.peerId === '2', 'peer 1 seeing peer 2 lead');

      expect(a.election.isLeader).toBe(false);
      expect(b.election.leader).toEqual({ peerId: '2', incarnation: 'inc-2' });
      expect((await store.get(keys.leader))?.lease).toBe(b.leaseId);
    });
  });

  describe('leaderGuard', () => {
    it('should be absent on a follower', async () => {
      const a = await candidate('1');
      const b = await candidate('2');
      await a.election.start();
      await b.election.start();

      expect(a.election.leaderGuard).toEqual({
        key: keys.leader,
        createRevision: (await store.get(keys.leader))?.createRevision,
      });
      expect(b.election.leaderGuard).toBeUndefined();
    });

    it('should let a txn through while the leadership holds', async () => {
      const a = await candidate('1');
      await a.election.start();
      const guard = a.election.leaderGuard;

      const result = await store.txn(guard ? [guard] : [], [{ put: `${keys.root}duty`, value: 'x' }]);

      expect(guard).toBeDefined();
      expect(result.succeeded).toBe(true);
    });

    it('should fail a txn guarded by it after the leadership was lost', async () => {
      const a = await candidate('1');
      const b = await candidate('2');
      await a.election.start();
      await b.election.start();
      const staleGuard = a.election.leaderGuard;

      store.expireLease(a.leaseId);
      await until(() => b.election.isLeader, 'peer 2 leading');
      const result = await store.txn(staleGuard ? [staleGuard] : [], [{ put: `${keys.root}duty`, value: 'late' }]);

      expect(staleGuard).toBeDefined();
      expect(result.succeeded).toBe(false);
      expect(await store.get(`${keys.root}duty`)).toBeUndefined();
      expect(a.election.leaderGuard).toBeUndefined();
    });
  });

  describe('resign', () => {
    it('should delete the key and let the other candidate lead', async () => {
      const a = await candidate('1');
      const b = await candidate('2');
      await a.election.start();
      await b.election.start();

      await a.election.resign();
      await a.election.close();
      await until(() => b.election.isLeader, 'peer 2 leading');

      expect((await store.get(keys.leader))?.lease).toBe(b.leaseId);
    });

    it('should not delete the key when this peer does not lead', async () => {
      const a = await candidate('1');
      const b = await candidate('2');
      await a.election.start();
      await b.election.start();
      const before = await store.get(keys.leader);

      await b.election.resign();

      expect(await store.get(keys.leader)).toEqual(before);
      expect(a.election.isLeader).toBe(true);
    });
  });

  describe('campaign', () => {
    it('should take the leadership again on a new lease after the old one expired', async () => {
      let leaseId = (await store.grantLease(10)).id;
      const election = new LeaderElection(store, keys, { peerId: '1', incarnation: 'i' }, () => leaseId, 0);
      opened.push(election);
      await election.start();
      const expired = leaseId;
      leaseId = (await store.grantLease(10)).id;
      store.expireLease(expired);

      await election.campaign();
      await until(() => election.isLeader, 'peer 1 leading again');

      expect((await store.get(keys.leader))?.lease).toBe(leaseId);
    });
  });
});
