import { DomainError, ErrorKind } from '@vectorstore/common';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CollectionRecord } from '../model/collection.model';
import { CatalogState, emptyCatalog } from './catalog-state';
import { CatalogStore } from './catalog.store';
import { CollectionCatalog } from './collection-catalog';
import { FileCatalogStore } from './file-catalog.store';
import { makeTempDir, removeTempDir } from '../testing/collections-fixtures';

/** An in-memory store that records saves and can be told to fail. */
class MemoryStore implements CatalogStore {
  saved: CatalogState[] = [];
  failNext = false;

  constructor(private readonly initial?: CatalogState) {}

  async load(): Promise<CatalogState | undefined> {
    return this.initial === undefined ? undefined : structuredClone(this.initial);
  }

  async save(state: CatalogState): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('disk full');
    }
    this.saved.push(structuredClone(state));
  }
}

function record(name: string): CollectionRecord {
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
      metadata: {},
    },
    shards: [{ shardId: 0, state: 'Active' }],
    shardKeys: [],
    nextShardId: 1,
  };
}

describe(CollectionCatalog.name, () => {
  describe('load', () => {
    it('should start empty when the store has nothing', async () => {
      const catalog = new CollectionCatalog(new MemoryStore());

      await catalog.load();

      expect(catalog.snapshot).toEqual(emptyCatalog());
    });

    it('should take the stored state', async () => {
      const state = emptyCatalog();
      state.collections.set('a', record('a'));
      const catalog = new CollectionCatalog(new MemoryStore(state));

      await catalog.load();

      expect(catalog.snapshot.collections.get('a')!.name).toBe('a');
    });
  });

  describe('resolve', () => {
    it('should find a collection by name or alias and nothing otherwise', async () => {
      const state = emptyCatalog();
      state.collections.set('a', record('a'));
      state.aliases.set('al', 'a');
      state.aliases.set('dangling', 'gone');
      const catalog = new CollectionCatalog(new MemoryStore(state));
      await catalog.load();

      expect(catalog.resolve('a')?.id).toBe('id-a');
      expect(catalog.resolve('al')?.id).toBe('id-a');
      expect(catalog.resolve('dangling')).toBeUndefined();
      expect(catalog.resolve('x')).toBeUndefined();
    });
  });

  describe('require', () => {
    it('should throw NotFound with the requested name', async () => {
      const catalog = new CollectionCatalog(new MemoryStore());
      await catalog.load();

      let error: unknown;
      try {
        catalog.require('x');
      } catch (caught) {
        error = caught;
      }

      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).kind).toBe(ErrorKind.NotFound);
      expect((error as DomainError).message).toBe("Not found: Collection `x` doesn't exist!");
    });
  });

  describe('mutate', () => {
    let store: MemoryStore;
    let catalog: CollectionCatalog;

    beforeEach(async () => {
      store = new MemoryStore();
      catalog = new CollectionCatalog(store);
      await catalog.load();
    });

    it('should publish and save the change and pass the result through', async () => {
      const result = await catalog.mutate((draft) => {
        draft.collections.set('a', record('a'));
        return 'done';
      });

      expect(result).toBe('done');
      expect([...catalog.snapshot.collections.keys()]).toEqual(['a']);
      expect(store.saved).toHaveLength(1);
      expect([...store.saved[0].collections.keys()]).toEqual(['a']);
    });

    it('should work on a copy, not the live state', async () => {
      const before = catalog.snapshot;
      let seenDuringChange: unknown;

      await catalog.mutate((draft) => {
        draft.collections.set('a', record('a'));
        seenDuringChange = catalog.snapshot.collections.get('a')!;
      });

      expect(seenDuringChange).toBeUndefined();
      expect(before.collections.size).toBe(0);
    });

    it('should leave the state unchanged and not save when the change throws', async () => {
      await catalog.mutate((draft) => {
        draft.collections.set('a', record('a'));
      });
      const before = structuredClone(catalog.snapshot);

      await expect(
        catalog.mutate((draft) => {
          draft.collections.delete('a');
          draft.collections.set('b', record('b'));
          throw DomainError.invalidArgument('nope');
        }),
      ).rejects.toThrow('nope');

      expect(catalog.snapshot).toEqual(before);
      expect(store.saved).toHaveLength(1);
    });

    it('should leave the in-memory state unchanged when saving fails', async () => {
      await catalog.mutate((draft) => {
        draft.collections.set('a', record('a'));
      });
      store.failNext = true;

      await expect(
        catalog.mutate((draft) => {
          draft.collections.set('b', record('b'));
        }),
      ).rejects.toThrow('disk full');

      expect([...catalog.snapshot.collections.keys()]).toEqual(['a']);
    });

    it('should keep working after a failed change', async () => {
      store.failNext = true;
      await expect(catalog.mutate((draft) => void draft.aliases.set('x', 'y'))).rejects.toThrow();

      await catalog.mutate((draft) => void draft.aliases.set('z', 'w'));

      expect([...catalog.snapshot.aliases]).toEqual([['z', 'w']]);
    });

    it('should apply every one of many concurrent changes', async () => {
      const names = Array.from({ length: 50 }, (_, i) => `c${i}`);

      await Promise.all(
        names.map((name) =>
          catalog.mutate((draft) => {
            draft.collections.set(name, record(name));
          }),
        ),
      );

      expect([...catalog.snapshot.collections.keys()].sort()).toEqual([...names].sort());
      expect(store.saved).toHaveLength(50);
      expect([...store.saved[49].collections.keys()]).toHaveLength(50);
    });

    it('should run concurrent read-modify-write changes one at a time', async () => {
      await catalog.mutate((draft) => void draft.aliases.set('counter', '0'));

      await Promise.all(
        Array.from({ length: 20 }, () =>
          catalog.mutate((draft) => {
            draft.aliases.set('counter', String(Number(draft.aliases.get('counter')) + 1));
          }),
        ),
      );

      expect(catalog.snapshot.aliases.get('counter')).toBe('20');
    });
  });
});

