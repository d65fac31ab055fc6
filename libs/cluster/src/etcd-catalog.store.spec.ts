import { Logger } from '@nestjs/common';
import { DomainError, ErrorKind, JsonObject } from '@vectorstore/common';
import { CatalogState, CollectionCatalog, CollectionRecord, emptyCatalog } from '@vectorstore/collections';
import { ClusterKeys } from './cluster-keys';
import { EtcdCatalogStore } from './etcd-catalog.store';
import { MetadataStore } from './metadata/metadata-store';
import { MemoryMetadataStore } from './testing/memory-metadata-store';
import { until, rejectionOf } from './testing/spec-helpers';

const keys = new ClusterKeys('test');

/** A minimal collection record; `metadata` goes into its config as user data. */
function record(name: string, metadata: JsonObject = {}): CollectionRecord {
  return {
    id: `id-${name}`,
    name,
    createdAt: '2024-01-01T00:00:00.000Z',
    config: {
      params: {
        shardNumber: 1,
        onDiskPayload: true,
        vectors: { paramsMap: {} },
        replicationFactor: 1,
        writeConsistencyFactor: 1,
      },
      hnswConfig: {},
      optimizerConfig: {},
      walConfig: {},
      metadata,
    },
    shards: [{ shardId: 0, state: 'Active' }],
    shardKeys: [],
    nextShardId: 1,
  } as unknown as CollectionRecord;
}

/** The change the collections service makes: refuses a name that exists. */
function create(name: string, calls?: { count: number }): (draft: CatalogState) => void {
  return (draft) => {
    if (calls) calls.count++;
    if (draft.collections.has(name)) throw DomainError.alreadyExists(`Collection \`${name}\` already exists!`);
    draft.collections.set(name, record(name));
  };
}

/** etcd's default `--max-txn-ops`: a txn with more compares or operations fails, and nothing is applied. */
class EtcdLimitedStore extends MemoryMetadataStore {
  override async txn(...args: Parameters<MemoryMetadataStore['txn']>): ReturnType<MemoryMetadataStore['txn']> {
    const [guards, writes] = args;
    if (guards.length > 128 || writes.length > 128)
      throw DomainError.unavailable(
        'cluster metadata store (etcd) is unreachable: etcdserver: too many operations in txn request; nothing was applied',
      );
    return super.txn(guards, writes);
  }
}

const names = (state: Readonly<CatalogState>): string[] => [...state.collections.keys()].sort();

/** `shared` as one peer sees it when its watch delivers every change `lagMs` late (an etcd watch under load). */
function withLaggingWatch(shared: MemoryMetadataStore, lagMs: number): MetadataStore {
  return {
    range: (prefix) => shared.range(prefix),
    get: (key) => shared.get(key),
    txn: (guards, writes) => shared.txn(guards, writes),
    watch: (prefix, fromRevision, handlers) =>
      shared.watch(prefix, fromRevision, {
        onEvents: (events, revision) => void setTimeout(() => handlers.onEvents(events, revision), lagMs),
        onLost: (error) => handlers.onLost(error),
      }),
    grantLease: (ttlSeconds) => shared.grantLease(ttlSeconds),
    keepAlive: (id) => shared.keepAlive(id),
    revokeLease: (id) => shared.revokeLease(id),
    close: () => shared.close(),
  };
}

