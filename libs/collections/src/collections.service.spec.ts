import { ErrorKind } from '@vectorstore/common';
import { AliasesService } from './aliases.service';
import { CollectionCatalog } from './catalog/collection-catalog';
import { CollectionsService } from './collections.service';
import {
  collectionsFixture,
  collectionsServiceOver,
  domainErrorOf,
  makeTempDir,
  openCatalog,
  rejectionOf,
  removeTempDir,
  withVectors,
} from './testing/collections-fixtures';

describe(CollectionsService.name, () => {
  let dir: string;
  let catalog: CollectionCatalog;
  let service: CollectionsService;
  let aliases: AliasesService;

  async function open(): Promise<CollectionsService> {
    return collectionsServiceOver(await openCatalog(dir));
  }

  beforeEach(async () => {
    ({ dir, catalog, collections: service } = await collectionsFixture('vs-collections-'));
    aliases = new AliasesService(catalog);
  });

  afterEach(() => {
    removeTempDir(dir);
  });

  describe('create', () => {
    it('should create a collection and return true', async () => {
      await expect(service.create(withVectors('a'))).resolves.toBe(true);

      expect(service.list()).toEqual(['a']);
    });

    it('should reject a duplicate with AlreadyExists in Qdrant wording', async () => {
      await service.create(withVectors('x'));

      const error = await rejectionOf(service.create(withVectors('x')));

      expect(error.kind).toBe(ErrorKind.AlreadyExists);
      expect(error.message).toBe('Wrong input: Collection `x` already exists!');
    });

    it('should reject a name taken by an alias with InvalidArgument', async () => {
      await service.create(withVectors('target'));
      await aliases.update([{ createAlias: { collectionName: 'target', aliasName: 'al' } }]);

      const error = await rejectionOf(service.create(withVectors('al')));

      expect(error.kind).toBe(ErrorKind.InvalidArgument);
      expect(error.message).toBe(
        "Wrong input: Can't create collection with name al. Alias with the same name already exists",
      );
      expect(service.list()).toEqual(['target']);
    });

    it('should reject an invalid request before changing anything', async () => {
      const error = await rejectionOf(
        service.create({ name: 'bad:name', vectors: { params: { size: 0, distance: 'Dot' } } }),
      );

      expect(error.kind).toBe(ErrorKind.InvalidArgument);
      expect(error.message).toContain('collection_name');
      expect(error.message).toContain('vectors_config.params.size');
      expect(service.list()).toEqual([]);
    });

    it('should accept m 0 (global graph disabled), as Qdrant', async () => {
      await service.create(withVectors('a', { hnswConfig: { m: 0 } }));

      expect(service.get('a').config.hnswConfig.m).toBe(0);
    });

    it('should create shard_number shards for automatic sharding', async () => {
      await service.create(withVectors('a', { shardNumber: 3 }));

      const record = catalog.require('a');
      expect(record.shards).toEqual([
        { shardId: 0, state: 'Active' },
        { shardId: 1, state: 'Active' },
        { shardId: 2, state: 'Active' },
      ]);
      expect(record.nextShardId).toBe(3);
    });

    it('should create one shard by default', async () => {
      await service.create(withVectors('a'));

      expect(catalog.require('a').shards).toHaveLength(1);
    });

    it('should create no shards for custom sharding', async () => {
      await service.create(withVectors('a', { shardingMethod: 'Custom', shardNumber: 4 }));

      const record = catalog.require('a');
      expect(record.shards).toEqual([]);
      expect(record.nextShardId).toBe(0);
      expect(record.config.params.shardNumber).toBe(4);
    });

    it('should accept a collection without vectors', async () => {
      await service.create({ name: 'empty' });

      expect(service.get('empty').config.params.vectors).toEqual({ paramsMap: {} });
    });

    it('should keep every one of many concurrent creates', async () => {
      const names = Array.from({ length: 50 }, (_, i) => `c${String(i).padStart(2, '0')}`);

      await Promise.all(names.map((name) => service.create(withVectors(name))));

      expect(service.list()).toEqual(names);
    });

    // Qdrant accepts any name passing the strict rule; names that happen to be Object.prototype keys are ordinary names.
    it.each(['constructor', 'toString', '__proto__'])('should create a collection named %p', async (name) => {
      await service.create(withVectors(name));

      expect(service.list()).toEqual([name]);
      expect(service.get(name).config.params.vectors).toEqual({ params: { size: 4, distance: 'Cosine' } });
    });
  });

  describe('get', () => {
    it('should describe the collection with empty stats and the full config', async () => {
      await service.create(withVectors('a'));

      const info = service.get('a');

      expect(info).toMatchObject({
        status: 'Green',
        optimizerStatus: { ok: true, error: '' },
        pointsCount: 0,
        indexedVectorsCount: 0,
        payloadSchema: {},
        warnings: [],
        updateQueueLength: 0,
      });
      expect(info).not.toHaveProperty('shards');
      expect(info.config.hnswConfig.m).toBe(16);
      expect(info.config.params.onDiskPayload).toBe(true);
    });

    it('should resolve an alias', async () => {
      await service.create(withVectors('a', { shardNumber: 2 }));
      await aliases.update([{ createAlias: { collectionName: 'a', aliasName: 'al' } }]);

      expect(service.get('al').config.params.shardNumber).toBe(2);
    });

    it("should answer NotFound in Qdrant's wording for an unknown collection", () => {
      const error = domainErrorOf(() => service.get('x'));

      expect(error.kind).toBe(ErrorKind.NotFound);
      expect(error.message).toBe("Not found: Collection `x` doesn't exist!");
    });

    it('should accept a legacy name (with ":") as a reference', () => {
      expect(domainErrorOf(() => service.get('old:name')).kind).toBe(ErrorKind.NotFound);
    });

    it('should reject a name with "/" as invalid', () => {
      expect(domainErrorOf(() => service.get('a/b')).kind).toBe(ErrorKind.InvalidArgument);
    });

    it('should return a copy that callers cannot use to change the stored config', async () => {
      await service.create(withVectors('a'));

      service.get('a').config.hnswConfig.m = 99;

      expect(service.get('a').config.hnswConfig.m).toBe(16);
    });

    it.each(['constructor', '__proto__'])('should answer NotFound for %p on an empty catalog', (name) => {
      expect(domainErrorOf(() => service.get(name)).kind).toBe(ErrorKind.NotFound);
    });
  });

  describe('list', () => {
    it('should be empty at first', () => {
      expect(service.list()).toEqual([]);
    });

    it('should list names sorted byte-wise, not by insertion', async () => {
      for (const name of ['b', 'B', 'a', 'é', 'a1', '_']) await service.create(withVectors(name));

      expect(service.list()).toEqual(['B', '_', 'a', 'a1', 'b', 'é']);
    });

    it('should not list aliases', async () => {
      await service.create(withVectors('a'));
      await aliases.update([{ createAlias: { collectionName: 'a', aliasName: 'al' } }]);

      expect(service.list()).toEqual(['a']);
    });
  });

  describe('exists', () => {
    it('should be true for a collection and false for an unknown name', async () => {
      await service.create(withVectors('a'));

      expect(service.exists('a')).toBe(true);
      expect(service.exists('b')).toBe(false);
    });

    it('should be true for an alias name', async () => {
      await service.create(withVectors('a'));
      await aliases.update([{ createAlias: { collectionName: 'a', aliasName: 'al' } }]);

      expect(service.exists('al')).toBe(true);
    });

    it.each(['toString', '__proto__'])('should be false for %p on an empty catalog', (name) => {
      expect(service.exists(name)).toBe(false);
    });
  });

  describe('update', () => {
    it('should merge the diff and return true', async () => {
      await service.create(withVectors('a'));

      await expect(service.update({ name: 'a', hnswConfig: { efConstruct: 200 } })).resolves.toBe(true);

      expect(service.get('a').config.hnswConfig).toMatchObject({ m: 16, efConstruct: 200 });
    });

    it('should update through an alias', async () => {
      await service.create(withVectors('a'));
      await aliases.update([{ createAlias: { collectionName: 'a', aliasName: 'al' } }]);

      await service.update({ name: 'al', optimizersConfig: { indexingThreshold: 0 } });

      expect(service.get('a').config.optimizerConfig.indexingThreshold).toBe(0);
    });

    it('should answer NotFound for an unknown collection', async () => {
      const error = await rejectionOf(service.update({ name: 'nope', hnswConfig: { m: 8 } }));

      expect(error.kind).toBe(ErrorKind.NotFound);
      expect(error.message).toBe("Not found: Collection `nope` doesn't exist!");
    });

    it('should reject an invalid update and keep the old config', async () => {
      await service.create(withVectors('a'));

      const error = await rejectionOf(service.update({ name: 'a', hnswConfig: { efConstruct: 2 } }));

      expect(error.kind).toBe(ErrorKind.InvalidArgument);
      expect(service.get('a').config.hnswConfig.efConstruct).toBe(100);
    });

    it('should reject an update of an unknown vector name and change nothing', async () => {
      await service.create({ name: 'a', vectors: { paramsMap: { v: { size: 4, distance: 'Dot' } } } });

      const error = await rejectionOf(service.update({ name: 'a', vectors: { paramsMap: { w: { onDisk: true } } } }));

      expect(error.kind).toBe(ErrorKind.InvalidArgument);
      expect(service.get('a').config.params.vectors).toEqual({ paramsMap: { v: { size: 4, distance: 'Dot' } } });
    });

    it('should reject timeout 0', async () => {
      await service.create(withVectors('a'));

      expect((await rejectionOf(service.update({ name: 'a', timeout: 0 }))).kind).toBe(ErrorKind.InvalidArgument);
    });
  });

  describe('delete', () => {
    it('should remove the collection and return true', async () => {
      await service.create(withVectors('a'));

      await expect(service.delete('a')).resolves.toBe(true);

      expect(service.list()).toEqual([]);
      expect(service.exists('a')).toBe(false);
    });

    it('should return false for a missing collection', async () => {
      await expect(service.delete('missing')).resolves.toBe(false);
    });

    it('should return false for an alias name and keep the collection', async () => {
      await service.create(withVectors('a'));
      await aliases.update([{ createAlias: { collectionName: 'a', aliasName: 'al' } }]);

      await expect(service.delete('al')).resolves.toBe(false);

      expect(service.list()).toEqual(['a']);
      expect(aliases.list()).toEqual([{ aliasName: 'al', collectionName: 'a' }]);
    });

    it('should drop every alias of the collection and keep the others', async () => {
      await service.create(withVectors('a'));
      await service.create(withVectors('b'));
      await aliases.update([
        { createAlias: { collectionName: 'a', aliasName: 'a1' } },
        { createAlias: { collectionName: 'a', aliasName: 'a2' } },
        { createAlias: { collectionName: 'b', aliasName: 'b1' } },
      ]);

      await service.delete('a');

      expect(aliases.list()).toEqual([{ aliasName: 'b1', collectionName: 'b' }]);
    });

    it('should let the name be created again', async () => {
      await service.create(withVectors('a', { shardNumber: 2 }));
      await service.delete('a');

      await service.create(withVectors('a'));

      expect(service.get('a').config.params.shardNumber).toBe(1);
    });

    it('should reject timeout 0', async () => {
      expect((await rejectionOf(service.delete('a', 0))).kind).toBe(ErrorKind.InvalidArgument);
    });

    it.each(['constructor', 'toString'])('should return false for %p on an empty catalog', async (name) => {
      await expect(service.delete(name)).resolves.toBe(false);
    });
  });

  describe('persistence', () => {
    it('should find collections, aliases and config after reloading the data folder', async () => {
      await service.create(withVectors('a', { hnswConfig: { m: 32 }, shardNumber: 2 }));
      await service.create({ name: 'b', sparseVectors: { s: { modifier: 'Idf' } } });
      await aliases.update([{ createAlias: { collectionName: 'a', aliasName: 'al' } }]);
      await service.update({ name: 'a', optimizersConfig: { deletedThreshold: 0.5 } });

      const reopened = await open();

      expect(reopened.list()).toEqual(['a', 'b']);
      expect(reopened.exists('al')).toBe(true);
      expect(reopened.get('a').config).toEqual(service.get('a').config);
      expect(reopened.get('b').config).toEqual(service.get('b').config);
      expect(reopened.get('a').config.hnswConfig.m).toBe(32);
      expect(typeof reopened.get('a').config.params.shardNumber).toBe('number');
    });

    it('should keep metadata integers beyond 2^53 exact and doubles as numbers', async () => {
      const big = 2n ** 63n + 7n;
      await service.create(withVectors('a', { metadata: { big, nested: { list: [big, 1.5, 5] }, ratio: 5, s: 'x' } }));

      const metadata = (await open()).get('a').config.metadata;

      expect(metadata).toEqual({ big, nested: { list: [big, 1.5, 5] }, ratio: 5, s: 'x' });
      expect(typeof metadata.ratio).toBe('number');
    });

    it('should keep memory placements across a reload', async () => {
      await service.create({
        name: 'placed',
        vectors: { params: { size: 4, distance: 'Dot', memory: 'Cold', hnswConfig: { memory: 'Cached' } } },
        sparseVectors: { s: { index: { memory: 'Pinned' } } },
        payload: { memory: 'Cached' },
      });

      const config = (await open()).get('placed').config;

      expect(config).toEqual(service.get('placed').config);
      expect(config.params.payload).toEqual({ memory: 'Cached' });
      expect(config.params.vectors).toEqual({
        params: { size: 4, distance: 'Dot', memory: 'Cold', hnswConfig: { memory: 'Cached' } },
      });
    });

    it('should persist deletes', async () => {
      await service.create(withVectors('a'));
      await service.delete('a');

      expect((await open()).list()).toEqual([]);
    });
  });
});