describe(FileCatalogStore.name, () => {
  let dir: string;

  beforeEach(() => {
    dir = makeTempDir('vs-catalog-');
  });

  afterEach(() => {
    removeTempDir(dir);
  });

  describe('load', () => {
    it('should return undefined for a fresh folder and create it', async () => {
      const nested = path.join(dir, 'data');

      await expect(new FileCatalogStore(nested).load()).resolves.toBeUndefined();
      expect(fs.statSync(nested).isDirectory()).toBe(true);
    });

    it('should remove temporary files left by a crash', async () => {
      fs.writeFileSync(path.join(dir, '.catalog.json.1.abc.tmp'), 'partial');

      await new FileCatalogStore(dir).load();

      expect(fs.readdirSync(dir)).toEqual([]);
    });

    it('should refuse an unknown format version', async () => {
      fs.writeFileSync(path.join(dir, 'catalog.json'), '{"version": 2, "collections": [], "aliases": []}');

      await expect(new FileCatalogStore(dir).load()).rejects.toThrow('unsupported catalog format version 2');
    });

    it('should read configuration numbers as numbers and metadata integers as bigint', async () => {
      fs.writeFileSync(
        path.join(dir, 'catalog.json'),
        JSON.stringify({
          version: 1,
          collections: [{ ...record('a'), config: { ...record('a').config, metadata: { n: 0 } } }],
          aliases: [],
        }).replace('"metadata":{"n":0}', '"metadata":{"n":9007199254740993,"d":2.0}'),
      );

      const state = await new FileCatalogStore(dir).load();

      expect(state?.collections.get('a')!.nextShardId).toBe(1);
      expect(state?.collections.get('a')!.config.params.shardNumber).toBe(1);
      expect(state?.collections.get('a')!.config.metadata).toEqual({ n: 9007199254740993n, d: 2 });
    });
  });

  describe('save', () => {
    it('should write catalog.json that load reads back equal', async () => {
      const state = emptyCatalog();
      state.collections.set('a', record('a'));
      state.collections.get('a')!.config.metadata = { big: 2n ** 64n + 1n, x: 1.5, i: 3 };
      state.aliases.set('al', 'a');
      const store = new FileCatalogStore(dir);

      await store.save(state);

      expect(fs.readdirSync(dir).sort()).toEqual(['catalog.copy.json', 'catalog.json']);
      expect(await store.load()).toEqual(state);
    });
  });
});
