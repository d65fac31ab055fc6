import {
  CollectionCatalog,
  CollectionsService,
  EmptyCollectionStatsProvider,
  FileCatalogStore,
  VectorNamesService,
} from '@vectorstore/collections';
import { DomainError } from '@vectorstore/common';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { NamedVectors } from '../model/vectors.model';
import { PointsStorage } from '../storage/points-storage';
import { WriteAheadLog } from '../wal/write-ahead-log';
import { CollectionContexts } from './collection-context';
import { PointsReader } from './points-reader';
import { PointsWriter } from './points-writer';
import { VectorNameOperations } from './vector-names';

const dense = (...values: number[]) => ({ kind: 'dense' as const, values: Float32Array.from(values) });

/** Catalog, storage and services over one data folder, as the server wires them. */
async function open(dir: string) {
  const catalog = new CollectionCatalog(new FileCatalogStore(dir));
  await catalog.load();
  const storage = new PointsStorage(catalog, dir, (options) => WriteAheadLog.open(options), '1');
  await storage.onModuleInit();
  const contexts = new CollectionContexts(catalog, storage);
  const reader = new PointsReader(contexts);
  return {
    storage,
    collections: new CollectionsService(catalog, new EmptyCollectionStatsProvider()),
    names: new VectorNameOperations(contexts, new VectorNamesService(catalog), catalog),
    writer: new PointsWriter(contexts),
    reader,
    contexts,
    close: () => storage.onApplicationShutdown(),
  };
}

type Opened = Awaited<ReturnType<typeof open>>;

