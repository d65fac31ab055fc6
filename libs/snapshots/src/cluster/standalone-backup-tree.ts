// A cluster backup's collection as the tree of a collection snapshot (`config.json`, `shards/<id>/`), for a
// standalone server: CollectionSnapshots.restore then builds it aside and swaps it in with one catalog change, so
// the collection is never seen (nor written) while its shards are still being restored.
import { emptyCatalog } from '@vectorstore/collections';
import { stringifyJson } from '@vectorstore/common';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { invalidSnapshot } from '../snapshot-errors';
import { MAX_SNAPSHOT_BYTES } from '../snapshot-limits';
import { readSnapshot } from '../snapshot-reader';
import { BackupCollection } from './cluster-backup-manifest';
import { readCollectionTree } from './collection-tree';
import { putRestoredRecord } from './restored-placement';

/**
 * Writes into the empty folder `treeDir` the backup's collection with one Active shard per shard id, each shard's
 * folder taken from its shard snapshot archive in `backupDir` (checked against its sha256, extracted under
 * `extractParent`, on the same file system as `treeDir`).
 */
export async function writeStandaloneTree(
  collection: BackupCollection,
  backupDir: string,
  treeDir: string,
  extractParent: string,
): Promise<void> {
  const record = putRestoredRecord(emptyCatalog(), collection.record, collection.name, undefined, {
    first: 'Active',
    others: 'Active',
  });
  await fs.mkdir(path.join(treeDir, 'shards'), { recursive: true, mode: 0o700 });
  for (const shard of collection.shards) {
    const extracted = await readSnapshot(path.join(backupDir, ...shard.file.split('/')), {
      extractParent,
      checksum: shard.sha256,
      requireChecksum: true,
      maxTotalBytes: MAX_SNAPSHOT_BYTES,
    });
    try {
      if (extracted.manifest.kind !== 'shard')
        throw invalidSnapshot(`${shard.file}: a ${extracted.manifest.kind} snapshot cannot restore a shard`);
      const shardTree = path.join(extracted.dir, 'collection');
      const { shardIds } = await readCollectionTree(shardTree);
      if (shardIds.length !== 1 || shardIds[0] !== shard.shard_id)
        throw invalidSnapshot(`${shard.file} must hold shard ${shard.shard_id} only, holds ${shardIds.join(', ')}`);
      await fs.rename(
        path.join(shardTree, 'shards', String(shard.shard_id)),
        path.join(treeDir, 'shards', String(shard.shard_id)),
      );
    } finally {
      await fs.rm(extracted.dir, { recursive: true, force: true });
    }
  }
  await fs.writeFile(path.join(treeDir, 'config.json'), stringifyJson({ record, aliases: [] }, 2), { mode: 0o600 });
}