describe('CollectionsService names that are Object.prototype keys', () => {
  it('should treat constructor, toString and __proto__ as ordinary names that survive a reload', async () => {
    const dir = makeTempDir('vs-proto-');
    const {
      CollectionCatalog,
      FileCatalogStore,
      EmptyCollectionStatsProvider,
      CollectionsService,
      AliasesService,
    } = require('./index');
    const catalog = new CollectionCatalog(new FileCatalogStore(dir));
    await catalog.load();
    const service = new CollectionsService(catalog, new EmptyCollectionStatsProvider());
    const aliases = new AliasesService(catalog);
    expect(service.exists('toString')).toBe(false);
    for (const name of ['constructor', 'toString', '__proto__'])
      await service.create({ name, metadata: { __proto__: 1n } as never });
    await aliases.update([{ createAlias: { collectionName: '__proto__', aliasName: 'hasOwnProperty' } }]);
    const reloaded = new CollectionCatalog(new FileCatalogStore(dir));
    await reloaded.load();
    const again = new CollectionsService(reloaded, new EmptyCollectionStatsProvider());
    expect(again.list()).toEqual(['__proto__', 'constructor', 'toString']);
    expect(again.get('hasOwnProperty').config.params.shardNumber).toBe(1);
    expect(await again.delete('valueOf')).toBe(false);
    removeTempDir(dir);
  });
});
