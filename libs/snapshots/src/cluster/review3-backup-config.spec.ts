// Review of a61332f (B3: a cluster backup's collection configs checked by the create-collection rules).
import { validateCollectionName } from '@vectorstore/collections';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLUSTER_BACKUP_FILE, readClusterBackupManifest } from './cluster-backup-manifest';

const SHARD_FILE = 'collections/0/shards/0.snapshot';
const SHA = 'b'.repeat(64);
const files = new Map([[SHARD_FILE, { size: 10, sha256: SHA }]]);

/** A backup.json of one collection named `name` with one shard and a sound config, as a backup writes it. */
function backupJson(name: string): string {
  return JSON.stringify({
    format: 'vectorstore-cluster-backup',
    version: 1,
    created_at: '2026-01-01T00:00:00.000Z',
    made_by: '1',
    peers: [{ peer_id: '1', uri: '' }],
    collections: [
      {
        name,
        record: {
          id: 'x',
          name,
          createdAt: '2026-01-01T00:00:00.000Z',
          config: {
            params: {
              shardNumber: 1,
              onDiskPayload: true,
              vectors: { params: { size: 4, distance: 'Cosine' } },
              replicationFactor: 1,
              writeConsistencyFactor: 1,
            },
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
        aliases: [],
        shards: [{ shard_id: 0, from_peer: '1', taken_at: '', file: SHARD_FILE, size: 10, sha256: SHA }],
      },
    ],
  });
}

async function refusalOf(json: string): Promise<unknown> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'review3-backup-'));
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

describe('review3: cluster backup configs checked by the create rules', () => {
  it('control: a backup of a collection with a strictly valid name is read', async () => {
    expect(await refusalOf(backupJson('logs-2024'))).toBeUndefined();
  });

  // Review finding, fixed (a61332f): validateStoredCollectionConfig runs validateCreateCollection, whose name check is the strict
  // rule for a NEW collection name (no < > : " \ | ? *). Collections whose names only pass the reference rule exist:
  // created before the strict rule (name.rules.ts LEGACY_FORBIDDEN), or made today by a snapshot upload or recover
  // into a new name (its path parameter is checked by the reference rule only). A backup of such a collection is
  // taken, but refused 400 at restore ("collection_name: collection name cannot contain ":" char"). Fix: check the
  // config without the name (or the name by checkCollectionNameReference) in validateStoredCollectionConfig.
  it('reads a backup of a collection whose name passes the rule for an existing collection', async () => {
    const name = 'logs:2024';
    expect(() => validateCollectionName(name, 'reference')).not.toThrow();

    expect(await refusalOf(backupJson(name))).toBeUndefined();
  });
});
