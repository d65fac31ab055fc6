// The `collection/` tree of an extracted collection snapshot, read for a restore in cluster mode: the record in
// `config.json` and which shards' folders the archive holds (a peer's collection snapshot holds its own shards).
import { CollectionRecord } from '@vectorstore/collections';
import { integersToNumbers, parseJson } from '@vectorstore/common';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { invalidSnapshot } from '../snapshot-errors';

export interface CollectionTree {
  record: CollectionRecord;
  /** Shard ids with a folder under `shards/`, ascending. */
  shardIds: number[];
}

export async function readCollectionTree(dir: string): Promise<CollectionTree> {
  const text = await fs.readFile(path.join(dir, 'config.json'), 'utf8').catch(() => undefined);
  if (text === undefined) throw invalidSnapshot('collection/config.json is missing');
  let parsed: unknown;
  try {
    parsed = integersToNumbers(parseJson(text), (key) => key === 'metadata');
  } catch {
    throw invalidSnapshot('collection/config.json is not JSON');
  }
  const record = (parsed as { record?: Partial<CollectionRecord> } | null)?.record;
  if (
    typeof record !== 'object' ||
    record === null ||
    typeof record.config !== 'object' ||
    record.config === null ||
    !Array.isArray(record.shards) ||
    record.shards.length === 0 ||
    !record.shards.every((s) => typeof s === 'object' && s !== null && Number.isSafeInteger(s.shardId)) ||
    !Array.isArray(record.shardKeys)
  )
    throw invalidSnapshot('collection/config.json does not hold a collection record');
  const known = new Set(record.shards.map((s) => String(s.shardId)));
  const folders = await fs.readdir(path.join(dir, 'shards')).catch(() => [] as string[]);
  const unknown = folders.filter((name) => !known.has(name));
  if (unknown.length > 0)
    throw invalidSnapshot(`the snapshot holds shards its config does not list: ${unknown.join(', ')}`);
  return {
    record: { ...(record as CollectionRecord), nextShardId: record.nextShardId ?? record.shards.length },
    shardIds: folders.map(Number).sort((a, b) => a - b),
  };
}

/** The distinct shard ids of a record, ascending. */
export function shardIdsOf(record: CollectionRecord): number[] {
  return [...new Set(record.shards.map((s) => s.shardId))].sort((a, b) => a - b);
}
