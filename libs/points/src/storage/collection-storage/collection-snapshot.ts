import { CollectionRecord } from '@vectorstore/collections';
import { parseJson } from '@vectorstore/common';
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
    for (const handle of storage.shards.values()) {
      await handle.shard.checkpoint(path.join(intoDir, 'shards', String(handle.shardId)));
    }
  });
}

/**
 * Builds a collection's storage folder `targetDir` from a snapshot's shard tree (`sourceDir/shards`)
 * for `record`, and proves it opens: every shard the record lists must be there and load. Each shard
 * gets an empty write-ahead log that continues after the manifest's op number. Throws when the tree
 * does not make a collection; `targetDir` is then left for the caller to remove.
 */
export async function buildRestoredCollection(
  record: CollectionRecord,
  sourceDir: string,
  targetDir: string,
  openLog: OpenShardLog,
): Promise<void> {
  const shardsDir = path.join(sourceDir, 'shards');
  const present = await fs.readdir(shardsDir).catch(() => [] as string[]);
  const wanted = new Set(record.shards.map((shard) => String(shard.shardId)));
  const extra = present.filter((name) => !wanted.has(name));
  if (extra.length > 0) throw new Error(`snapshot holds shards the config does not list: ${extra.join(', ')}`);
  const missing = [...wanted].filter((name) => !present.includes(name));
  if (missing.length > 0) throw new Error(`snapshot lacks shards ${missing.join(', ')}`);
  await fs.mkdir(targetDir, { recursive: true, mode: 0o700 });
  await fs.cp(shardsDir, path.join(targetDir, 'shards'), { recursive: true, errorOnExist: true, force: false });
  for (const shardId of wanted) {
    const shardDir = path.join(targetDir, 'shards', shardId);
    const manifest = await fs.readFile(path.join(shardDir, 'manifest.json'), 'utf8').catch(() => undefined);
    const persistedOpNum =
      manifest === undefined ? 0 : Number((parseJson(manifest) as { persistedOpNum: unknown }).persistedOpNum);
    if (!Number.isSafeInteger(persistedOpNum) || persistedOpNum < 0) throw new Error(`shard ${shardId}: bad op number`);
    await fs.mkdir(path.join(shardDir, 'wal'), { recursive: true, mode: 0o700 });
    // An empty log segment named after the next op number: new writes continue the numbering.
    if (persistedOpNum > 0)
      await fs.writeFile(path.join(shardDir, 'wal', segmentFileName(persistedOpNum + 1)), '', { mode: 0o600 });
  }
  const storage = new CollectionStorage(record, targetDir, openLog);
  try {
    await storage.reconcile(record);
  } finally {
    await storage.close();
  }
}
