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
