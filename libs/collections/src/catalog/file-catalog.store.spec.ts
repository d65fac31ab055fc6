import { DamagedFileError } from '@vectorstore/common';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CollectionRecord } from '../model/collection.model';
import { makeTempDir, removeTempDir } from '../testing/collections-fixtures';
import { CatalogState, emptyCatalog } from './catalog-state';
import { FileCatalogStore } from './file-catalog.store';

function record(name: string, shardNumber = 1): CollectionRecord {
  return {
    id: `id-${name}`,
    name,
    createdAt: '2024-01-01T00:00:00.000Z',
    config: {
      params: {
        shardNumber,
        onDiskPayload: true,
        vectors: { paramsMap: {} },
        replicationFactor: 1,
        writeConsistencyFactor: 1,
      },
      hnswConfig: {},
      optimizerConfig: {},
      walConfig: {},
      metadata: { big: 2n ** 64n + 1n },
    },
    shards: [{ shardId: 0 }],
    nextShardId: 1,
  } as unknown as CollectionRecord;
}

function stateWith(...names: string[]): CatalogState {
  const state = emptyCatalog();
  for (const name of names) state.collections.set(name, record(name));
  return state;
}

/** Changes the first digit after `from` to another digit: the JSON stays valid, its content does not. */
function changeDigit(file: string, from = 0): void {
  const text = fs.readFileSync(file, 'utf8');
  const at = text.slice(from).search(/[0-9]/) + from;
  fs.writeFileSync(
    file,
    text.slice(0, at) + (text[at] === '9' ? '8' : String(Number(text[at]) + 1)) + text.slice(at + 1),
  );
}

describe(`${FileCatalogStore.name} checksums`, () => {
  let dir: string;
  let catalog: string;
  let copy: string;

  beforeEach(() => {
    dir = makeTempDir('vs-catalog-sum-');
    catalog = path.join(dir, 'catalog.json');
    copy = path.join(dir, 'catalog.copy.json');
  });

  afterEach(() => {
    removeTempDir(dir);
  });

  it('should write the catalog and an identical copy, each with a checksum', async () => {
    await new FileCatalogStore(dir).save(stateWith('a'));

    const text = fs.readFileSync(catalog, 'utf8');
    expect(fs.readFileSync(copy, 'utf8')).toBe(text);
    expect((JSON.parse(text) as { checksum: string }).checksum).toMatch(/^crc32:[0-9a-f]{8}$/);
  });

  it.each([
    ['a changed digit', () => changeDigit(catalog, 100)],
    ['a torn write', () => fs.truncateSync(catalog, 40)],
    ['an empty file', () => fs.writeFileSync(catalog, '')],
    ['a missing catalog beside its copy', () => fs.rmSync(catalog)],
  ])('should recover the catalog from its copy after %s, and repair it', async (_case, damage) => {
    const state = stateWith('a', 'b');
    await new FileCatalogStore(dir).save(state);
    damage();

    await expect(new FileCatalogStore(dir).load()).resolves.toEqual(state);
    expect(fs.readFileSync(catalog, 'utf8')).toBe(fs.readFileSync(copy, 'utf8'));
  });

  it('should refuse to load, naming the catalog, when it and its copy are damaged, and remove nothing', async () => {
    await new FileCatalogStore(dir).save(stateWith('a'));
    changeDigit(catalog, 100);
    fs.truncateSync(copy, 40);

    const load = new FileCatalogStore(dir).load();
    await expect(load).rejects.toBeInstanceOf(DamagedFileError);
    await expect(load).rejects.toThrow(`${catalog} is damaged: checksum mismatch (crc32:`);
    await expect(load).rejects.toThrow(`${copy} is damaged too, so the server did not start`);
    await expect(load).rejects.toMatchObject({ stack: expect.not.stringMatching(/\n\s+at /) });
    expect(fs.readdirSync(dir).sort()).toEqual(['catalog.copy.json', 'catalog.json']);
  });

  it('should refuse a damaged catalog without a copy (written by an older version) rather than start empty', async () => {
    fs.writeFileSync(catalog, '{"version": 1, "collections": [');

    await expect(new FileCatalogStore(dir).load()).rejects.toThrow(
      /catalog\.json is damaged: not valid JSON .*there is no catalog\.copy\.json beside it/,
    );
  });

  it('should read a catalog written before checksums, and seal it with a copy at once', async () => {
    fs.writeFileSync(
      catalog,
      JSON.stringify({ version: 1, collections: [], aliases: [{ aliasName: 'x', collectionName: 'y' }] }),
    );

    const state = await new FileCatalogStore(dir).load();

    expect(state?.aliases.get('x')).toBe('y');
    expect((JSON.parse(fs.readFileSync(catalog, 'utf8')) as { checksum?: string }).checksum).toMatch(/^crc32:/);
    expect(fs.existsSync(copy)).toBe(true);
  });

  it('should remove the copy when the catalog retires, so that it cannot come back', async () => {
    const store = new FileCatalogStore(dir);
    await store.save(stateWith('a'));

    await store.retire();

    expect(fs.readdirSync(dir)).toEqual(['catalog.standalone.json']);
    await expect(new FileCatalogStore(dir).load()).resolves.toBeUndefined();
  });
});
