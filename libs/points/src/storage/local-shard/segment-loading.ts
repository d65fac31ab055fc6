import { DamagedFileError } from '@vectorstore/common';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { checksumFile, checksumOf, FileChecksum, unreadable, verifyBytes, verifyFile } from '../file-checksum';
import { Segment } from '../segment';
import { VectorSpace } from '../vector-space';
import type { ManifestSegment } from './manifest-file';
import { applySegmentDeletes } from './segment-deletes';
import { SIDE_FILE_EXTENSIONS } from './segment-files';

/** A segment loaded from the files a manifest lists, with the checksums of those files. */
export interface LoadedSegment {
  segment: Segment;
  /** Body, delete file, vector and payload files: checked against the manifest, or taken now (see `upgraded`). */
  files: FileChecksum[];
  /** Some file had no checksum in the manifest (written before checksums): the next manifest should record it. */
  upgraded: boolean;
}

/**
 * Loads the segment `entry` lists from `segmentsDir`, checking every file against the checksum the manifest
 * recorded before anything is read from it: the vector and payload files first (streamed, never whole in memory),
 * then the body and the delete file. Throws {@link DamagedFileError} naming the first file that is missing, has
 * another size or checksum, or (without a checksum to go by) cannot be read as what it should hold.
 */
export async function loadListedSegment(
  segmentsDir: string,
  entry: ManifestSegment,
  spaces: Map<string, VectorSpace>,
): Promise<LoadedSegment> {
  const recorded = new Map((entry.files ?? []).map((checksum) => [checksum.file, checksum]));
  let upgraded = false;
  const files: FileChecksum[] = [];
  const listed = new Set([entry.body, ...(entry.deletes ? [entry.deletes] : [])]);
  for (const checksum of recorded.values()) {
    if (listed.has(checksum.file)) continue;
    await verifyFile(path.join(segmentsDir, checksum.file), checksum);
    files.push(checksum);
  }
  const body = await readChecked(segmentsDir, entry.body, recorded.get(entry.body));
  files.push(body.checksum);
  const deletes = entry.deletes
    ? await readChecked(segmentsDir, entry.deletes, recorded.get(entry.deletes))
    : undefined;
  if (deletes) files.push(deletes.checksum);
  upgraded ||= body.computed || deletes?.computed === true;
  const segment = loadBody(path.join(segmentsDir, entry.body), body.bytes, spaces, segmentsDir);
  try {
    if (deletes) applyDeletes(path.join(segmentsDir, entry.deletes!), segment, deletes.bytes);
    // Vector and payload files the manifest has no checksum for: the ones the body took when it was built (a body
    // newer than its manifest cannot happen, but costs nothing to honour), else those of a segment written before
    // checksums, taken as they are.
    for (const ext of SIDE_FILE_EXTENSIONS) {
      const name = `${entry.id}${ext}`;
      if (recorded.has(name)) continue;
      const filePath = path.join(segmentsDir, name);
      const built = segment.sideFiles.find((checksum) => checksum.file === name);
      if (built) {
        await verifyFile(filePath, built);
        files.push(built);
      } else if (await exists(filePath)) {
        files.push(await checksumFile(filePath, name));
      } else continue;
      upgraded = true;
    }
  } catch (error) {
    segment.dispose();
    throw error;
  }
  return { segment, files, upgraded };
}

/** A file's bytes, checked against its recorded checksum, or checksummed now when there is none. */
async function readChecked(
  segmentsDir: string,
  name: string,
  expected: FileChecksum | undefined,
): Promise<{ bytes: Buffer; checksum: FileChecksum; computed: boolean }> {
  const filePath = path.join(segmentsDir, name);
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(filePath);
  } catch (error) {
    throw unreadable(filePath, error);
  }
  if (expected === undefined) return { bytes, checksum: checksumOf(name, bytes), computed: true };
  verifyBytes(filePath, bytes, expected);
  return { bytes, checksum: expected, computed: false };
}

/** Bytes that passed their checksum still fail here if they were written wrong; without one, damage shows here. */
function loadBody(bodyPath: string, bytes: Uint8Array, spaces: Map<string, VectorSpace>, dir: string): Segment {
  try {
    return Segment.load(bytes, spaces, dir);
  } catch (error) {
    if (error instanceof DamagedFileError) throw error;
    throw new DamagedFileError(bodyPath, `cannot be read as a segment body (${(error as Error).message})`);
  }
}

function applyDeletes(deletesPath: string, segment: Segment, bytes: Uint8Array): void {
  try {
    applySegmentDeletes(segment, bytes);
  } catch (error) {
    throw new DamagedFileError(deletesPath, `cannot be read as a delete file (${(error as Error).message})`);
  }
}

async function exists(filePath: string): Promise<boolean> {
  return fs.stat(filePath).then(
    () => true,
    () => false,
  );
}
