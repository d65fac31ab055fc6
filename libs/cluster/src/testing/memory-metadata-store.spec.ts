import { DomainError, ErrorKind } from '@vectorstore/common';
import { WatchEvent } from '../metadata/metadata-store';
import { MemoryMetadataStore } from './memory-metadata-store';

/** Lets queued watch deliveries (microtasks) run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe(MemoryMetadataStore.name, () => {
  let store: MemoryMetadataStore;

  beforeEach(() => {
    store = new MemoryMetadataStore();
  });

  describe('txn', () => {
    it('should apply the writes with one new revision for all of them', async () => {
      const { revision: before } = await store.range('');

      const result = await store.txn(
        [],
        [
          { put: 'a', value: '1' },
          { put: 'b', value: '2' },
        ],
      );

      expect(result).toEqual({ succeeded: true, revision: before + 1 });
      expect((await store.get('a'))?.modRevision).toBe(before + 1);
      expect((await store.get('b'))?.modRevision).toBe(before + 1);
    });

    it('should keep the create revision and move the mod revision on update', async () => {
      const { revision: created } = await store.txn([], [{ put: 'a', value: '1' }]);

      const { revision: updated } = await store.txn([], [{ put: 'a', value: '2' }]);

      expect(await store.get('a')).toEqual({ key: 'a', value: '2', createRevision: created, modRevision: updated });
    });

    it('should check absent, mod revision and create revision guards', async () => {
      const { revision } = await store.txn([], [{ put: 'a', value: '1' }]);

      expect((await store.txn([{ key: 'a', absent: true }], [{ put: 'x', value: '' }])).succeeded).toBe(false);
      expect((await store.txn([{ key: 'b', absent: true }], [{ put: 'x', value: '' }])).succeeded).toBe(true);
      expect((await store.txn([{ key: 'a', modRevision: revision - 1 }], [])).succeeded).toBe(false);
      expect((await store.txn([{ key: 'a', modRevision: revision }], [])).succeeded).toBe(true);
      expect((await store.txn([{ key: 'a', createRevision: revision }], [])).succeeded).toBe(true);
      expect((await store.txn([{ key: 'a', createRevision: revision + 1 }], [])).succeeded).toBe(false);
    });

    it('should apply nothing and report the current revision when a guard fails', async () => {
      await store.txn([], [{ put: 'a', value: '1' }]);
      const { revision } = await store.range('');

      const result = await store.txn([{ key: 'a', absent: true }], [{ put: 'a', value: '2' }]);

      expect(result).toEqual({ succeeded: false, revision });
      expect((await store.get('a'))?.value).toBe('1');
    });

    it('should refuse a put on a lease that does not exist', async () => {
      await expect(store.txn([], [{ put: 'a', value: '1', lease: '42' }])).rejects.toThrow('lease 42 not found');
      expect(await store.get('a')).toBeUndefined();
    });

    it('should start a new create revision after a delete', async () => {
      await store.txn([], [{ put: 'a', value: '1' }]);
      await store.txn([], [{ delete: 'a' }]);

      const { revision } = await store.txn([], [{ put: 'a', value: '2' }]);

      expect((await store.get('a'))?.createRevision).toBe(revision);
    });
  });

  describe('range', () => {
    it('should return the keys under the prefix in key order, as copies', async () => {
      await store.txn(
        [],
        [
          { put: 'p/b', value: '2' },
          { put: 'p/a', value: '1' },
          { put: 'q/a', value: '3' },
        ],
      );

      const { keys } = await store.range('p/');
      keys[0].value = 'changed';

      expect(keys.map((k) => k.key)).toEqual(['p/a', 'p/b']);
      expect((await store.get('p/a'))?.value).toBe('1');
    });
  });

  describe('watch', () => {
    it('should deliver the changes under its prefix, from the given revision on', async () => {
      const { revision: first } = await store.txn([], [{ put: 'p/a', value: '1' }]);
      const seen: WatchEvent[] = [];
      await store.watch('p/', first + 1, { onEvents: (events) => void seen.push(...events), onLost: jest.fn() });

      await store.txn([], [{ put: 'q/x', value: '' }]);
      const { revision: second } = await store.txn([], [{ delete: 'p/a' }]);
      await settle();

      expect(seen).toEqual([{ type: 'delete', key: 'p/a', value: '', modRevision: second }]);
    });

    it('should replay past changes from an older revision', async () => {
      const { revision } = await store.txn([], [{ put: 'p/a', value: '1' }]);
      const seen: WatchEvent[] = [];

      await store.watch('p/', revision, { onEvents: (events) => void seen.push(...events), onLost: jest.fn() });
      await settle();

      expect(seen).toEqual([{ type: 'put', key: 'p/a', value: '1', modRevision: revision }]);
    });

    it('should stop delivering once cancelled', async () => {
      const onEvents = jest.fn();
      const watch = await store.watch('p/', 1, { onEvents, onLost: jest.fn() });

      await watch.cancel();
      await store.txn([], [{ put: 'p/a', value: '1' }]);
      await settle();

      expect(onEvents).not.toHaveBeenCalled();
    });
  });

  describe('leases', () => {
    it('should delete the keys of an expired lease and tell the watchers', async () => {
      const { id } = await store.grantLease(5);
      await store.txn(
        [],
        [
          { put: 'p/a', value: '1', lease: id },
          { put: 'p/b', value: '2' },
        ],
      );
      const seen: WatchEvent[] = [];
      await store.watch('p/', (await store.range('')).revision + 1, {
        onEvents: (events) => void seen.push(...events),
        onLost: jest.fn(),
      });

      store.expireLease(id);
      await settle();

      expect(await store.keepAlive(id)).toBe(0);
      expect((await store.range('p/')).keys.map((k) => k.key)).toEqual(['p/b']);
      expect(seen.map((e) => [e.type, e.key])).toEqual([['delete', 'p/a']]);
    });

    it('should renew a live lease with its TTL', async () => {
      const { id, ttlSeconds } = await store.grantLease(7);

      expect(ttlSeconds).toBe(7);
      expect(await store.keepAlive(id)).toBe(7);
    });

    it('should end a lease on revoke', async () => {
      const { id } = await store.grantLease(7);
      await store.txn([], [{ put: 'a', value: '1', lease: id }]);

      await store.revokeLease(id);

      expect(await store.get('a')).toBeUndefined();
    });
  });

  describe('down', () => {
    it('should fail every call with Unavailable and apply nothing', async () => {
      store.down = true;

      const errors = await Promise.all(
        [store.txn([], [{ put: 'a', value: '1' }]), store.range(''), store.get('a'), store.grantLease(1)].map((call) =>
          call.then(
            () => undefined,
            (error: unknown) => error,
          ),
        ),
      );
      store.down = false;

      for (const error of errors) {
        expect(error).toBeInstanceOf(DomainError);
        expect((error as DomainError).kind).toBe(ErrorKind.Unavailable);
      }
      expect(await store.get('a')).toBeUndefined();
    });
  });
});
