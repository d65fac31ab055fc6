// The snapshot archive format: a plain (uncompressed) tar whose first entry is `snapshot.json`, the manifest
// below, followed by exactly the regular files the manifest lists. See docs/snapshots.md.
import { invalidSnapshot, messageOf } from './snapshot-errors';

export const SNAPSHOT_FORMAT = 'vectorstore-snapshot';
export const SNAPSHOT_FORMAT_VERSION = 1;
/** The manifest's path inside the archive; always the first entry. */
export const MANIFEST_ENTRY = 'snapshot.json';

/** `cluster`: a backup of collections over a whole cluster (docs/cluster.md, "Snapshots and backups"). */
export const SNAPSHOT_KINDS = ['collection', 'full', 'shard', 'cluster'] as const;
export type SnapshotKind = (typeof SNAPSHOT_KINDS)[number];

export interface SnapshotFileEntry {
  /** Relative path inside the archive, `/`-separated (see {@link archivePathProblem}). */
  readonly path: string;
  /** Size in bytes. */
  readonly size: number;
  /** sha256 of the file's bytes, 64 lowercase hex digits. */
  readonly sha256: string;
}

export interface SnapshotManifest {
  readonly format: typeof SNAPSHOT_FORMAT;
  readonly version: typeof SNAPSHOT_FORMAT_VERSION;
  readonly kind: SnapshotKind;
  /** When the snapshot was made: ISO 8601 in UTC, e.g. `2024-07-22T08:31:55.123Z`. */
  readonly created_at: string;
  /** The peer id of the node that made it: a decimal u64 (as a string: it does not fit a JS number). */
  readonly peer_id: string;
  /** The collection (kind collection or shard: exactly one) or collections (kinds full and cluster: any number). */
  readonly collections: readonly string[];
  /** The shard's id; present for kind shard only. */
  readonly shard_id?: number;
  readonly files: readonly SnapshotFileEntry[];
}

const MANIFEST_KEYS = new Set([
  'format',
  'version',
  'kind',
  'created_at',
  'peer_id',
  'collections',
  'shard_id',
  'files',
]);
const FILE_KEYS = new Set(['path', 'size', 'sha256']);
const MAX_PATH_BYTES = 4096;
const MAX_SEGMENT_BYTES = 255;
const MAX_COLLECTION_NAME_CHARS = 255;
const MAX_U64 = 18446744073709551615n;
const MAX_U32 = 4294967295;
const SHA256_HEX = /^[0-9a-f]{64}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;

/**
 * Why `archivePath` may not name a file inside a snapshot, or undefined when it may: it must be relative,
 * `/`-separated, without empty, `.` or `..` segments, backslashes, NUL or control characters, at most 4096 bytes
 * (each segment at most 255), and not the manifest's own name. Applied to manifests and to every tar entry, so
 * no entry can point outside the folder it is extracted into.
 */
export function archivePathProblem(archivePath: string): string | undefined {
  if (archivePath.length === 0) return 'is empty';
  if (archivePath.startsWith('/')) return 'is absolute';
  if (archivePath.includes('\\')) return 'contains a backslash';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(archivePath)) return 'contains a control character';
  if (Buffer.byteLength(archivePath, 'utf8') > MAX_PATH_BYTES) return `is longer than ${MAX_PATH_BYTES} bytes`;
  for (const segment of archivePath.split('/')) {
    if (segment === '..') return 'contains a `..` segment';
    if (segment === '.') return 'contains a `.` segment';
    if (segment === '') return 'contains an empty segment';
    if (Buffer.byteLength(segment, 'utf8') > MAX_SEGMENT_BYTES)
      return `has a segment longer than ${MAX_SEGMENT_BYTES} bytes`;
  }
  if (archivePath === MANIFEST_ENTRY) return `is the manifest's own name`;
  return undefined;
}

/**
 * Why `name` may not be a collection name in a snapshot (and so a folder name under the snapshots folder), or
 * undefined: 1..255 characters, no `/` or NUL (Qdrant's rule for existing collections), and not `.` or `..`.
 */
export function collectionNameProblem(name: string): string | undefined {
  const chars = [...name].length;
  if (chars < 1 || chars > MAX_COLLECTION_NAME_CHARS) return `must be 1 to ${MAX_COLLECTION_NAME_CHARS} characters`;
  if (name.includes('/')) return 'cannot contain "/"';
  if (name.includes('\0')) return 'cannot contain NUL';
  if (name === '.' || name === '..') return `cannot be "${name}"`;
  return undefined;
}

/** Why `peerId` is not a peer id (a decimal u64 without leading zeros), or undefined. */
export function peerIdProblem(peerId: string): string | undefined {
  if (!/^(0|[1-9]\d{0,19})$/.test(peerId) || BigInt(peerId) > MAX_U64) return 'must be a decimal u64';
  return undefined;
}

/** The manifest as stored in the archive: JSON, two-space indented, with a final newline. */
export function encodeManifest(manifest: SnapshotManifest): Buffer {
  return Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8');
}

/** Parses and validates a manifest read from an untrusted archive; any problem is an INVALID_ARGUMENT. */
export function parseManifest(bytes: Uint8Array): SnapshotManifest {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    throw invalidSnapshot(`${MANIFEST_ENTRY} is not valid UTF-8 JSON (${messageOf(error)})`);
  }
  return validateManifest(value);
}

