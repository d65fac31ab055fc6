import { PayloadIndexParams, PayloadSchemaType } from '@vectorstore/collections';
import {
  checkSealedJson,
  DamagedFileError,
  describeSealCheck,
  integersToNumbers,
  parseJson,
  sealJson,
  stringifyJson,
} from '@vectorstore/common';
import { readFileIfExists } from '@vectorstore/persistence';
import * as path from 'node:path';
import { FileChecksum, unreadable } from '../file-checksum';
import type { RecoveryPoint } from './shard-clocks';

export const MANIFEST_FILE = 'manifest.json';

/** A segment as `manifest.json` lists it. */
export interface ManifestSegment {
  id: string;
  bodyVersion: number;
  body: string;
  deletes?: string;
  /**
   * Size and checksum of each of the segment's files (body, delete file, vector and payload files). Absent in
   * manifests written before checksums: opening takes the files as they are and the next manifest records them.
   */
  files?: FileChecksum[];
}

/** `manifest.json` of a shard. */
export interface Manifest {
  version: 1;
  persistedOpNum: number;
  /** Exact files of each segment: bodies and delete files are never overwritten, so a crash mid-flush leaves the last manifest's files intact. */
  segments: ManifestSegment[];
  fieldIndexes: Array<{ field: string; type: PayloadSchemaType; params?: PayloadIndexParams }>;
  /**
   * The routed writes the segments hold, by origin (shard-clocks.ts), as of `persistedOpNum`; the log's tagged
   * records past it add the rest at open. Absent in manifests written before clocks (an empty recovery point).
   */
  clocks?: RecoveryPoint;
}

/** The text of `manifest` as written: indented JSON with its checksum as the last field (see sealed-json). */
export function manifestText(manifest: Manifest): string {
  return stringifyJson(
    sealJson(manifest, (value) => stringifyJson(value)),
    2,
  );
}

/**
 * The manifest of the shard in `dir`, or undefined when there is none (a shard never flushed). Throws
 * {@link DamagedFileError} for one that does not parse, fails its checksum or is not shaped like a manifest.
 * `sealed` is false for a manifest written before checksums.
 */
export async function readManifest(dir: string): Promise<{ manifest: Manifest; sealed: boolean } | undefined> {
  const filePath = path.join(dir, MANIFEST_FILE);
  let text: string | undefined;
  try {
    text = await readFileIfExists(filePath);
  } catch (error) {
    throw unreadable(filePath, error);
  }
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = parseJson(text);
  } catch (error) {
    throw new DamagedFileError(filePath, `not valid JSON (${(error as Error).message})`);
  }
  const check = checkSealedJson(parsed, (value) => stringifyJson(value));
  if (check.state === 'mismatch' || check.state === 'malformed')
    throw new DamagedFileError(filePath, describeSealCheck(check));
  const manifest = integersToNumbers(parsed) as Manifest & { checksum?: string };
  const problem = shapeProblem(manifest);
  if (problem !== undefined) throw new DamagedFileError(filePath, `not a shard manifest: ${problem}`);
  delete manifest.checksum;
  return { manifest, sealed: check.state === 'valid' };
}

/** What makes `value` no manifest (an unsealed one may have been damaged into other valid JSON). */
function shapeProblem(value: unknown): string | undefined {
  const manifest = value as Partial<Manifest>;
  if (!Number.isSafeInteger(manifest.persistedOpNum) || manifest.persistedOpNum! < 0)
    return 'persistedOpNum is not an op number';
  if (!Array.isArray(manifest.segments)) return 'segments is not a list';
  for (const [i, segment] of manifest.segments.entries()) {
    if (typeof segment !== 'object' || segment === null) return `segment #${i} is not an object`;
    if (typeof segment.id !== 'string' || !isFileName(segment.body) || !Number.isSafeInteger(segment.bodyVersion))
      return `segment #${i} lacks its id, body or bodyVersion`;
    if (segment.deletes !== undefined && !isFileName(segment.deletes)) return `segment #${i} has a bad delete file`;
    if (segment.files !== undefined && !(Array.isArray(segment.files) && segment.files.every(isFileChecksum)))
      return `segment #${i} has malformed file checksums`;
  }
  if (!Array.isArray(manifest.fieldIndexes)) return 'fieldIndexes is not a list';
  return undefined;
}

/** A plain file name: never a path that would leave the shard's folder. */
function isFileName(value: unknown): value is string {
  return typeof value === 'string' && value !== '' && path.basename(value) === value && value !== '..';
}

function isFileChecksum(value: unknown): value is FileChecksum {
  const checksum = value as FileChecksum;
  return (
    typeof value === 'object' &&
    value !== null &&
    isFileName(checksum.file) &&
    Number.isSafeInteger(checksum.bytes) &&
    typeof checksum.crc32 === 'string' &&
    /^[0-9a-f]{8}$/.test(checksum.crc32)
  );
}
