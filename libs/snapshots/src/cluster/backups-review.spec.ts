// Review of cluster backups (h/backups, issue 29 item 1): defects found by reading, kept as failing specs until fixed.
import { DomainError, ErrorKind } from '@vectorstore/common';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AliasesService, ClusterMembership, CollectionCatalog } from '@vectorstore/collections';
import type { AppConfig } from '@vectorstore/config';
import type { CollectionSnapshots } from '@vectorstore/points';
import { SnapshotsService } from '../snapshots.service';
import { CLUSTER_BACKUP_FILE, readClusterBackupManifest } from './cluster-backup-manifest';
import type { ClusterBackups } from './cluster-backups.service';
import type { ClusterRestores } from './cluster-restores.service';
import type { CollectionRecovery } from './collection-recovery';
import type { ShardRecovery } from './shard-recovery';

const SHARD_FILE = 'collections/0/shards/0.snapshot';
const SHA = 'a'.repeat(64);
const files = new Map([[SHARD_FILE, { size: 10, sha256: SHA }]]);

/** A backup.json of one collection `c` with one shard, with `aliases` and its config's `vectors` as given. */
function backupJson(aliases: unknown[], vectors: Record<string, unknown>): string {
  return JSON.stringify({
    format: 'vectorstore-cluster-backup',
    version: 1,
    created_at: '2026-01-01T00:00:00.000Z',
    made_by: '1',
    peers: [{ peer_id: '1', uri: '' }],
    collections: [
      {
        name: 'c',
        record: {
          id: 'x',
          name: 'c',
          createdAt: '2026-01-01T00:00:00.000Z',
          config: {
            params: { shardNumber: 1, onDiskPayload: true, vectors, replicationFactor: 1, writeConsistencyFactor: 1 },
            hnswConfig: { m: 16, efConstruct: 100, fullScanThreshold: 10000, maxIndexingThreads: 0, onDisk: false },
            optimizerConfig: {
              deletedThreshold: 0.2,
              vacuumMinVectorNumber: 1000,
              maxOptimizationThreads: { setting: 'Auto' },
            },
            walConfig: { walCapacityMb: 32, walSegmentsAhead: 0, walRetainClosed: 1 },
            metadata: {},
          },
          shards: [{ shardId: 0, state: 'Active', peerId: '1' }],
          shardKeys: [],
          nextShardId: 1,
        },
        aliases,
        shards: [{ shard_id: 0, from_peer: '1', taken_at: '', file: SHARD_FILE, size: 10, sha256: SHA }],
      },
    ],
  });
}

async function refusalOf(json: string): Promise<unknown> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'backup-review-'));
  try {
    await fs.writeFile(path.join(dir, CLUSTER_BACKUP_FILE), json);
    await readClusterBackupManifest(dir, files);
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

const goodVectors = { params: { size: 4, distance: 'Cosine' } };

describe('cluster backup manifest (review)', () => {
  it('accepts a well-formed backup.json (the fixture is sound)', async () => {
    expect(await refusalOf(backupJson(['prod'], goodVectors))).toBeUndefined();
  });

  // B2: readClusterBackupManifest checks aliases only as strings. ClusterRestores.restore replaces every collection
  // (restoreCollection) before AliasesService.update validates the alias names, so a backup naming an invalid alias
  // is refused only after the existing collections were replaced: not "checked before anything changes".
  it('refuses a backup whose aliases are not alias names before anything is restored', async () => {
    const error = await refusalOf(backupJson(['bad/alias', ''], goodVectors));

    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe(ErrorKind.InvalidArgument);
  });

  // B3 (fixed): the record's config was taken as-is (only `config.params` had to be an object): a config no
  // collection could be created with went into the catalog, replacing the collection of that name, and the restore
  // failed later. It is now checked by the create-collection rules while the manifest is read.
  it('refuses a backup whose collection config is invalid before anything is restored', async () => {
    const error = await refusalOf(backupJson([], { params: { size: -5, distance: 'Bogus' } }));

    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).kind).toBe(ErrorKind.InvalidArgument);
    expect((error as DomainError).message).toContain('collection "c"');
    expect((error as DomainError).message).toContain('vectors_config.params.size: value -5 invalid');
    expect((error as DomainError).message).toContain('vectors_config.params.distance: value Bogus invalid');
  });

  it('refuses a backup whose collection config breaks a create rule outside the vectors', async () => {
    const json = JSON.parse(backupJson([], goodVectors));
    json.collections[0].record.config.params.shardNumber = 0;
    json.collections[0].record.config.hnswConfig.efConstruct = 1;

    const error = (await refusalOf(JSON.stringify(json))) as DomainError;

    expect(error.kind).toBe(ErrorKind.InvalidArgument);
    expect(error.message).toContain('shard_number: value 0 invalid');
    expect(error.message).toContain('hnsw_config.ef_construct: value 1 invalid');
  });

  it('refuses a backup whose collection config is not shaped as one, as invalid rather than failing', async () => {
    const error = (await refusalOf(backupJson([], { size: 4, distance: 'Cosine' }))) as DomainError;

    expect(error).toBeInstanceOf(DomainError);
    expect(error.kind).toBe(ErrorKind.InvalidArgument);
    expect(error.message).toContain('params.vectors');
  });
});

describe('shard snapshot upload priority (review)', () => {
  // B5: PUT .../snapshots/recover checks `priority` (checkPriority, snapshots.service.ts:267), but the uploads
  // (POST /collections/{c}/shards/{s}/snapshots/upload?priority=…, and /collections/{c}/snapshots/upload) pass the
  // query value unchecked (shard-snapshots.http.controller.ts:189, snapshots.http.controller.ts:92;
  // restoreShardArchive and restoreArchive never call checkPriority). An unknown priority such as `?priority=bogus`
  // is then recovered as if it were `no_sync` (settleRecovery: neither `replica` nor `snapshot`) and answered 200,
  // where Qdrant answers 400 for an unknown variant.
  it('refuses an unknown priority on a shard snapshot upload, before recovering anything', async () => {
    const recoverFromArchive = jest.fn().mockResolvedValue(undefined);
    const record = { name: 'c', shards: [{ shardId: 0, state: 'Active', peerId: '1' }] };
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'backup-review-'));
    try {
      const service = new SnapshotsService(
        { snapshotsDir: dir, dataDir: dir } as AppConfig,
        { require: () => record } as unknown as CollectionCatalog,
        {} as CollectionSnapshots,
        '1',
        {} as AliasesService,
        { assertLocal: () => undefined, recoverFromArchive } as unknown as ShardRecovery,
        {} as CollectionRecovery,
        {} as ClusterBackups,
        {} as ClusterRestores,
        {} as ClusterMembership,
      );

      const outcome = service.restoreShardArchive(
        'c',
        0,
        path.join(dir, 'x.snapshot'),
        undefined,
        false,
        'bogus' as never,
      );

      await expect(outcome).rejects.toMatchObject({ kind: ErrorKind.InvalidArgument });
      expect(recoverFromArchive).not.toHaveBeenCalled();
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