describe(VectorNameOperations.name, () => {
  let dir: string;
  let db: Opened;

  const upsert = (id: number, vectors: NamedVectors) =>
    db.writer.update('c', {
      operation: { upsert: { points: [{ id: BigInt(id), vectors, payload: { id } }] } },
      wait: true,
    });
  const vectorsOf = async (ids: number[]) =>
    db.reader
      .get('c', { ids: ids.map(BigInt), withPayload: { enable: false }, withVectors: { enable: true } })
      .map((p) =>
        Object.fromEntries(
          Object.entries(p.vectors ?? {}).map(([name, v]) => [name, v.kind === 'dense' ? [...v.values] : v]),
        ),
      );
  const reopen = async () => {
    await db.close();
    db = await open(dir);
  };

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vs-vector-names-'));
    db = await open(dir);
    await db.collections.create({
      name: 'c',
      vectors: { paramsMap: { a: { size: 2, distance: 'Dot' } } },
      shardNumber: 2,
    });
    for (let id = 1; id <= 6; id++) await upsert(id, { a: dense(id, 1) });
  });

  afterEach(async () => {
    await db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('create', () => {
    it('should give the segment taking writes a store for the new name, keeping every point', async () => {
      expect(
        await db.names.create(
          { collectionName: 'c', vectorName: 'b', config: { dense: { size: 3, distance: 'Euclid' } } },
          true,
        ),
      ).toBe('Completed');
      expect(await vectorsOf([1, 6])).toEqual([{ a: [1, 1] }, { a: [6, 1] }]);
      await db.writer.update('c', {
        operation: { updateVectors: { points: [{ id: 2n, vectors: { b: dense(1, 2, 3) } }] } },
        wait: true,
      });
      await upsert(7, { b: dense(0, 0, 1) });
      expect(await vectorsOf([2, 7])).toEqual([{ a: [2, 1], b: [1, 2, 3] }, { b: [0, 0, 1] }]);
      await reopen();
      expect(await vectorsOf([2, 7, 3])).toEqual([{ a: [2, 1], b: [1, 2, 3] }, { b: [0, 0, 1] }, { a: [3, 1] }]);
    });

    it('should answer Acknowledged without wait, after the change is made', async () => {
      expect(await db.names.create({ collectionName: 'c', vectorName: 'b', config: { sparse: {} } }, false)).toBe(
        'Acknowledged',
      );
      expect([...db.contexts.resolve('c').storage.spaces.keys()].sort()).toEqual(['a', 'b']);
    });
  });

  describe('delete', () => {
    beforeEach(async () => {
      // The points move to sealed segments (as the optimizer leaves them), written to disk.
      const storage = db.storage.openStorages()[0];
      for (const handle of storage.shards.values()) handle.shard.rollActiveSegment();
      await storage.flush();
    });

    it('should drop the vectors at once, and refuse writes naming it', async () => {
      await db.names.create(
        { collectionName: 'c', vectorName: 'b', config: { dense: { size: 1, distance: 'Dot' } } },
        true,
      );
      await upsert(1, { a: dense(1, 1), b: dense(5) });
      expect(await db.names.delete({ collectionName: 'c', vectorName: 'a' }, true)).toBe('Completed');
      expect(await vectorsOf([1, 2])).toEqual([{ b: [5] }, {}]);
      await expect(upsert(3, { a: dense(1, 1) })).rejects.toThrow(DomainError);
    });

    it('should leave no old vector on disk for a new vector of the same name, even with a flush under way', async () => {
      await upsert(6, { a: dense(6, 6) }); // a change, so the next flush has work to do
      const flushing = db.storage.openStorages()[0].flush();
      await db.names.delete({ collectionName: 'c', vectorName: 'a' }, true);
      await flushing;
      await db.names.create(
        { collectionName: 'c', vectorName: 'a', config: { dense: { size: 3, distance: 'Dot' } } },
        true,
      );
      expect(await vectorsOf([1, 2, 3, 4, 5, 6])).toEqual([{}, {}, {}, {}, {}, {}]);
      await reopen();
      expect(await vectorsOf([1, 2, 3, 4, 5, 6])).toEqual([{}, {}, {}, {}, {}, {}]);
      await upsert(1, { a: dense(1, 2, 3) });
      expect(await vectorsOf([1])).toEqual([{ a: [1, 2, 3] }]);
    });

    it('should stay deleted after a restart that replays the log', async () => {
      await upsert(9, { a: dense(9, 9) }); // logged after the last flush
      await db.names.delete({ collectionName: 'c', vectorName: 'a' }, true);
      await reopen();
      expect([...db.contexts.resolve('c').storage.spaces.keys()]).toEqual([]);
      expect(await vectorsOf([1, 9])).toEqual([{}, {}]);
    });
  });

  it('should let writes validated against the old names finish before a delete and re-create, so no shard turns Red', async () => {
    await db.names.create(
      { collectionName: 'c', vectorName: 'b', config: { dense: { size: 2, distance: 'Dot' } } },
      true,
    );
    const operations = Array.from({ length: 300 }, (_, i) => ({
      upsert: { points: [{ id: BigInt(100 + i), vectors: { a: dense(1, 1), b: dense(i, 1) }, payload: {} }] },
    }));
    const batch = db.writer.updateBatch('c', operations, { wait: true }).then(
      () => 'ok',
      (e: Error) => e.message,
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    await db.names.delete({ collectionName: 'c', vectorName: 'b' }, true);
    await db.names.create(
      { collectionName: 'c', vectorName: 'b', config: { dense: { size: 3, distance: 'Euclid' } } },
      true,
    );
    expect(await batch).toBe('ok');
    const shards = () => [...db.contexts.resolve('c').storage.shards.values()].map((handle) => handle.shard);
    expect(shards().map((shard) => shard.failure)).toEqual([undefined, undefined]);
    // the batch finished before the delete: its vectors of the old `b` went with it
    expect(await vectorsOf([399])).toEqual([{ a: [1, 1] }]);
    await reopen();
    expect(shards().map((shard) => shard.failure)).toEqual([undefined, undefined]);
    expect(await vectorsOf([399])).toEqual([{ a: [1, 1] }]);
  });

  it('should re-create a deleted name once the builds running at the delete end, not wait for later ones', async () => {
    await db.names.create(
      { collectionName: 'c', vectorName: 'b', config: { dense: { size: 2, distance: 'Dot' } } },
      true,
    );
    const shard = [...db.contexts.resolve('c').storage.shards.values()][0].shard;
    shard.reserveBuild('before-delete');
    await db.names.delete({ collectionName: 'c', vectorName: 'b' }, true);
    shard.reserveBuild('after-delete');
    let created = false;
    const create = db.names
      .create({ collectionName: 'c', vectorName: 'b', config: { dense: { size: 3, distance: 'Dot' } } }, true)
      .then(() => (created = true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(created).toBe(false);
    await shard.releaseBuild('before-delete', false);
    await create;
    expect(created).toBe(true);
    await shard.releaseBuild('after-delete', false);
  });
});
