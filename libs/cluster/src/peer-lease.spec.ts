import { Logger } from '@nestjs/common';
import { DomainError, ErrorKind } from '@vectorstore/common';
import { PeerLease } from './peer-lease';
import { MemoryMetadataStore } from './testing/memory-metadata-store';

function domainErrorOf(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}

describe(PeerLease.name, () => {
  beforeEach(() => {
    // Quiet the expected warnings (failed renewals, lost campaigns, failed listeners).
    for (const level of ['log', 'warn', 'error'] as const)
      jest.spyOn(Logger.prototype, level).mockImplementation(() => undefined);
  });

  afterEach(() => jest.restoreAllMocks());

  let store: MemoryMetadataStore;
  let now: number;
  let lease: PeerLease;
  const clock = () => now;

  beforeEach(() => {
    // The renewal loop's timers never fire on their own: tests call renew() themselves.
    jest.useFakeTimers();
    store = new MemoryMetadataStore();
    now = 1_000_000;
    // TTL 10 s: deadline = send time + 10 s - max(0.5 s, 2 s) = send time + 8 s.
    lease = new PeerLease(store, 10, clock);
  });

  afterEach(async () => {
    await lease.stop(false);
    jest.useRealTimers();
  });

  describe('assertValid', () => {
    it('should throw "not joined yet" before start', () => {
      const error = domainErrorOf(() => lease.assertValid());

      expect(error.kind).toBe(ErrorKind.Unavailable);
      expect(error.message).toContain('has not joined the cluster yet');
    });

    it('should pass right after start', async () => {
      await lease.start();

      expect(() => lease.assertValid()).not.toThrow();
      expect(lease.fenced).toBe(false);
    });

    it('should throw Unavailable mentioning the lease once fenced', async () => {
      await lease.start();
      now += 8_000;

      const error = domainErrorOf(() => lease.assertValid());

      expect(error.kind).toBe(ErrorKind.Unavailable);
      expect(error.message).toMatch(/lease expired/);
    });
  });

  describe('start', () => {
    it('should return the granted lease id', async () => {
      const id = await lease.start();

      expect(id).toBe(lease.id);
      expect(await store.keepAlive(id)).toBe(10);
    });

    it('should fail and stay unjoined when the store is down', async () => {
      store.down = true;

      await expect(lease.start()).rejects.toBeInstanceOf(DomainError);
      expect(() => lease.id).toThrow('not granted yet');
    });
  });

  describe('fenced', () => {
    it('should be true before start', () => {
      expect(lease.fenced).toBe(true);
      expect(lease.remainingMs).toBe(0);
    });

    it('should turn true at the local deadline (TTL minus the margin after the grant was sent)', async () => {
      await lease.start();

      now += 7_999;
      const justBefore = lease.fenced;
      now += 1;

      expect(justBefore).toBe(false);
      expect(lease.fenced).toBe(true);
    });

    it('should count the deadline from when the request was sent, not answered', async () => {
      const grantLease = store.grantLease.bind(store);
      jest.spyOn(store, 'grantLease').mockImplementation(async (ttl) => {
        now += 3_000; // a slow answer
        return grantLease(ttl);
      });

      await lease.start();

      expect(lease.remainingMs).toBe(5_000);
    });

    it('should use a margin of at least 500 ms for short leases', async () => {
      lease = new PeerLease(store, 1, clock);
      await lease.start();

      expect(lease.remainingMs).toBe(500);
    });

    it('should become fenced after the deadline when renewals fail', async () => {
      await lease.start();
      store.down = true;

      for (let i = 0; i < 3; i++) {
        now += 3_000;
        await lease.renew();
      }

      expect(lease.fenced).toBe(true);
      expect(lease.remainingMs).toBe(0);
    });
  });

  describe('renew', () => {
    it('should push the deadline forward', async () => {
      await lease.start();
      now += 5_000;

      await lease.renew();
      now += 7_000;

      expect(lease.fenced).toBe(false);
      expect(lease.remainingMs).toBe(1_000);
    });

    it('should lift the fence once a renewal is answered again', async () => {
      await lease.start();
      store.down = true;
      now += 9_000;
      await lease.renew();
      const fencedWhileDown = lease.fenced;
      store.down = false;

      await lease.renew();

      expect(fencedWhileDown).toBe(true);
      expect(lease.fenced).toBe(false);
      expect(() => lease.assertValid()).not.toThrow();
    });

    it('should never move the deadline back', async () => {
      await lease.start();
      const remaining = lease.remainingMs;
      jest.spyOn(store, 'keepAlive').mockResolvedValue(1);

      await lease.renew();

      expect(lease.remainingMs).toBe(remaining);
    });

    it('should re-grant a lease the store expired and report the new id', async () => {
      const first = await lease.start();
      const regranted: string[] = [];
      lease.onRegranted = async (id) => void regranted.push(id);
      store.expireLease(first);
      now += 9_000;

      await lease.renew();

      expect(lease.id).not.toBe(first);
      expect(regranted).toEqual([lease.id]);
      expect(lease.fenced).toBe(false);
      expect(await store.keepAlive(lease.id)).toBe(10);
    });

    it('should keep the new lease when onRegranted fails', async () => {
      const first = await lease.start();
      lease.onRegranted = async () => {
        throw new Error('register failed');
      };
      store.expireLease(first);

      await expect(lease.renew()).resolves.toBeUndefined();
      expect(lease.id).not.toBe(first);
    });

    it('should run one renewal at a time', async () => {
      await lease.start();
      const keepAlive = jest.spyOn(store, 'keepAlive');

      await Promise.all([lease.renew(), lease.renew(), lease.renew()]);

      expect(keepAlive).toHaveBeenCalledTimes(1);
    });

    it('should renew on its own every TTL/3', async () => {
      await lease.start();
      const keepAlive = jest.spyOn(store, 'keepAlive');

      await jest.advanceTimersByTimeAsync(3_334);
      await jest.advanceTimersByTimeAsync(3_334);

      expect(keepAlive).toHaveBeenCalledTimes(2);
    });
  });

  describe('stop', () => {
    it('should revoke the lease when asked', async () => {
      const id = await lease.start();

      await lease.stop(true);

      expect(await store.keepAlive(id)).toBe(0);
    });

    it('should keep the lease when not asked to revoke', async () => {
      const id = await lease.start();

      await lease.stop(false);

      expect(await store.keepAlive(id)).toBe(10);
    });

    it('should leave the peer fenced, even when a renewal in flight is answered', async () => {
      await lease.start();
      const renewal = lease.renew();

      await lease.stop(false);
      await renewal;

      expect(lease.fenced).toBe(true);
      expect(() => lease.assertValid()).toThrow(/lease expired/);
    });

    it('should stop the renewal loop', async () => {
      await lease.start();
      const keepAlive = jest.spyOn(store, 'keepAlive');

      await lease.stop(false);
      await jest.advanceTimersByTimeAsync(20_000);

      expect(keepAlive).not.toHaveBeenCalled();
    });
  });
});
