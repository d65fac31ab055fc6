// A cluster backup restored on a standalone server (B7): the collection is assembled from all its shards and handed
// to CollectionSnapshots.restore, which swaps it in with one catalog change; a shard that cannot be restored leaves
// the collection of that name as it was (it used to be replaced first by an empty one, Active, filled shard by shard).
import {
  AliasesService,
  CatalogState,
  CatalogStore,
  CollectionCatalog,
  CollectionRecord,
  emptyCatalog,
} from '@vectorstore/collections';
import { ErrorKind } from '@vectorstore/common';
import type { AppConfig } from '@vectorstore/config';
import type { CollectionSnapshots } from '@vectorstore/points';
import { Logger } from '@nestjs/common';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  domainErrorOf,
  listTree,
  makeTempDir,
  manifestEntry,
  manifestFor,
  removeTempDir,
  sha256,
  TAR_END,
  tarEntry,
  writeArchive,
} from '../testing/snapshot-fixtures';
import { CLUSTER_BACKUP_FILE, CLUSTER_BACKUP_FORMAT, CLUSTER_BACKUP_VERSION } from './cluster-backup-manifest';
import { ClusterRestores } from './cluster-restores.service';
import type { ShardRecovery } from './shard-recovery';

type File = { path: string; data: Buffer | string };

function archiveOf(files: File[], overrides: Record<string, unknown>): Buffer {
  return Buffer.concat([
    manifestEntry(manifestFor(files, overrides)),
    ...files.map((file) => tarEntry({ path: file.path, data: file.data })),
    TAR_END,
  ]);
}

const config = {
  params: {
    shardNumber: 2,
    onDiskPayload: true,
    vectors: { params: { size: 4, distance: 'Cosine' } },
    replicationFactor: 1,
    writeConsistencyFactor: 1,
  },
  hnswConfig: { m: 16, efConstruct: 100, fullScanThreshold: 10000, maxIndexingThreads: 0, onDisk: false },
  optimizerConfig: { deletedThreshold: 0.2, vacuumMinVectorNumber: 1000, maxOptimizationThreads: { setting: 'Auto' } },
  walConfig: { walCapacityMb: 32, walSegmentsAhead: 0, walRetainClosed: 1 },
  metadata: {},
} as unknown as CollectionRecord['config'];

function recordOf(shardIds: number[], id = 'backed-up'): CollectionRecord {
  return {
    id,
    name: 'c',
    createdAt: '2026-01-01T00:00:00.000Z',
    config,
    shards: shardIds.map((shardId) => ({ shardId, state: 'Active' as const })),
    shardKeys: [],
    nextShardId: Math.max(...shardIds) + 1,
  };
}

/** A shard snapshot archive of shard `shardId` of `c` (kind `kind`), holding one data file. */
function shardArchive(shardId: number, kind = 'shard'): Buffer {
  const files = [
    { path: 'collection/config.json', data: JSON.stringify({ record: recordOf([shardId]), aliases: [] }) },
    { path: `collection/shards/${shardId}/data.bin`, data: `points of shard ${shardId}` },
  ];
  return archiveOf(
    files,
    kind === 'shard' ? { kind, collections: ['c'], shard_id: shardId } : { kind, collections: ['c'] },
  );
}

/** A cluster backup of `c` with shards 0 and 1, whose shard 1 archive is `shard1`. */
function clusterBackup(shard1: Buffer): Buffer {
  const shardFiles = [
    { path: 'collections/0/shards/0.snapshot', data: shardArchive(0) },
    { path: 'collections/0/shards/1.snapshot', data: shard1 },
  ];
  const backup = {
    format: CLUSTER_BACKUP_FORMAT,
    version: CLUSTER_BACKUP_VERSION,
    created_at: '2026-01-01T00:00:00.000Z',
    made_by: '1',
    peers: [{ peer_id: '1', uri: '' }],
    collections: [
      {
        name: 'c',
        record: recordOf([0, 1]),
        aliases: [],
        shards: shardFiles.map((file, shardId) => ({
          shard_id: shardId,
          from_peer: '1',
          taken_at: '',
          file: file.path,
          size: file.data.length,
          sha256: sha256(file.data),
        })),
      },
    ],
  };
  return archiveOf([{ path: CLUSTER_BACKUP_FILE, data: JSON.stringify(backup) }, ...shardFiles], {
    kind: 'cluster',
    collections: ['c'],
  });
}

class MemoryCatalogStore implements CatalogStore {
  constructor(private state: CatalogState) {}
  async load(): Promise<CatalogState> {
    return structuredClone(this.state);
  }
  async save(state: CatalogState): Promise<void> {
    this.state = structuredClone(state);
  }
}

describe('ClusterRestores on a standalone server', () => {
  let dir: string;
  let catalog: CollectionCatalog;
  let restored: { name: string; tree: string[]; record: CollectionRecord } | undefined;
  let restores: ClusterRestores;
  const old = { ...recordOf([0]), id: 'old' };

  beforeEach(async () => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    dir = makeTempDir('cluster-restores-');
    fs.mkdirSync(path.join(dir, 'tmp'));
    const state = emptyCatalog();
    state.collections.set('c', old);
    catalog = new CollectionCatalog(new MemoryCatalogStore(state));
    await catalog.load();
    restored = undefined;
    const collections = {
      restore: async (name: string, tree: string) => {
        const { record } = JSON.parse(fs.readFileSync(path.join(tree, 'config.json'), 'utf8'));
        restored = { name, tree: listTree(tree), record };
      },
    } as unknown as CollectionSnapshots;
    restores = new ClusterRestores(
      { snapshotsDir: dir } as AppConfig,
      catalog,
      {} as AliasesService,
      {} as ShardRecovery,
      collections,
      '1',
    );
  });

  afterEach(() => {
    removeTempDir(dir);
    jest.restoreAllMocks();
  });

  it('hands the whole collection, every shard in it, to one collection restore', async () => {
    const archive = path.join(dir, 'backup.snapshot');
    writeArchive(archive, clusterBackup(shardArchive(1)));

    await expect(restores.restore(archive, undefined, true)).resolves.toEqual(['c']);

    expect(restored).toEqual({
      name: 'c',
      tree: ['config.json', 'shards/', 'shards/0/', 'shards/0/data.bin', 'shards/1/', 'shards/1/data.bin'],
      record: expect.objectContaining({
        name: 'c',
        config,
        shards: [
          { shardId: 0, state: 'Active' },
          { shardId: 1, state: 'Active' },
        ],
      }),
    });
    // The catalog changes only through that restore; no work folder is left.
    expect(catalog.snapshot.collections.get('c')).toEqual(old);
    expect(fs.readdirSync(path.join(dir, 'tmp'))).toEqual([]);
  });

  it('leaves the collection of that name as it was when a shard cannot be restored', async () => {
    const archive = path.join(dir, 'backup.snapshot');
    writeArchive(archive, clusterBackup(shardArchive(1, 'full')));

    const error = await domainErrorOf(restores.restore(archive, undefined, true));

    expect(error.kind).toBe(ErrorKind.InvalidArgument);
    expect(error.message).toContain('a full snapshot cannot restore a shard');
    expect(restored).toBeUndefined();
    expect(catalog.snapshot.collections.get('c')).toEqual(old);
    expect(fs.readdirSync(path.join(dir, 'tmp'))).toEqual([]);
  });
});
