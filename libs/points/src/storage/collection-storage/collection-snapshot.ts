import { CollectionRecord } from '@vectorstore/collections';
import { DomainError, parseJson } from '@vectorstore/common';
import { durableFs } from '@vectorstore/persistence';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { segmentFileName } from '../../wal/wal-files';
import { OpenShardLog } from '../shard-log';
import { CollectionStorage } from './collection-storage';

/**
 * A point-in-time copy of every shard of `storage` under `intoDir/shards/<shard id>/` (manifest.json
 * and segments/, see LocalShard.checkpoint), all at one cut. A write holds the shared side of the
 * schema lock from validation until every shard has applied its part, so under the exclusive side
 * no write is half-way: an upsert split over shards is in the copy on all of them or on none.
 * Writers wait only for this flush-and-link step, never for the archive being written from it.
 */
export async function checkpointCollection(storage: CollectionStorage, intoDir: string): Promise<void> {
  if (storage.failure) throw storage.failure;
  await storage.schemaLock.exclusive(async () => {
    // A snapshot without a shard this peer holds would be taken as whole: refused while one is set aside.
    const [shardId, damage] = [...storage.damaged][0] ?? [];
    if (damage !== undefined)
      throw DomainError.unavailable(
        `Service unavailable: shard ${shardId} of \`${storage.record.name}\` is damaged on this peer and waits to be copied again, so it cannot be snapshotted here (${damage.message})`,
      );
    for (const handle of storage.shards.values()) {
      await handle.shard.checkpoint(path.join(intoDir, 'shards', String(handle.shardId)));
    }
  });
}

/**
 * The shard folders of a snapshot tree (`sourceDir/shards/<shard id>`) by shard id; they must be exactly the
 * shards `record` lists.
 */
export async function snapshotShardFolders(record: CollectionRecord, sourceDir: string): Promise<Map<string, string>> {
  const shardsDir = path.join(sourceDir, 'shards');
  const present = await fs.readdir(shardsDir).catch(() => [] as string[]);
  const wanted = new Set(record.shards.map((shard) => String(shard.shardId)));
  const extra = present.filter((name) => !wanted.has(name));
  if (extra.length > 0) throw new Error(`snapshot holds shards the config does not list: ${extra.join(', ')}`);
  const missing = [...wanted].filter((name) => !present.includes(name));
  if (missing.length > 0) throw new Error(`snapshot lacks shards ${missing.join(', ')}`);
  return new Map([...wanted].map((shardId) => [shardId, path.join(shardsDir, shardId)]));
}

/**
 * Builds a collection's storage folder `targetDir` for `record` from snapshot shard folders (`shardFolders`: the
 * folder of each shard id, e.g. {@link snapshotShardFolders}), and proves it opens: every shard the record lists
 * must be there and load. The files are copied durably (fsynced, folders too), so that once the folder is renamed
 * into place and the catalog names it, a power cut cannot leave it half written. Each shard gets an empty
 * write-ahead log that continues after the manifest's op number. Throws when the tree does not make a
 * collection; `targetDir` is then left for the caller to remove.
 */
export async function buildRestoredCollection(
  record: CollectionRecord,
  shardFolders: ReadonlyMap<string, string>,
  targetDir: string,
  openLog: OpenShardLog,
): Promise<void> {
  const missing = record.shards.map((shard) => String(shard.shardId)).filter((id) => !shardFolders.has(id));
  if (missing.length > 0) throw new Error(`snapshot lacks shards ${missing.join(', ')}`);
  await durableFs.mkdir(path.join(targetDir, 'shards'), { recursive: true, mode: 0o700 });
  for (const [shardId, from] of shardFolders) {
    const shardDir = path.join(targetDir, 'shards', shardId);
    await durableFs.copyTree(from, shardDir);
    const manifest = await fs.readFile(path.join(shardDir, 'manifest.json'), 'utf8').catch(() => undefined);
    const persistedOpNum =
      manifest === undefined ? 0 : Number((parseJson(manifest) as { persistedOpNum: unknown }).persistedOpNum);
    if (!Number.isSafeInteger(persistedOpNum) || persistedOpNum < 0) throw new Error(`shard ${shardId}: bad op number`);
    await durableFs.mkdir(path.join(shardDir, 'wal'), { recursive: true, mode: 0o700 });
    // An empty log segment named after the next op number: new writes continue the numbering.
    if (persistedOpNum > 0)
      await durableFs.writeFile(path.join(shardDir, 'wal', segmentFileName(persistedOpNum + 1)), '');
    await durableFs.syncDirectory(shardDir);
  }
  const storage = new CollectionStorage(record, targetDir, openLog);
  try {
    await storage.reconcile(record);
  } finally {
    await storage.close();
  }
}
