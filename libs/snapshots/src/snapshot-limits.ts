/** Most bytes a snapshot to restore may hold, and may be downloaded. */
export const MAX_SNAPSHOT_BYTES = 1024 ** 4;
/** Limit for downloading a snapshot to recover from. */
export const DOWNLOAD_TIMEOUT_MS = 60 * 60 * 1000;
/** Work folders of snapshots being written (links to shard files), under the data folder so links work. */
export const SNAPSHOT_WORK_DIR = 'snapshot-work';
