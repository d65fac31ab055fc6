// Snapshot file names: Qdrant's patterns, and the rule a name must pass before it is joined onto a folder.

export const SNAPSHOT_SUFFIX = '.snapshot';
/** Qdrant's name prefix for full-storage snapshots (`FULL_SNAPSHOT_FILE_NAME`). */
export const FULL_SNAPSHOT_PREFIX = 'full-snapshot';
/** Our name prefix for cluster backups, beside full snapshots in the snapshots folder (not in Qdrant). */
export const CLUSTER_BACKUP_PREFIX = 'cluster-backup';

/**
 * Longest snapshot name in bytes: its sidecar `<name>.sha256` must still fit the usual 255-byte limit of a file
 * name. (A collection name of up to 255 characters can make a longer one; see {@link snapshotNameProblem}.)
 */
export const MAX_SNAPSHOT_NAME_BYTES = 255 - '.sha256'.length;

/**
 * Why `name` cannot be a snapshot's file name, or undefined: a plain file name (no `/`, `\` or NUL, not `.` or
 * `..`), ending in `.snapshot` with something before it, at most {@link MAX_SNAPSHOT_NAME_BYTES} bytes.
 */
export function snapshotNameProblem(name: string): string | undefined {
  if (name.includes('/') || name.includes('\\')) return 'contains a path separator';
  if (name.includes('\0')) return 'contains NUL';
  if (!name.endsWith(SNAPSHOT_SUFFIX) || name.length === SNAPSHOT_SUFFIX.length) {
    return `does not end in ${SNAPSHOT_SUFFIX}`;
  }
  if (Buffer.byteLength(name, 'utf8') > MAX_SNAPSHOT_NAME_BYTES) {
    return `is longer than ${MAX_SNAPSHOT_NAME_BYTES} bytes`;
  }
  return undefined;
}

/** `YYYY-MM-DD-HH-MM-SS` in UTC, as in Qdrant's names (chrono's `%Y-%m-%d-%H-%M-%S` of `Utc::now()`). */
export function formatSnapshotTime(date: Date): string {
  return date.toISOString().slice(0, 19).replace('T', '-').replaceAll(':', '-');
}

/** `YYYY-MM-DDTHH:MM:SS` in UTC: Qdrant's `creation_time` (a NaiveDateTime, whole seconds). */
export function formatCreationTime(date: Date): string {
  return date.toISOString().slice(0, 19);
}

/**
 * Qdrant's snapshot names, without the `.snapshot` suffix:
 * collection `<collection>-<peer id>-<time>`, full `full-snapshot-<time>`, shard `<collection>-shard-<id>-<time>`.
 */
export function collectionSnapshotStem(collection: string, peerId: string, date: Date): string {
  return `${collection}-${peerId}-${formatSnapshotTime(date)}`;
}

export function fullSnapshotStem(date: Date): string {
  return `${FULL_SNAPSHOT_PREFIX}-${formatSnapshotTime(date)}`;
}

export function clusterBackupStem(date: Date): string {
  return `${CLUSTER_BACKUP_PREFIX}-${formatSnapshotTime(date)}`;
}

/** Whether a snapshot name in the snapshots folder's root is a cluster backup's (else a full snapshot's). */
export function isClusterBackupName(name: string): boolean {
  return name.startsWith(`${CLUSTER_BACKUP_PREFIX}-`);
}

export function shardSnapshotStem(collection: string, shardId: number, date: Date): string {
  return `${collection}-shard-${shardId}-${formatSnapshotTime(date)}`;
}

/**
 * The `attempt`-th candidate name for a stem: `<stem>.snapshot` first (Qdrant's name), then `<stem>-2.snapshot`,
 * `<stem>-3.snapshot`... for further snapshots made in the same second (Qdrant would overwrite the first).
 */
export function snapshotNameCandidate(stem: string, attempt: number): string {
  return attempt <= 1 ? `${stem}${SNAPSHOT_SUFFIX}` : `${stem}-${attempt}${SNAPSHOT_SUFFIX}`;
}
