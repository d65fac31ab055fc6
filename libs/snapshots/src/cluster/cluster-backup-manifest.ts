// `backup.json` of a cluster backup (an archive of kind `cluster`): which peers the cluster had, where each shard's
// replicas were, and which file holds each shard's snapshot, with its sha256. See docs/cluster.md, "Snapshots and
// backups". The archive's own manifest lists every file with its sha256 too; this file says what they mean.
import {
  checkAliasName,
  CollectionRecord,
  ReplicaState,
  REPLICA_STATES,
  ShardKey,
  validateStoredCollectionConfig,
} from '@vectorstore/collections';
import { DomainError, integersToNumbers, parseJson, stringifyJson, ValidationIssues } from '@vectorstore/common';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { invalidSnapshot } from '../snapshot-errors';
import { archivePathProblem, collectionNameProblem, peerIdProblem } from '../snapshot-manifest';

export const CLUSTER_BACKUP_FILE = 'backup.json';
export const CLUSTER_BACKUP_FORMAT = 'vectorstore-cluster-backup';
export const CLUSTER_BACKUP_VERSION = 1;

export interface BackupShard {
  shard_id: number;
  shard_key?: ShardKey;
  /** The peer whose Active replica was copied. */
  from_peer: string;
  /** When that replica's point-in-time copy was taken (ISO 8601). */
  taken_at: string;
  /** The shard snapshot archive, relative to the backup's root. */
  file: string;
  size: number;
  sha256: string;
}

export interface BackupCollection {
  name: string;
  /**
   * The collection's catalog record at the backup: config, shard keys, router (how ids map to shards). Its
   * `shards` are where the replicas were (peer and state); a restore places them again on the target cluster.
   */
  record: CollectionRecord;
  /** Aliases naming the collection. */
  aliases: string[];
  /** One snapshot per shard, from one Active replica. */
  shards: BackupShard[];
}

export interface ClusterBackupManifest {
  format: typeof CLUSTER_BACKUP_FORMAT;
  version: typeof CLUSTER_BACKUP_VERSION;
  created_at: string;
  /** The peer that made the backup. */
  made_by: string;
  /** The live peers when the backup began. */
  peers: Array<{ peer_id: string; uri: string }>;
  collections: BackupCollection[];
}

/** The archive path of a shard's snapshot: by position, since collection names may hold any character but `/`. */
export function backupShardPath(collectionIndex: number, shardId: number): string {
  return `collections/${collectionIndex}/shards/${shardId}.snapshot`;
}

export function encodeClusterBackupManifest(manifest: ClusterBackupManifest): string {
  return `${stringifyJson(manifest, 2)}\n`;
}

/**
 * Reads `backup.json` of an extracted cluster backup and checks it: shape, names, peer ids, one snapshot per
 * shard of each record, each file listed in the archive's manifest with the same sha256 (`files`). Any problem
 * is the INVALID_ARGUMENT of an invalid archive.
 */
export async function readClusterBackupManifest(
  dir: string,
  files: ReadonlyMap<string, { size: number; sha256: string }>,
): Promise<ClusterBackupManifest> {
  const fail = (why: string) => invalidSnapshot(`${CLUSTER_BACKUP_FILE}: ${why}`);
  const text = await fs.readFile(path.join(dir, CLUSTER_BACKUP_FILE), 'utf8').catch(() => undefined);
  if (text === undefined) throw fail('is missing: not a cluster backup');
  let value: unknown;
  try {
    value = integersToNumbers(parseJson(text), (key) => key === 'metadata');
  } catch {
    throw fail('is not JSON');
  }
  if (!isObject(value)) throw fail('must be a JSON object');
  if (value.format !== CLUSTER_BACKUP_FORMAT || value.version !== CLUSTER_BACKUP_VERSION)
    throw fail(`format must be ${CLUSTER_BACKUP_FORMAT} version ${CLUSTER_BACKUP_VERSION}`);
  if (typeof value.created_at !== 'string') throw fail('created_at must be a string');
  if (typeof value.made_by !== 'string' || peerIdProblem(value.made_by)) throw fail('made_by must be a peer id');
  if (
    !Array.isArray(value.peers) ||
    !value.peers.every(
      (p: unknown) =>
        isObject(p) && typeof p.peer_id === 'string' && !peerIdProblem(p.peer_id) && typeof p.uri === 'string',
    )
  )
    throw fail('peers must be a list of {peer_id, uri}');
  if (!Array.isArray(value.collections)) throw fail('collections must be a list');
  const names = new Set<string>();
  const collections = value.collections.map((entry: unknown, index: number) => {
    const at = `collections[${index}]`;
    if (!isObject(entry)) throw fail(`${at} must be an object`);
    const name = entry.name;
    if (typeof name !== 'string' || collectionNameProblem(name)) throw fail(`${at}.name is not a collection name`);
    if (names.has(name)) throw fail(`${at}.name ${JSON.stringify(name)} is listed twice`);
    names.add(name);
    const record = checkRecord(entry.record, `${at}.record`, fail);
    // Checked before anything is restored too: a config no collection could be created with would replace the
    // collection of that name and fail only later, at its shards' recovery.
    checkConfig(name, record, `${at}.record.config`, fail);
    if (!Array.isArray(entry.aliases) || !entry.aliases.every((a: unknown) => typeof a === 'string'))
      throw fail(`${at}.aliases must be a list of names`);
    // Checked here, before anything is restored: a bad alias found later would leave collections replaced.
    const aliasIssues = new ValidationIssues();
    (entry.aliases as string[]).forEach((alias, i) => checkAliasName(aliasIssues, `${at}.aliases[${i}]`, alias));
    if (!aliasIssues.empty) throw fail(aliasIssues.list().join('; '));
    if (!Array.isArray(entry.shards)) throw fail(`${at}.shards must be a list`);
    const shards = entry.shards.map((shard: unknown, i: number) =>
      checkShard(shard, `${at}.shards[${i}]`, files, fail),
    );
    const wanted = [...new Set(record.shards.map((s) => s.shardId))].sort((a, b) => a - b);
    const held = shards.map((s: BackupShard) => s.shard_id).sort((a: number, b: number) => a - b);
    if (JSON.stringify(wanted) !== JSON.stringify(held))
      throw fail(`${at} must hold one snapshot of each of shards ${wanted.join(', ')}, holds ${held.join(', ')}`);
    return { name, record: { ...record, name }, aliases: entry.aliases as string[], shards };
  });
  return {
    format: CLUSTER_BACKUP_FORMAT,
    version: CLUSTER_BACKUP_VERSION,
    created_at: value.created_at,
    made_by: value.made_by,
    peers: value.peers as ClusterBackupManifest['peers'],
    collections,
  };
}