/**
 * Checks every field of an untrusted manifest and returns it typed. The format and version are checked first, so
 * a manifest of another version is reported as such rather than by whichever of its fields differ. Unknown fields
 * are refused: a version 1 manifest has exactly the fields of {@link SnapshotManifest}.
 */
export function validateManifest(value: unknown): SnapshotManifest {
  const fail = (detail: string) => invalidSnapshot(`${MANIFEST_ENTRY}: ${detail}`);
  if (!isPlainObject(value)) throw fail('must be a JSON object');
  if (value.format !== SNAPSHOT_FORMAT) {
    throw fail(`format must be "${SNAPSHOT_FORMAT}", got ${describe(value.format)}: not a vectorstore snapshot`);
  }
  if (value.version !== SNAPSHOT_FORMAT_VERSION) {
    throw fail(
      `unsupported format version ${describe(value.version)}; this server reads version ${SNAPSHOT_FORMAT_VERSION}`,
    );
  }
  const unknown = Object.keys(value).filter((key) => !MANIFEST_KEYS.has(key));
  if (unknown.length > 0) throw fail(`unknown field ${describe(unknown[0])}`);

  const kind = value.kind;
  if (typeof kind !== 'string' || !(SNAPSHOT_KINDS as readonly string[]).includes(kind)) {
    throw fail(`kind must be one of ${SNAPSHOT_KINDS.join(', ')}, got ${describe(kind)}`);
  }
  const createdAt = value.created_at;
  if (typeof createdAt !== 'string' || !ISO_UTC.test(createdAt) || Number.isNaN(Date.parse(createdAt))) {
    throw fail(`created_at must be an ISO 8601 UTC time like 2024-07-22T08:31:55.000Z, got ${describe(createdAt)}`);
  }
  const peerId = value.peer_id;
  if (typeof peerId !== 'string' || peerIdProblem(peerId) !== undefined) {
    throw fail(`peer_id must be a decimal u64 in a string, got ${describe(peerId)}`);
  }

  const collections = checkCollections(value.collections, kind as SnapshotKind, fail);
  const shardId = value.shard_id;
  if (kind === 'shard') {
    if (typeof shardId !== 'number' || !Number.isInteger(shardId) || shardId < 0 || shardId > MAX_U32) {
      throw fail(`shard_id must be an integer from 0 to ${MAX_U32} for a shard snapshot, got ${describe(shardId)}`);
    }
  } else if (shardId !== undefined) {
    throw fail(`shard_id is only allowed in a shard snapshot (this one is kind ${kind})`);
  }
  const files = checkFiles(value.files, fail);

  return {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_FORMAT_VERSION,
    kind: kind as SnapshotKind,
    created_at: createdAt,
    peer_id: peerId,
    collections,
    ...(kind === 'shard' ? { shard_id: shardId as number } : {}),
    files,
  };
}

function checkCollections(value: unknown, kind: SnapshotKind, fail: (detail: string) => Error): string[] {
  if (!Array.isArray(value)) throw fail(`collections must be an array of names, got ${describe(value)}`);
  if (kind !== 'full' && kind !== 'cluster' && value.length !== 1) {
    throw fail(`collections must hold exactly one name in a ${kind} snapshot, got ${value.length}`);
  }
  const seen = new Set<string>();
  return value.map((name: unknown, index) => {
    if (typeof name !== 'string') throw fail(`collections[${index}] must be a string, got ${describe(name)}`);
    const problem = collectionNameProblem(name);
    if (problem !== undefined) throw fail(`collections[${index}] ${describe(name)} ${problem}`);
    if (seen.has(name)) throw fail(`collections[${index}] ${describe(name)} is listed twice`);
    seen.add(name);
    return name;
  });
}

function checkFiles(value: unknown, fail: (detail: string) => Error): SnapshotFileEntry[] {
  if (!Array.isArray(value)) throw fail(`files must be an array, got ${describe(value)}`);
  const paths = new Set<string>();
  const files = value.map((file: unknown, index): SnapshotFileEntry => {
    const at = `files[${index}]`;
    if (!isPlainObject(file)) throw fail(`${at} must be an object`);
    const unknown = Object.keys(file).filter((key) => !FILE_KEYS.has(key));
    if (unknown.length > 0) throw fail(`${at} has unknown field ${describe(unknown[0])}`);
    const { path, size, sha256 } = file;
    if (typeof path !== 'string') throw fail(`${at}.path must be a string, got ${describe(path)}`);
    const problem = archivePathProblem(path);
    if (problem !== undefined) throw fail(`${at}.path ${describe(path)} ${problem}`);
    if (paths.has(path)) throw fail(`${at}.path ${describe(path)} is listed twice`);
    paths.add(path);
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
      throw fail(`${at}.size must be a non-negative integer, got ${describe(size)}`);
    }
    if (typeof sha256 !== 'string' || !SHA256_HEX.test(sha256)) {
      throw fail(`${at}.sha256 must be 64 lowercase hex digits, got ${describe(sha256)}`);
    }
    return { path, size, sha256 };
  });
  // A file may not also be a folder of another (`a` and `a/b`): extraction could not make both.
  for (const { path } of files) {
    for (let slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1)) {
      const parent = path.slice(0, slash);
      if (paths.has(parent))
        throw fail(`${describe(parent)} is listed as a file and is also the folder of ${describe(path)}`);
    }
  }
  return files;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short, printable rendering of an untrusted value for messages. */
function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
