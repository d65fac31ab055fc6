import { Logger } from '@nestjs/common';
import { ErrorKind } from '@vectorstore/common';
import { ClusterKeys } from './cluster-keys';
import { PeerInfo, PeerRegistry } from './peer-registry';
import { MemoryMetadataStore } from './testing/memory-metadata-store';
import { until, rejectionOf } from './testing/spec-helpers';

const keys = new ClusterKeys('test');

function info(peerId: string, incarnation = `inc-${peerId}`): PeerInfo {
  return {
    peerId,
    incarnation,
    p2pUri: `http://10.0.0.${peerId}:6335`,
    httpUri: `http://10.0.0.${peerId}:6333`,
    grpcUri: `http://10.0.0.${peerId}:6334`,
    version: '1.0.0',
    startedAt: '2024-01-01T00:00:00.000Z',
  };
}

describe(PeerRegistry.name, () => {
  beforeEach(() => {
    // Quiet the expected warnings (failed renewals, lost campaigns, failed listeners).
    for (const level of ['log', 'warn', 'error'] as const)
      jest.spyOn(Logger.prototype, level).mockImplementation(() => undefined);
  });

  afterEach(() => jest.restoreAllMocks());

  let store: MemoryMetadataStore;
  const opened: PeerRegistry[] = [];

  /** A registry for `peerId`, registered on a fresh lease and following the peers. */
  async function joined(peerId: string, incarnation?: string): Promise<{ registry: PeerRegistry; leaseId: string }> {
    const registry = new PeerRegistry(store, keys, info(peerId, incarnation));
    opened.push(registry);
    const { id: leaseId } = await store.grantLease(10);
    await registry.register(leaseId);
    await registry.follow();
    return { registry, leaseId };
  }

  beforeEach(() => {
    store = new MemoryMetadataStore();
  });

  afterEach(async () => {
    for (const registry of opened.splice(0)) await registry.close();
  });

  describe('register', () => {
    it('should list this peer once registered and followed', async () => {
      const { registry } = await joined('1');

      expect([...registry.peers.keys()]).toEqual(['1']);
      expect(registry.peers.get('1')).toEqual(info('1'));
    });

    it('should put the peer key on the lease and record the member without one', async () => {
      const { leaseId } = await joined('1');

      const peer = await store.get(keys.peer('1'));
      const member = await store.get(keys.member('1'));

      expect(peer?.lease).toBe(leaseId);
      expect(JSON.parse(peer?.value ?? '{}')).toEqual(info('1'));
      expect(member?.lease).toBeUndefined();
      expect(JSON.parse(member?.value ?? '{}')).toMatchObject({
        p2pUri: 'http://10.0.0.1:6335',
        httpUri: 'http://10.0.0.1:6333',
        grpcUri: 'http://10.0.0.1:6334',
      });
    });

    it('should keep the first member record when the peer joins again', async () => {
      await joined('1');
      const member = await store.get(keys.member('1'));

      await joined('1', 'second-run');

      expect((await store.get(keys.member('1')))?.modRevision).toBe(member?.modRevision);
    });

    it('should refuse a peer that was removed from the cluster', async () => {
      await store.txn([], [{ put: keys.member('1'), value: JSON.stringify({ removed: true }) }]);
      const registry = new PeerRegistry(store, keys, info('1'));
      const { id } = await store.grantLease(10);

      const error = await rejectionOf(registry.register(id));

      expect(error.kind).toBe(ErrorKind.FailedPrecondition);
      expect(error.message).toContain('peer 1 was removed');
      expect(await store.get(keys.peer('1'))).toBeUndefined();
    });

    it("should replace a key left by this peer's previous process and revoke its lease", async () => {
      const { id: oldLease } = await store.grantLease(10);
      await store.txn([], [{ put: keys.peer('1'), value: JSON.stringify(info('1', 'old')), lease: oldLease }]);
      const registry = new PeerRegistry(store, keys, info('1', 'new'));
      opened.push(registry);
      const { id: newLease } = await store.grantLease(10);

      await registry.register(newLease);

      const peer = await store.get(keys.peer('1'));
      expect(peer?.lease).toBe(newLease);
      expect(JSON.parse(peer?.value ?? '{}')).toMatchObject({ incarnation: 'new' });
      expect(await store.keepAlive(oldLease)).toBe(0);
    });

    it('should refuse to take over a peer id registered by a live peer at other addresses', async () => {
      const { id: otherLease } = await store.grantLease(10);
      const elsewhere = { ...info('1', 'other'), p2pUri: 'http://10.9.9.9:6335', httpUri: 'http://10.9.9.9:6333' };
      await store.txn([], [{ put: keys.peer('1'), value: JSON.stringify(elsewhere), lease: otherLease }]);
      const registry = new PeerRegistry(store, keys, info('1', 'new'));
      opened.push(registry);
      const { id } = await store.grantLease(10);

      const error = await rejectionOf(registry.register(id));

      expect(error.kind).toBe(ErrorKind.FailedPrecondition);
      expect(error.message).toContain('already registered by a live peer at http://10.9.9.9:6335');
      expect(await store.keepAlive(otherLease)).toBe(10);
    });

    it('should retire another peer: its lease ends, it leaves the live peers and can never register again', async () => {
      const one = await joined('1');
      const two = await joined('2');
      await until(() => one.registry.peers.has('2'), 'peer 2 seen by 1');

      await one.registry.retire('2');

      await until(() => !one.registry.peers.has('2'), 'peer 2 gone');
      expect(await store.keepAlive(two.leaseId)).toBe(0);
      const { id } = await store.grantLease(10);
      const again = await rejectionOf(two.registry.register(id));
      expect(again.kind).toBe(ErrorKind.FailedPrecondition);
      expect(again.message).toContain('was removed');
    });

    it('should answer NotFound when retiring a peer that never joined', async () => {
      const { registry } = await joined('1');

      const error = await rejectionOf(registry.retire('9'));

      expect(error.kind).toBe(ErrorKind.NotFound);
    });

    it('should succeed again on the lease it is already registered on', async () => {
      const { registry, leaseId } = await joined('1');
      const before = await store.get(keys.peer('1'));

      await registry.register(leaseId);

      expect((await store.get(keys.peer('1')))?.modRevision).toBe(before?.modRevision);
      expect(await store.keepAlive(leaseId)).toBe(10);
    });

    it('should fail with Unavailable when the store is down', async () => {
      const registry = new PeerRegistry(store, keys, info('1'));
      store.down = true;

      const error = await rejectionOf(registry.register('1'));

      expect(error.kind).toBe(ErrorKind.Unavailable);
    });
  });

  describe('follow', () => {
    it('should see a peer that joined earlier and one that joins later', async () => {
      const first = await joined('1');
      const second = await joined('2');

      await until(() => first.registry.peers.size === 2, 'peer 2 on peer 1');

      expect([...second.registry.peers.keys()].sort()).toEqual(['1', '2']);
      expect(first.registry.peers.get('2')).toEqual(info('2'));
    });

    it("should drop a peer whose lease expired from the others' view", async () => {
      const first = await joined('1');
      const second = await joined('2');
      await until(() => first.registry.peers.size === 2, 'peer 2 on peer 1');

      store.expireLease(second.leaseId);
      await until(() => !first.registry.peers.has('2'), 'peer 2 gone on peer 1');

      expect([...first.registry.peers.keys()]).toEqual(['1']);
      expect(await store.get(keys.member('2'))).toBeDefined();
    });

    it('should see a restarted peer with its new incarnation', async () => {
      const first = await joined('1');
      await joined('2', 'old');
      await until(() => first.registry.peers.get('2')?.incarnation === 'old', 'peer 2 on peer 1');

      await joined('2', 'new');
      await until(() => first.registry.peers.get('2')?.incarnation === 'new', 'restarted peer 2 on peer 1');

      expect([...first.registry.peers.keys()].sort()).toEqual(['1', '2']);
    });
  });

  describe('close', () => {
    it('should stop following the peers', async () => {
      const first = await joined('1');
      await first.registry.close();

      await joined('2');
      await new Promise((resolve) => setTimeout(resolve, 20));

      expect([...first.registry.peers.keys()]).toEqual(['1']);
    });
  });
});