function checkRecord(value: unknown, at: string, fail: (why: string) => Error): CollectionRecord {
  if (
    !isObject(value) ||
    !isObject(value.config) ||
    !isObject(value.config.params) ||
    !Array.isArray(value.shards) ||
    !Array.isArray(value.shardKeys) ||
    typeof value.nextShardId !== 'number'
  )
    throw fail(`${at} is not a collection record`);
  for (const shard of value.shards as unknown[]) {
    if (
      !isObject(shard) ||
      !isShardId(shard.shardId) ||
      !(REPLICA_STATES as readonly unknown[]).includes(shard.state as ReplicaState)
    )
      throw fail(`${at}.shards holds a replica that is not {shardId, state, peerId?}`);
  }
  if (value.shards.length === 0) throw fail(`${at} has no shards`);
  if (value.router !== undefined && value.router !== 'Ring') throw fail(`${at}.router must be "Ring" or absent`);
  return value as unknown as CollectionRecord;
}

function checkConfig(name: string, record: CollectionRecord, at: string, fail: (why: string) => Error): void {
  const config = record.config as unknown as Record<string, unknown>;
  const parts = ['hnswConfig', 'optimizerConfig', 'walConfig'].filter((part) => !isObject(config[part]));
  const vectors: unknown = record.config.params.vectors;
  if (!isObject(vectors) || !(isObject(vectors.params) || isObject(vectors.paramsMap)))
    parts.unshift('params.vectors ({params} or {paramsMap})');
  if (record.config.params.sparseVectors !== undefined && !isObject(record.config.params.sparseVectors))
    parts.push('params.sparseVectors');
  if (config.metadata !== undefined && !isObject(config.metadata)) parts.push('metadata');
  if (parts.length > 0) throw fail(`${at} of collection ${JSON.stringify(name)}: ${parts.join(', ')} must be objects`);
  try {
    validateStoredCollectionConfig(name, record.config);
  } catch (error) {
    if (!(error instanceof DomainError))
      throw fail(`${at} of collection ${JSON.stringify(name)} is not a collection config`);
    const issues = error.validationIssues ?? [error.message];
    throw fail(`${at} of collection ${JSON.stringify(name)} could not create a collection: ${issues.join('; ')}`);
  }
}

function checkShard(
  value: unknown,
  at: string,
  files: ReadonlyMap<string, { size: number; sha256: string }>,
  fail: (why: string) => Error,
): BackupShard {
  if (!isObject(value)) throw fail(`${at} must be an object`);
  if (!isShardId(value.shard_id)) throw fail(`${at}.shard_id must be a u32`);
  if (typeof value.from_peer !== 'string' || peerIdProblem(value.from_peer))
    throw fail(`${at}.from_peer is no peer id`);
  if (typeof value.file !== 'string' || archivePathProblem(value.file)) throw fail(`${at}.file is not a path`);
  const listed = files.get(value.file);
  if (!listed) throw fail(`${at}.file ${JSON.stringify(value.file)} is not in the archive`);
  if (value.sha256 !== listed.sha256 || value.size !== listed.size)
    throw fail(`${at}.file ${JSON.stringify(value.file)}: size and sha256 differ from the archive's manifest`);
  return {
    shard_id: value.shard_id as number,
    ...(isObject(value.shard_key) ? { shard_key: value.shard_key as ShardKey } : {}),
    from_peer: value.from_peer,
    taken_at: typeof value.taken_at === 'string' ? value.taken_at : '',
    file: value.file,
    size: listed.size,
    sha256: listed.sha256,
  };
}

function isShardId(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 0xffff_ffff;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
