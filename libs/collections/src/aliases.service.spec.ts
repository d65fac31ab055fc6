import { DomainError, ErrorKind } from '@vectorstore/common';
import { AliasesService } from './aliases.service';
import { CollectionCatalog } from './catalog/collection-catalog';
import { CollectionsService } from './collections.service';
import { collectionsFixture, openCatalog, rejectionOf, removeTempDir } from './testing/collections-fixtures';

describe(AliasesService.name, () => {
  let dir: string;
  let catalog: CollectionCatalog;
  let collections: CollectionsService;
  let aliases: AliasesService;

  beforeEach(async () => {
    ({ dir, catalog, collections } = await collectionsFixture('vs-aliases-'));
    aliases = new AliasesService(catalog);
    await collections.create({ name: 'a', vectors: { params: { size: 2, distance: 'Dot' } } });
    await collections.create({ name: 'b', vectors: { params: { size: 2, distance: 'Dot' } } });
  });

  afterEach(() => {
    removeTempDir(dir);
  });

  describe('update', () => {
    it('should create an alias and return true', async () => {
      await expect(aliases.update([{ createAlias: { collectionName: 'a', aliasName: 'al' } }])).resolves.toBe(true);

      expect(aliases.list()).toEqual([{ aliasName: 'al', collectionName: 'a' }]);
      expect(catalog.resolve('al')?.name).toBe('a');
    });

    it('should re-point an existing alias', async () => {
      await aliases.update([{ createAlias: { collectionName: 'a', aliasName: 'al' } }]);

      await aliases.update([{ createAlias: { collectionName: 'b', aliasName: 'al' } }]);

      expect(aliases.list()).toEqual([{ aliasName: 'al', collectionName: 'b' }]);
    });

    it('should answer NotFound when the target collection is missing', async () => {
      const error = await rejectionOf(aliases.update([{ createAlias: { collectionName: 'nope', aliasName: 'al' } }]));

      expect(error.kind).toBe(ErrorKind.NotFound);
      expect(error.message).toBe("Not found: Collection `nope` doesn't exist!");
    });

    it('should not accept an alias as the target collection', async () => {
      await aliases.update([{ createAlias: { collectionName: 'a', aliasName: 'al' } }]);

      expect(
        (await rejectionOf(aliases.update([{ createAlias: { collectionName: 'al', aliasName: 'al2' } }]))).kind,
      ).toBe(ErrorKind.NotFound);
    });

    it('should answer AlreadyExists for an alias named like a collection', async () => {
      const error = await rejectionOf(aliases.update([{ createAlias: { collectionName: 'a', aliasName: 'b' } }]));

      expect(error.kind).toBe(ErrorKind.AlreadyExists);
      expect(error.message).toBe('Wrong input: Collection `b` already exists!');
    });

    it('should rename an alias', async () => {
      await aliases.update([{ createAlias: { collectionName: 'a', aliasName: 'old' } }]);

      await aliases.update([{ renameAlias: { oldAliasName: 'old', newAliasName: 'new' } }]);

      expect(aliases.list()).toEqual([{ aliasName: 'new', collectionName: 'a' }]);
      expect(collections.exists('old')).toBe(false);
    });

    it("should answer NotFound in Qdrant's wording when renaming a missing alias", async () => {
      const error = await rejectionOf(aliases.update([{ renameAlias: { oldAliasName: 'X', newAliasName: 'Y' } }]));

      expect(error.kind).toBe(ErrorKind.NotFound);
      expect(error.message).toBe('Not found: Alias X does not exists!');
    });

    it('should answer AlreadyExists when renaming onto a collection name', async () => {
      await aliases.update([{ createAlias: { collectionName: 'a', aliasName: 'al' } }]);

      const error = await rejectionOf(aliases.update([{ renameAlias: { oldAliasName: 'al', newAliasName: 'b' } }]));

      expect(error.kind).toBe(ErrorKind.AlreadyExists);
      expect(aliases.list()).toEqual([{ aliasName: 'al', collectionName: 'a' }]);
    });

    it('should delete an alias and keep its collection', async () => {
      await aliases.update([{ createAlias: { collectionName: 'a', aliasName: 'al' } }]);

      await aliases.update([{ deleteAlias: { aliasName: 'al' } }]);

      expect(aliases.list()).toEqual([]);
      expect(collections.list()).toEqual(['a', 'b']);
    });

    it('should succeed when deleting a missing alias', async () => {
      await expect(aliases.update([{ deleteAlias: { aliasName: 'missing' } }])).resolves.toBe(true);
    });

    it('should apply the actions in order', async () => {
      await aliases.update([
        { createAlias: { collectionName: 'a', aliasName: 'x' } },
        { renameAlias: { oldAliasName: 'x', newAliasName: 'y' } },
        { createAlias: { collectionName: 'b', aliasName: 'x' } },
      ]);

      expect(aliases.list()).toEqual([
        { aliasName: 'x', collectionName: 'b' },
        { aliasName: 'y', collectionName: 'a' },
      ]);
    });

    it('should apply none of the actions when a later one fails', async () => {
      await aliases.update([{ createAlias: { collectionName: 'a', aliasName: 'keep' } }]);

      const error = await rejectionOf(
        aliases.update([
          { createAlias: { collectionName: 'a', aliasName: 'first' } },
          { deleteAlias: { aliasName: 'keep' } },
          { createAlias: { collectionName: 'missing', aliasName: 'second' } },
        ]),
      );

      expect(error.kind).toBe(ErrorKind.NotFound);
      expect(aliases.list()).toEqual([{ aliasName: 'keep', collectionName: 'a' }]);
    });

    it('should validate every action before applying any', async () => {
      const error = await rejectionOf(
        aliases.update([
          { createAlias: { collectionName: 'a', aliasName: 'ok' } },
          { createAlias: { collectionName: 'a', aliasName: 'bad/alias' } },
          { deleteAlias: { aliasName: '' } },
        ]),
      );

      expect(error.kind).toBe(ErrorKind.InvalidArgument);
      expect(error.message).toContain('actions[1].create_alias.alias_name');
      expect(error.message).toContain('actions[2].delete_alias.alias_name');
      expect(aliases.list()).toEqual([]);
    });

    it('should reject timeout 0', async () => {
      expect((await rejectionOf(aliases.update([], 0))).message).toContain('timeout');
    });

    it('should persist aliases', async () => {
      await aliases.update([{ createAlias: { collectionName: 'a', aliasName: 'al' } }]);

      const reopened = await openCatalog(dir);

      expect(new AliasesService(reopened).list()).toEqual([{ aliasName: 'al', collectionName: 'a' }]);
    });

    it('should answer NotFound when the target is named like an Object.prototype key', async () => {
      const error = await rejectionOf(
        aliases.update([{ createAlias: { collectionName: 'constructor', aliasName: 'al' } }]),
      );

      expect(error.kind).toBe(ErrorKind.NotFound);
    });

    it('should answer NotFound when renaming a missing alias named like an Object.prototype key', async () => {
      const error = await rejectionOf(
        aliases.update([{ renameAlias: { oldAliasName: 'toString', newAliasName: 'y' } }]),
      );

      expect(error.kind).toBe(ErrorKind.NotFound);
    });
  });

  describe('list', () => {
    it('should list every alias sorted by alias name', async () => {
      await aliases.update([
        { createAlias: { collectionName: 'b', aliasName: 'z' } },
        { createAlias: { collectionName: 'a', aliasName: 'm' } },
        { createAlias: { collectionName: 'a', aliasName: 'c' } },
      ]);

      expect(aliases.list().map((alias) => alias.aliasName)).toEqual(['c', 'm', 'z']);
    });
  });

  describe('listFor', () => {
    it("should list only that collection's aliases", async () => {
      await aliases.update([
        { createAlias: { collectionName: 'a', aliasName: 'a1' } },
        { createAlias: { collectionName: 'b', aliasName: 'b1' } },
        { createAlias: { collectionName: 'a', aliasName: 'a2' } },
      ]);

      expect(aliases.listFor('a')).toEqual([
        { aliasName: 'a1', collectionName: 'a' },
        { aliasName: 'a2', collectionName: 'a' },
      ]);
    });

    it('should return an empty list for an unknown collection', () => {
      expect(aliases.listFor('unknown')).toEqual([]);
    });

    it('should reject an invalid collection name', () => {
      expect(() => aliases.listFor('')).toThrow(DomainError);
    });
  });
});
