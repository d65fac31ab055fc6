import { ErrorKind } from '@vectorstore/common';
import { AliasesService } from './aliases.service';
import { CollectionCatalog } from './catalog/collection-catalog';
import { CollectionsService } from './collections.service';
import { CollectionParams } from './model/collection.model';
import { collectionsFixture, openCatalog, rejectionOf, removeTempDir } from './testing/collections-fixtures';
import { VectorNamesService } from './vector-names.service';

describe(VectorNamesService.name, () => {
  let dir: string;
  let catalog: CollectionCatalog;
  let names: VectorNamesService;
  let collections: CollectionsService;

  const params = (name = 'c', from = catalog): CollectionParams => from.require(name).config.params;

  beforeEach(async () => {
    ({ dir, catalog, collections } = await collectionsFixture('vs-vector-names-'));
    names = new VectorNamesService(catalog);
    await collections.create({
      name: 'c',
      vectors: { paramsMap: { text: { size: 4, distance: 'Dot', onDisk: true } } },
      sparseVectors: { bm25: { modifier: 'Idf' } },
    });
  });

  afterEach(() => {
    removeTempDir(dir);
  });

  describe('create', () => {
    it('should add a dense vector, persisted with the catalog', async () => {
      expect(
        await names.create({
          collectionName: 'c',
          vectorName: 'image',
          config: { dense: { size: 3, distance: 'Euclid', datatype: 'Float16' } },
        }),
      ).toBe(true);
      const reopened = await openCatalog(dir);
      expect(params('c', reopened).vectors).toEqual({
        paramsMap: {
          text: { size: 4, distance: 'Dot', onDisk: true },
          image: { size: 3, distance: 'Euclid', datatype: 'Float16' },
        },
      });
    });

    it('should add a sparse vector', async () => {
      expect(
        await names.create({ collectionName: 'c', vectorName: 'splade', config: { sparse: { datatype: 'Float16' } } }),
      ).toBe(true);
      expect(params().sparseVectors).toEqual({ bm25: { modifier: 'Idf' }, splade: { index: { datatype: 'Float16' } } });
    });

    it('should treat the same vector again as done and refuse another of that name, as Qdrant', async () => {
      expect(
        await names.create({
          collectionName: 'c',
          vectorName: 'text',
          config: { dense: { size: 4, distance: 'Dot', datatype: 'Float32' } },
        }),
      ).toBe(false);
      expect(
        await names.create({ collectionName: 'c', vectorName: 'bm25', config: { sparse: { modifier: 'Idf' } } }),
      ).toBe(false);
      const cases: Array<[Parameters<VectorNamesService['create']>[0]['config'], string, string]> = [
        [
          { dense: { size: 5, distance: 'Dot' } },
          'text',
          'Wrong input: Vector `text` already exists with a different configuration',
        ],
        [{ dense: { size: 4, distance: 'Cosine' } }, 'text', 'different configuration'],
        [
          { dense: { size: 4, distance: 'Dot', multivectorConfig: { comparator: 'MaxSim' } } },
          'text',
          'different configuration',
        ],
        [{ sparse: {} }, 'text', 'Wrong input: Vector `text` already exists as a dense vector'],
        [{ sparse: {} }, 'bm25', 'Wrong input: Sparse vector `bm25` already exists with a different configuration'],
        [
          { dense: { size: 2, distance: 'Dot' } },
          'bm25',
          'Wrong input: Vector `bm25` already exists as a sparse vector',
        ],
      ];
      for (const [config, vectorName, message] of cases) {
        const error = await rejectionOf(names.create({ collectionName: 'c', vectorName, config }));
        expect(error.kind).toBe(ErrorKind.InvalidArgument);
        expect(error.message).toContain(message);
      }
      expect(params().vectors).toEqual({ paramsMap: { text: { size: 4, distance: 'Dot', onDisk: true } } });
    });

    it('should keep a single unnamed vector as "" beside the new one', async () => {
      await collections.create({ name: 'single', vectors: { params: { size: 2, distance: 'Cosine' } } });
      await names.create({
        collectionName: 'single',
        vectorName: 'extra',
        config: { dense: { size: 3, distance: 'Dot' } },
      });
      expect(params('single').vectors).toEqual({
        paramsMap: { '': { size: 2, distance: 'Cosine' }, extra: { size: 3, distance: 'Dot' } },
      });
    });

    it('should take names such as __proto__ as plain keys', async () => {
      await names.create({
        collectionName: 'c',
        vectorName: '__proto__',
        config: { dense: { size: 2, distance: 'Dot' } },
      });
      const map = (params().vectors as { paramsMap: Record<string, unknown> }).paramsMap;
      expect(Object.keys(map).sort()).toEqual(['__proto__', 'text']);
    });

    it('should validate before looking up the collection, then answer NOT_FOUND', async () => {
      const invalid = await rejectionOf(
        names.create({ collectionName: 'missing', vectorName: '', config: { dense: { size: 0, distance: 'Dot' } } }),
      );
      expect(invalid.message).toBe(
        'Validation error in body: [vector_name: must not be empty (the unnamed vector is defined when the collection is created); dense_config.size: value 0 invalid, must be from 1 to 65536]',
      );
      const distance = await rejectionOf(
        names.create({
          collectionName: 'c',
          vectorName: 'x',
          config: { dense: { size: 2, distance: 'UnknownDistance' as never } },
        }),
      );
      expect(distance.message).toContain('dense_config.distance');
      const sparseName = await rejectionOf(
        names.create({ collectionName: 'c', vectorName: 'a*b', config: { sparse: {} } }),
      );
      expect(sparseName.message).toContain('Invalid sparse vector name `a*b`: cannot contain "*" char');
      expect(
        (await rejectionOf(names.create({ collectionName: 'c', vectorName: 'x', config: { sparse: {} }, timeout: 0 })))
          .message,
      ).toContain('timeout');
      const missing = await rejectionOf(
        names.create({ collectionName: 'missing', vectorName: 'x', config: { sparse: {} } }),
      );
      expect(missing.kind).toBe(ErrorKind.NotFound);
    });

    it('should resolve an alias', async () => {
      await new AliasesService(catalog).update([{ createAlias: { collectionName: 'c', aliasName: 'a' } }]);
      await names.create({ collectionName: 'a', vectorName: 'x', config: { sparse: {} } });
      expect(Object.keys(params().sparseVectors ?? {})).toEqual(['bm25', 'x']);
    });
  });

  describe('delete', () => {
    it('should drop the data first, under the catalog lock, then forget the name', async () => {
      const seen: string[] = [];
      let concurrent: Promise<boolean> | undefined;
      const removed = await names.delete({ collectionName: 'c', vectorName: 'text' }, async (record) => {
        // Still listed while its data goes, and no other change can come in between.
        seen.push(Object.keys((record.config.params.vectors as { paramsMap: object }).paramsMap).join());
        concurrent = collections.create({ name: 'other' });
        await new Promise((resolve) => setTimeout(resolve, 20));
        seen.push(String(catalog.snapshot.collections.has('other')));
      });
      expect(removed).toBe(true);
      expect(seen).toEqual(['text', 'false']);
      expect(params().vectors).toEqual({ paramsMap: {} });
      expect(await concurrent).toBe(true);
    });

    it('should remove a sparse vector', async () => {
      expect(await names.delete({ collectionName: 'c', vectorName: 'bm25' })).toBe(true);
      expect(params().sparseVectors).toEqual({});
    });

    it('should change nothing when dropping the data fails', async () => {
      const error = await names
        .delete({ collectionName: 'c', vectorName: 'text' }, async () => {
          throw new Error('disk full');
        })
        .catch((e: Error) => e);
      expect((error as Error).message).toBe('disk full');
      expect(Object.keys((params().vectors as { paramsMap: object }).paramsMap)).toEqual(['text']);
    });

    it('should answer false without dropping anything for a name the collection does not have', async () => {
      let called = false;
      expect(await names.delete({ collectionName: 'c', vectorName: 'nope' }, async () => void (called = true))).toBe(
        false,
      );
      expect(called).toBe(false);
    });

    it('should refuse the unnamed vector and answer NOT_FOUND for a missing collection', async () => {
      const unnamed = await rejectionOf(names.delete({ collectionName: 'c', vectorName: '' }));
      expect(unnamed.message).toBe(
        'Validation error in body: [vector_name: the unnamed (default) vector cannot be deleted]',
      );
      expect((await rejectionOf(names.delete({ collectionName: 'missing', vectorName: 'x' }))).kind).toBe(
        ErrorKind.NotFound,
      );
      expect((await rejectionOf(names.delete({ collectionName: 'c', vectorName: 'x'.repeat(201) }))).message).toContain(
        'at most 200 bytes',
      );
    });
  });
});
