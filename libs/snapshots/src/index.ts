// @vectorstore/snapshots: snapshot archives: the format, writing, safe reading, where they live, and where a
// recovery may take one from. See docs/snapshots.md.

// The archive format (version 1): manifest and the rules for what an archive may hold.
export {
  SNAPSHOT_FORMAT,
  SNAPSHOT_FORMAT_VERSION,
  SNAPSHOT_KINDS,
  MANIFEST_ENTRY,
  archivePathProblem,
  collectionNameProblem,
  peerIdProblem,
  encodeManifest,
  parseManifest,
  validateManifest,
  type SnapshotKind,
  type SnapshotManifest,
  type SnapshotFileEntry,
} from './snapshot-manifest';

// Writing and reading archives.
export {
  writeSnapshot,
  type WriteSnapshotRequest,
  type WrittenSnapshot,
  type SnapshotSourceFile,
  type SnapshotSourceDirectory,
} from './snapshot-writer';
export {
  readSnapshot,
  DEFAULT_MAX_MANIFEST_BYTES,
  type ReadSnapshotOptions,
  type ExtractedSnapshot,
} from './snapshot-reader';

// Checksums: the `.sha256` sidecar and a client's checksum.
export {
  CHECKSUM_SUFFIX,
  checksumPathFor,
  formatChecksumFile,
  parseChecksumFile,
  readSidecarChecksum,
  normalizeChecksum,
  checkChecksumParam,
  sha256OfFile,
} from './snapshot-checksum';

// Where snapshots live: layout, names, list, delete, download.
export {
  SnapshotStore,
  resolveSnapshotsDir,
  SNAPSHOTS_DIR_ENV,
  SNAPSHOTS_TEMP_SUBDIR,
  type SnapshotScope,
  type SnapshotDescription,
  type SnapshotReservation,
  type OpenedSnapshot,
  type SnapshotStoreOptions,
} from './snapshot-store';
export {
  SNAPSHOT_SUFFIX,
  FULL_SNAPSHOT_PREFIX,
  CLUSTER_BACKUP_PREFIX,
  MAX_SNAPSHOT_NAME_BYTES,
  snapshotNameProblem,
  formatSnapshotTime,
  formatCreationTime,
} from './snapshot-names';

// Recovery sources: a file inside an allowed folder, or an http(s) download.
export {
  resolveSnapshotLocation,
  downloadSnapshot,
  type SnapshotLocation,
  type DownloadSnapshotOptions,
  type DownloadedSnapshot,
} from './snapshot-location';

// The refusals, for callers that check archives in other ways.
export { invalidSnapshot, checksumMismatch, snapshotNotFound } from './snapshot-errors';

// Collection and full snapshots of this node: storage's point-in-time copies written as archives, and restores.
export {
  SnapshotsService,
  SNAPSHOT_PRIORITIES,
  MAX_SNAPSHOT_BYTES,
  checkPriority,
  type SnapshotPriority,
  type RecoverRequest,
} from './snapshots.service';

// Cluster mode: recoveries that follow Qdrant's priority rules, collection recovery on one peer, and cluster
// backups (one archive of every shard, restored into a cluster of any size). The app binds SNAPSHOT_PEERS.
export { ShardRecovery } from './cluster/shard-recovery';
export { CollectionRecovery } from './cluster/collection-recovery';
export { ClusterBackups } from './cluster/cluster-backups.service';
export { ClusterRestores } from './cluster/cluster-restores.service';
export { SNAPSHOT_PEERS, type SnapshotPeers, type BackupPeer } from './cluster/snapshot-peers';
export {
  ShardSnapshotParts,
  type PartsCollection,
  type ShardSnapshotPart,
  type ShardSnapshotPartResult,
} from './cluster/shard-snapshot-host';
export { otherActiveReplicas, prepareRecovery, settleRecovery, notLocalShard } from './cluster/recovery-priority';
export {
  CLUSTER_BACKUP_FILE,
  readClusterBackupManifest,
  type ClusterBackupManifest,
  type BackupCollection,
  type BackupShard,
} from './cluster/cluster-backup-manifest';