describe(EtcdCatalogStore.name, () => {
  beforeEach(() => {
    // Quiet the expected warnings (failed renewals, lost campaigns, failed listeners).
    for (const level of ['log', 'warn', 'error'] as const)
      jest.spyOn(Logger.prototype, level).mockImplementation(() => undefined);
  });

  afterEach(() => jest.restoreAllMocks());

  let store: MemoryMetadataStore;
  const opened: EtcdCatalogStore[] = [];

  /** One peer: its own catalog store over the shared metadata store, loaded and watching. */
  async function peer(
    options: {
      timeoutMs?: number;
      assertWritable?: () => void;
      membershipGuard?: () => { key: string; createRevision: number } | undefined;
      /** This peer's watch delivers each change this late. */
      watchLagMs?: number;
    } = {},
  ): Promise<{ catalogStore: EtcdCatalogStore; catalog: CollectionCatalog }> {
    const catalogStore = new EtcdCatalogStore(
      options.watchLagMs === undefined ? store : withLaggingWatch(store, options.watchLagMs),
      keys,
      options.timeoutMs ?? 2000,
      options.assertWritable,
      options.membershipGuard,
    );
    opened.push(catalogStore);
    const catalog = new CollectionCatalog(catalogStore);
    await catalog.load();
    return { catalogStore, catalog };
  }

  beforeEach(() => {
    store = new MemoryMetadataStore();
  });

  afterEach(async () => {
    for (const catalogStore of opened.splice(0)) await catalogStore.close();
  });

  describe('load', () => {
    it('should start empty on an empty cluster', async () => {
      const { catalog } = await peer();

      expect(catalog.snapshot).toEqual(emptyCatalog());
    });

    it('should read what other peers committed before', async () => {
      const a = await peer();
      await a.catalog.mutate((draft) => {
        draft.collections.set('x', record('x'));
        draft.aliases.set('ax', 'x');
      });

      const b = await peer();

      expect(names(b.catalog.snapshot)).toEqual(['x']);
      expect(b.catalog.resolve('ax')?.id).toBe('id-x');
    });
  });

  describe('save', () => {
    it('should publish a change made on one peer on the others', async () => {
      const a = await peer();
      const b = await peer();
      const c = await peer();

      await a.catalog.mutate(create('x'));
      await until(() => b.catalog.resolve('x') !== undefined && c.catalog.resolve('x') !== undefined, 'x on B and C');

      expect(b.catalog.snapshot.collections.get('x')).toEqual(record('x'));
      expect(c.catalog.snapshot.collections.get('x')).toEqual(record('x'));
    });

    it('should have published the change on the writing peer when mutate resolves', async () => {
      const a = await peer();

      await a.catalog.mutate(create('x'));

      expect(names(a.catalog.snapshot)).toEqual(['x']);
    });

    it('should hand every change to the listeners of another peer, in commit order', async () => {
      const a = await peer();
      const b = await peer();
      const seen: string[][] = [];
      await b.catalog.subscribe((state) => void seen.push(names(state)));

      await a.catalog.mutate(create('x'));
      await a.catalog.mutate(create('y'));
      await a.catalog.mutate((draft) => void draft.collections.delete('x'));
      await until(() => seen.length === 4, 'four publications on B');

      expect(seen).toEqual([[], ['x'], ['x', 'y'], ['y']]);
    });

    it('should pass the change function result through', async () => {
      const a = await peer();

      const result = await a.catalog.mutate((draft) => {
        draft.collections.set('x', record('x'));
        return { created: 'x' };
      });

      expect(result).toEqual({ created: 'x' });
    });

    it('should apply concurrent changes of different collections on two peers', async () => {
      const a = await peer();
      const b = await peer();

      await Promise.all([a.catalog.mutate(create('x')), b.catalog.mutate(create('y'))]);
      await until(() => names(a.catalog.snapshot).length === 2 && names(b.catalog.snapshot).length === 2, 'x and y');

      expect(names(a.catalog.snapshot)).toEqual(['x', 'y']);
      expect(names(b.catalog.snapshot)).toEqual(['x', 'y']);
    });

    it('should retry a change that conflicted on the aliases and keep both peers changes', async () => {
      const a = await peer();
      const b = await peer();
      const calls = { count: 0 };
      const withAlias = (name: string) => (draft: CatalogState) => {
        calls.count++;
        draft.collections.set(name, record(name));
        draft.aliases.set(`alias-${name}`, name);
      };

      await Promise.all([a.catalog.mutate(withAlias('x')), b.catalog.mutate(withAlias('y'))]);
      await until(() => a.catalog.snapshot.aliases.size === 2 && b.catalog.snapshot.aliases.size === 2, 'two aliases');

      expect(calls.count).toBe(3);
      expect([...b.catalog.snapshot.aliases].sort()).toEqual([
        ['alias-x', 'x'],
        ['alias-y', 'y'],
      ]);
      expect(names(a.catalog.snapshot)).toEqual(['x', 'y']);
    });

    it('should let exactly one of two peers create the same name; the other sees it on retry', async () => {
      const a = await peer();
      const b = await peer();
      const callsA = { count: 0 };
      const callsB = { count: 0 };

      const results = await Promise.allSettled([
        a.catalog.mutate(create('x', callsA)),
        b.catalog.mutate(create('x', callsB)),
      ]);

      const fulfilled = results.filter((r) => r.status === 'fulfilled');
      const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
      expect(fulfilled).toHaveLength(1);
      expect(rejected).toHaveLength(1);
      expect(rejected[0].reason).toBeInstanceOf(DomainError);
      expect((rejected[0].reason as DomainError).kind).toBe(ErrorKind.AlreadyExists);
      expect(callsA.count + callsB.count).toBe(3);
      expect((await store.range(keys.collections)).keys).toHaveLength(1);
    });

    it('should publish alias changes to the other peers', async () => {
      const a = await peer();
      const b = await peer();
      await a.catalog.mutate(create('x'));
      await a.catalog.mutate(create('y'));

      await a.catalog.mutate((draft) => void draft.aliases.set('al', 'x'));
      await until(() => b.catalog.resolve('al') !== undefined, 'alias on B');
      const first = b.catalog.resolve('al')?.name;
      await a.catalog.mutate((draft) => void draft.aliases.set('al', 'y'));
      await until(() => b.catalog.resolve('al')?.name === 'y', 'alias switched on B');
      await a.catalog.mutate((draft) => void draft.aliases.delete('al'));
      await until(() => b.catalog.snapshot.aliases.size === 0, 'alias deleted on B');

      expect(first).toBe('x');
      expect(b.catalog.resolve('al')).toBeUndefined();
      expect(names(b.catalog.snapshot)).toEqual(['x', 'y']);
    });

    it("should refuse a change at etcd once this peer's registration is gone (lease expired)", async () => {
      const { id: lease } = await store.grantLease(10);
      const registered = await store.txn([], [{ put: keys.peer('1'), value: '{}', lease }]);
      const a = await peer({ membershipGuard: () => ({ key: keys.peer('1'), createRevision: registered.revision }) });
      await a.catalog.mutate(create('kept'));
      store.expireLease(lease);

      const error = await rejectionOf(a.catalog.mutate(create('refused')));

      expect(error.kind).toBe(ErrorKind.Unavailable);
      expect(error.message).toContain('no longer registered');
      expect((await store.range(keys.collections)).keys.map((k) => keys.collectionName(k.key))).toEqual(['kept']);
    });

    it('should never leave an alias to a collection another peer deleted concurrently', async () => {
      const a = await peer();
      const b = await peer();
      await a.catalog.mutate(create('y'));
      await until(() => b.catalog.resolve('y') !== undefined, 'y on B');
      // Both changes start from a state with y; one of them must be made again on the other's result.
      const aliasToY = (draft: CatalogState) => {
        if (!draft.collections.has('y')) throw DomainError.notFound('Collection `y` does not exist!');
        draft.aliases.set('a', 'y');
      };
      const deleteY = (draft: CatalogState) => {
        draft.collections.delete('y');
        for (const [alias, target] of draft.aliases) if (target === 'y') draft.aliases.delete(alias);
      };

      await Promise.allSettled([b.catalog.mutate(deleteY), a.catalog.mutate(aliasToY)]);
      await until(
        () => a.catalog.snapshot.collections.size === 0 && b.catalog.snapshot.collections.size === 0,
        'y deleted on both',
      );

      for (const { catalog } of [a, b]) {
        for (const target of catalog.snapshot.aliases.values())
          expect(catalog.snapshot.collections.has(target)).toBe(true);
      }
    });

    it('should write one key per changed collection and nothing for unchanged ones', async () => {
      const a = await peer();
      await a.catalog.mutate(create('x'));
      await a.catalog.mutate(create('y'));
      const before = await store.get(keys.collection('x'));

      await a.catalog.mutate((draft) => void draft.collections.set('y', { ...record('y'), nextShardId: 2 }));

      expect((await store.get(keys.collection('x')))?.modRevision).toBe(before?.modRevision);
      expect(a.catalog.snapshot.collections.get('y')?.nextShardId).toBe(2);
    });

    it('should fail with Unavailable and leave the live state unchanged when the store is down', async () => {
      const a = await peer();
      await a.catalog.mutate(create('x'));
      const before = a.catalog.snapshot;
      store.down = true;

      const error = await rejectionOf(a.catalog.mutate(create('y')));

      expect(error.kind).toBe(ErrorKind.Unavailable);
      expect(a.catalog.snapshot).toBe(before);
      expect(names(a.catalog.snapshot)).toEqual(['x']);
      store.down = false;
      expect((await store.range(keys.collections)).keys.map((k) => keys.collectionName(k.key))).toEqual(['x']);
    });

    it('should accept changes again once the store is back', async () => {
      const a = await peer();
      store.down = true;
      await rejectionOf(a.catalog.mutate(create('x')));
      store.down = false;

      await a.catalog.mutate(create('x'));

      expect(names(a.catalog.snapshot)).toEqual(['x']);
    });

    it('should not write when the assertWritable hook throws', async () => {
      const a = await peer({
        assertWritable: () => {
          throw DomainError.unavailable('lease expired');
        },
      });

      const error = await rejectionOf(a.catalog.mutate(create('x')));

      expect(error.kind).toBe(ErrorKind.Unavailable);
      expect(error.message).toBe('lease expired');
      expect((await store.range(keys.catalog)).keys).toEqual([]);
      expect(names(a.catalog.snapshot)).toEqual([]);
    });

    it('should not ask the assertWritable hook for a change that changes nothing', async () => {
      const assertWritable = jest.fn();
      const a = await peer({ assertWritable });

      const result = await a.catalog.mutate(() => 'nothing');

      expect(result).toBe('nothing');
      expect(assertWritable).not.toHaveBeenCalled();
    });

    it('should refuse a base state it did not publish', async () => {
      const a = await peer();

      await expect(a.catalogStore.save(emptyCatalog(), emptyCatalog())).rejects.toThrow(
        'catalog change made from a state this store did not publish',
      );
    });

    it('should keep big integers in collection metadata exact and config numbers as numbers', async () => {
      const a = await peer();
      const b = await peer();
      const metadata: JsonObject = {
        max: 2n ** 63n - 1n,
        beyondU64: -(2n ** 64n) - 1n,
        nested: { list: [9007199254740993n, 2.5], double: 5 },
      };

      await a.catalog.mutate((draft) => void draft.collections.set('x', record('x', metadata)));
      await until(() => b.catalog.resolve('x') !== undefined, 'x on B');
      const c = await peer();

      for (const catalog of [a.catalog, b.catalog, c.catalog]) {
        const found = catalog.snapshot.collections.get('x');
        expect(found?.config.metadata).toEqual(metadata);
        expect(typeof (found?.config.metadata.nested as JsonObject).double).toBe('number');
        expect(found?.config.params.shardNumber).toBe(1);
        expect(found?.nextShardId).toBe(1);
      }
    });

    it.each([
      ['a slash', 'a/b'],
      ['a percent sign', '100%'],
      ['an encoded-looking name', 'a%2Fb'],
      ['unicode', 'コレクション ☃ é'],
      ['__proto__', '__proto__'],
      ['constructor', 'constructor'],
      ['dots', '..'],
    ])('should keep a collection name with %s exact across peers', async (_, name) => {
      const a = await peer();
      const b = await peer();

      await a.catalog.mutate((draft) => {
        draft.collections.set(name, record(name));
        draft.aliases.set(name, name);
      });
      await until(() => b.catalog.snapshot.collections.size === 1, 'the collection on B');
      const c = await peer();

      for (const catalog of [a.catalog, b.catalog, c.catalog]) {
        expect(names(catalog.snapshot)).toEqual([name]);
        expect(catalog.snapshot.collections.get(name)?.name).toBe(name);
        expect([...catalog.snapshot.aliases]).toEqual([[name, name]]);
      }
      const stored = (await store.range(keys.collections)).keys;
      expect(stored.map((k) => k.key)).toEqual([keys.collection(name)]);
      expect(stored[0].key.slice(keys.collections.length)).not.toContain('/');
    });

    it('should delete a collection named __proto__ on every peer', async () => {
      const a = await peer();
      const b = await peer();
      await a.catalog.mutate(create('__proto__'));
      await until(() => b.catalog.snapshot.collections.has('__proto__'), '__proto__ on B');

      await a.catalog.mutate((draft) => void draft.collections.delete('__proto__'));
      await until(() => !b.catalog.snapshot.collections.has('__proto__'), '__proto__ gone on B');

      expect((await store.range(keys.collections)).keys).toEqual([]);
    });

    it('should retry a conflict even when the store revision moved on through keys outside the catalog', async () => {
      // Another peer commits `x`, then (say) a peer registers: the txn that fails reports the newer,
      // non-catalog revision, which the catalog watch never delivers.
      const a = await peer({ timeoutMs: 300 });
      const calls = { count: 0 };

      const result = await a.catalog.mutate((draft) => {
        calls.count++;
        if (calls.count === 1) {
          void store.txn([], [{ put: keys.collection('x'), value: JSON.stringify(record('x')) }]);
          void store.txn([], [{ put: keys.peer('7'), value: '{}' }]);
        }
        if (draft.collections.has('x')) return 'saw x';
        draft.collections.set('x', record('x'));
        return 'created x';
      });

      expect(result).toBe('saw x');
      expect(calls.count).toBe(2);
    });
    it('should fail the change request when a listener of the writing peer fails, keeping the change', async () => {
      // CollectionCatalog.subscribe: "A listener failure fails the change's request, but the change
      // itself stays committed" (as with the file store in standalone mode).
      const a = await peer();
      await a.catalog.subscribe((state) => {
        if (state.collections.has('x')) throw new Error('could not create the shard folder');
      });

      const outcome = await a.catalog.mutate(create('x')).then(
        () => 'resolved',
        (error: unknown) => (error instanceof Error ? error.message : String(error)),
      );

      expect(outcome).toBe('could not create the shard folder');
      expect(await store.get(keys.collection('x'))).toBeDefined();
    });

    it('should refuse a name with a lone surrogate with InvalidArgument rather than a URIError', async () => {
      const a = await peer();

      const outcome = await a.catalog.mutate(create('bad\uD800name')).then(
        () => undefined,
        (error: unknown) => error,
      );

      expect(outcome).toBeInstanceOf(DomainError);
      expect((outcome as DomainError).kind).toBe(ErrorKind.InvalidArgument);
      expect((await store.range(keys.catalog)).keys).toEqual([]);
    });
    it("should refuse a collection record larger than etcd's request limit (1.5 MiB) with InvalidArgument", async () => {
      // docs: "etcd limits: request <= 1.5 MiB ... (big `metadata` -> INVALID_ARGUMENT)".
      const a = await peer();
      const big = record('x', { blob: 'x'.repeat(2 * 1024 * 1024) });

      const outcome = await a.catalog
        .mutate((draft) => void draft.collections.set('x', big))
        .then(
          () => undefined,
          (error: unknown) => error,
        );

      expect(outcome).toBeInstanceOf(DomainError);
      expect((outcome as DomainError).kind).toBe(ErrorKind.InvalidArgument);
      expect(await store.get(keys.collection('x'))).toBeUndefined();
    });
  });

  describe('importStandalone', () => {
    function local(...collections: string[]): CatalogState {
      const state = emptyCatalog();
      for (const name of collections) state.collections.set(name, record(name));
      return state;
    }

    it('should import the local catalog into an empty cluster', async () => {
      const importer = new EtcdCatalogStore(store, keys, 1000);
      const state = local('x', 'y');
      state.aliases.set('ax', 'x');

      const imported = await importer.importStandalone(state);
      const b = await peer();

      expect(imported).toBe(true);
      expect(names(b.catalog.snapshot)).toEqual(['x', 'y']);
      expect(b.catalog.snapshot.collections.get('y')).toEqual(record('y'));
      expect(b.catalog.resolve('ax')?.name).toBe('x');
    });

    it('should import a standalone catalog larger than one etcd transaction (128 operations)', async () => {
      store = new EtcdLimitedStore();
      const importer = new EtcdCatalogStore(store, keys, 1000);
      const many = local(...Array.from({ length: 200 }, (_, i) => `c${i}`));

      const imported = await importer.importStandalone(many).catch((error: unknown) => error);

      expect(imported).toBe(true);
      expect((await store.range(keys.collections)).keys).toHaveLength(200);
    });

    it('should refuse to merge local collections into a cluster that has its own', async () => {
      const a = await peer();
      await a.catalog.mutate(create('remote'));
      const importer = new EtcdCatalogStore(store, keys, 1000);

      const error = await rejectionOf(importer.importStandalone(local('mine')));

      expect(error.kind).toBe(ErrorKind.FailedPrecondition);
      expect(error.message).toContain('1 collections: mine');
      expect(names((await peer()).catalog.snapshot)).toEqual(['remote']);
    });

    it('should refuse when the cluster has only aliases', async () => {
      await store.txn([], [{ put: keys.aliases, value: '{}' }]);
      const importer = new EtcdCatalogStore(store, keys, 1000);

      const error = await rejectionOf(importer.importStandalone(local('mine')));

      expect(error.kind).toBe(ErrorKind.FailedPrecondition);
    });

    it.each([
      ['no local catalog', undefined],
      ['an empty local catalog', emptyCatalog()],
    ])('should import nothing for %s', async (_, state) => {
      const importer = new EtcdCatalogStore(store, keys, 1000);

      const imported = await importer.importStandalone(state);

      expect(imported).toBe(false);
      expect((await store.range(keys.catalog)).keys).toEqual([]);
    });

    it('should import nothing from an empty local catalog into a non-empty cluster', async () => {
      const a = await peer();
      await a.catalog.mutate(create('remote'));
      const importer = new EtcdCatalogStore(store, keys, 1000);

      await expect(importer.importStandalone(emptyCatalog())).resolves.toBe(false);
    });
  });

  describe('catchUp', () => {
    const LAG_MS = 300;

    it("should hold another peer's change once catchUp resolves, though this peer's watch has not delivered it", async () => {
      const a = await peer();
      const b = await peer({ watchLagMs: LAG_MS });
      const published: string[][] = [];
      await b.catalog.subscribe((state) => void published.push(names(state)));
      await a.catalog.mutate(create('x'));
      expect(names(b.catalog.snapshot)).toEqual([]);

      await b.catalog.catchUp();

      expect(names(b.catalog.snapshot)).toEqual(['x']);
      expect(b.catalog.snapshot.collections.get('x')).toEqual(record('x'));
      // The watch's late delivery of that change is skipped: published once, and nothing goes back.
      await new Promise((resolve) => setTimeout(resolve, LAG_MS + 100));
      expect(published).toEqual([[], ['x']]);
      // Changes made from the caught-up state commit (their guards are the store's revisions).
      await b.catalog.mutate(create('y'));
      expect(names(b.catalog.snapshot)).toEqual(['x', 'y']);
      await until(() => names(a.catalog.snapshot).length === 2, 'y on A');
    });

    it('should no longer hold a collection another peer deleted', async () => {
      const a = await peer();
      await a.catalog.mutate(create('x'));
      const b = await peer({ watchLagMs: LAG_MS });
      await a.catalog.mutate((draft) => void draft.collections.delete('x'));
      expect(names(b.catalog.snapshot)).toEqual(['x']);

      await b.catalog.catchUp();

      expect(names(b.catalog.snapshot)).toEqual([]);
    });

    it('should publish nothing when the watch has already delivered every change', async () => {
      const a = await peer();
      await a.catalog.mutate(create('x'));
      let publishes = 0;
      await a.catalog.subscribe(() => void publishes++);

      await a.catalog.catchUp();

      expect(publishes).toBe(1);
      expect(names(a.catalog.snapshot)).toEqual(['x']);
    });
  });

  describe('close', () => {
    it('should stop publishing changes of other peers', async () => {
      const a = await peer();
      const b = await peer();
      await b.catalogStore.close();

      await a.catalog.mutate(create('x'));
      await new Promise((resolve) => setTimeout(resolve, 20));

      expect(names(b.catalog.snapshot)).toEqual([]);
    });
  });
});
