import { Logger } from '@nestjs/common';
import {
  CollectionCatalog,
  CollectionRecord,
  CollectionsService,
  EmptyCollectionStatsProvider,
  FileCatalogStore,
  ShardRecord,
} from '@vectorstore/collections';
import { DamagedFileError } from '@vectorstore/common';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WriteAheadLog } from '../../wal/write-ahead-log';
import { CollectionStorage } from './collection-storage';
import { canSetAside } from './damaged-replicas';

const replica = (peerId: string | undefined, state: ShardRecord['state'], shardId = 0): ShardRecord => ({
  shardId,
  state,
  ...(peerId === undefined ? {} : { peerId }),
});

describe('canSetAside (a damaged replica refuses its collection, or waits for a copy)', () => {
  it('should never set a standalone shard aside: there is no peer to copy from', () => {
    expect(canSetAside(replica(undefined, 'Active'), [replica(undefined, 'Active')])).toBe(false);
  });

  it('should set a replica aside only when another peer holds a readable replica of the same shard', () => {
    const mine = replica('1', 'Active');
    expect(canSetAside(mine, [mine, replica('2', 'Active')])).toBe(true);
    expect(canSetAside(mine, [mine, replica('2', 'Dead')])).toBe(false);
    expect(canSetAside(mine, [mine, replica('2', 'Partial')])).toBe(false);
    expect(canSetAside(mine, [mine, replica('2', 'Active', 1)])).toBe(false);
    expect(canSetAside(mine, [mine])).toBe(false);
  });

  it('should set a replica aside that waits for a copy anyway, whatever the others', () => {
    for (const state of ['Dead', 'Partial', 'Recovery', 'PartialSnapshot'] as const)
      expect(canSetAside(replica('1', state), [replica('1', state)])).toBe(true);
  });
});

describe('CollectionStorage with a damaged replica (cluster mode)', () => {
  // The set-aside is logged as an error on purpose; the tests check what it does, not the log.
  beforeAll(() => Logger.overrideLogger(false));
  let dir: string;
  let record: CollectionRecord;
  const openLog = (options: Parameters<typeof WriteAheadLog.open>[0]) => WriteAheadLog.open(options);

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vs-damaged-replica-'));
    const catalog = new CollectionCatalog(new FileCatalogStore(dir));
    await catalog.load();
    const collections = new CollectionsService(catalog, new EmptyCollectionStatsProvider());
    await collections.create({
      name: 'c',
      vectors: { paramsMap: { v: { size: 4, distance: 'Dot' as const } } },
      shardNumber: 2,
    });
    record = catalog.require('c');
  });

  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** This peer ('1') holds shards 0 and 1; peer '2' holds shard 0 in `otherState`. */
  const placed = (otherState: ShardRecord['state'] = 'Active') => {
    const mine = { ...record, shards: [replica('1', 'Active', 0), replica('1', 'Active', 1)] };
    return { mine, known: [...mine.shards, replica('2', otherState, 0)] };
  };

  /** Shard 0's manifest is not JSON, and no log is left to rebuild the segments a file name says it held. */
  const damageShard0 = (storage: CollectionStorage) => {
    const shard = storage.shardDir(0);
    fs.mkdirSync(path.join(shard, 'segments'), { recursive: true });
    fs.writeFileSync(path.join(shard, 'manifest.json'), '{"torn');
    fs.writeFileSync(path.join(shard, 'segments', 'x.7.seg'), 'held ops up to 7');
  };

  it('should set the replica aside, naming the file, and open the other shards', async () => {
    const { mine, known } = placed();
    const storage = new CollectionStorage(mine, path.join(dir, 'collections', record.id), openLog);
    damageShard0(storage);

    await storage.reconcile(mine, known);

    expect([...storage.shards.keys()]).toEqual([1]);
    const damage = storage.damaged.get(0);
    expect(damage).toBeInstanceOf(DamagedFileError);
    expect(damage?.message).toMatch(/manifest\.json is damaged/);
    expect(damage?.message).toMatch(/recover this replica from another peer/);
    // A later catalog change does not try (and log) the damaged files again.
    await storage.reconcile(mine, known);
    expect(storage.damaged.get(0)).toBe(damage);
    await storage.close();
  });

  it('should open a set-aside replica afresh when a transfer resets it, its damaged files gone', async () => {
    const { mine, known } = placed();
    const storage = new CollectionStorage(mine, path.join(dir, 'collections', record.id), openLog);
    damageShard0(storage);
    await storage.reconcile(mine, known);

    await storage.resetShard(0);

    expect(storage.damaged.size).toBe(0);
    expect(storage.shards.get(0)?.shard.pointCount).toBe(0);
    expect(fs.existsSync(path.join(storage.shardDir(0), 'segments', 'x.7.seg'))).toBe(false);
    await storage.close();
  });

  it('should discard a set-aside replica the catalog moves off this peer', async () => {
    const { mine, known } = placed();
    const storage = new CollectionStorage(mine, path.join(dir, 'collections', record.id), openLog);
    damageShard0(storage);
    await storage.reconcile(mine, known);

    const moved = { ...mine, shards: mine.shards.filter((s) => s.shardId !== 0) };
    await storage.reconcile(moved, [...moved.shards, replica('2', 'Active', 0)]);

    expect(storage.damaged.size).toBe(0);
    expect(fs.existsSync(storage.shardDir(0))).toBe(false);
    await storage.close();
  });

  it('should refuse the collection, naming the file, when no other peer can give a copy', async () => {
    const { mine, known } = placed('Dead');
    const storage = new CollectionStorage(mine, path.join(dir, 'collections', record.id), openLog);
    damageShard0(storage);

    await expect(storage.reconcile(mine, known)).rejects.toThrow(/manifest\.json is damaged/);
    expect(storage.damaged.size).toBe(0);
    await storage.close();
  });

  it('should keep refusing a reset of a shard that is neither open nor set aside', async () => {
    const { mine, known } = placed();
    const storage = new CollectionStorage(mine, path.join(dir, 'collections', record.id), openLog);
    await storage.reconcile(mine, known);
    await storage.close();
    await expect(storage.resetShard(5)).rejects.toThrow(/shard 5 is not open/);
  });
});
