import { DamagedFileError } from '@vectorstore/common';
import * as path from 'node:path';
import { checksumFile, FileChecksum, mismatch, unreadable } from '../file-checksum';
import { readManifest } from '../local-shard/manifest-file';

/** Files are read in pieces of this size, so the scrub never holds much in memory nor the disk for long. */
const CHUNK_BYTES = 1 << 20;

/** Paces reads to at most `bytesPerSecond` on average (0: no pacing). */
export class ReadPacer {
  /** When the reads so far are paid for. Time spent not reading is no credit: a stall is never followed by a burst. */
  private paidUntil = 0;

  constructor(private readonly bytesPerSecond: number) {}

  async account(bytes: number): Promise<void> {
    if (this.bytesPerSecond <= 0) return;
    const now = Date.now();
    this.paidUntil = Math.max(this.paidUntil, now) + (bytes / this.bytesPerSecond) * 1000;
    const wait = this.paidUntil - now;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

/** What one shard's scrub read, and the first damaged file it found (confirmed against the manifest of now). */
export interface ShardScrubResult {
  files: number;
  bytes: number;
  damage?: DamagedFileError;
}

/**
 * Reads every file the manifest of the shard in `dir` lists and compares its size and CRC-32 with what the
 * manifest recorded when it was written (issue 28: verified at open, and again by this scrub, never per search).
 * Files come and go while the shard serves (a merge replaces segments, a flush writes a new manifest): a file that
 * fails is checked again only if the manifest read afterwards still lists it with the same checksum, so a file
 * replaced or removed meanwhile is not taken for damage. `stopped` ends the scrub early (the server closing).
 */
export async function scrubShard(dir: string, pacer: ReadPacer, stopped: () => boolean): Promise<ShardScrubResult> {
  const result: ShardScrubResult = { files: 0, bytes: 0 };
  let listed: FileChecksum[];
  try {
    listed = await listedFiles(dir);
  } catch (error) {
    if (error instanceof DamagedFileError) return { ...result, damage: error };
    throw error;
  }
  const segmentsDir = path.join(dir, 'segments');
  for (const expected of listed) {
    if (stopped()) break;
    const filePath = path.join(segmentsDir, expected.file);
    const problem = await checkFile(filePath, expected, pacer, result, stopped);
    if (problem === undefined) continue;
    // Still listed, with the same checksum? Then the file on disk is what the shard would open: damage.
    const now = await listedFiles(dir).catch((error: unknown) => (error instanceof DamagedFileError ? [] : undefined));
    const still = now?.some((entry) => entry.file === expected.file && entry.crc32 === expected.crc32);
    if (!still) continue;
    if (stopped()) break;
    if ((await checkFile(filePath, expected, pacer, result, stopped)) !== undefined)
      return { ...result, damage: problem };
  }
  return result;
}

/** Every file with a recorded checksum in the shard's manifest (none for a shard never flushed or an old manifest). */
async function listedFiles(dir: string): Promise<FileChecksum[]> {
  const read = await readManifest(dir);
  return (read?.manifest.segments ?? []).flatMap((segment) => segment.files ?? []);
}

/** Thrown from a read's chunk hook when the scrub is asked to stop (the file is left unjudged). */
class ScrubStopped extends Error {}

/** The damage of one file, or undefined when it is what `expected` records (or gone meanwhile: checked again above). */
async function checkFile(
  filePath: string,
  expected: FileChecksum,
  pacer: ReadPacer,
  result: ShardScrubResult,
  stopped: () => boolean,
): Promise<DamagedFileError | undefined> {
  let actual: FileChecksum;
  try {
    actual = await checksumFile(filePath, expected.file, {
      chunkBytes: CHUNK_BYTES,
      afterChunk: async (bytes) => {
        // Shutting down: a partial read says nothing of the file.
        if (stopped()) throw new ScrubStopped();
        result.bytes += bytes;
        await pacer.account(bytes);
      },
    });
  } catch (error) {
    if (error instanceof ScrubStopped) return undefined;
    const damage = unreadable(filePath, error);
    if (damage instanceof DamagedFileError) return damage;
    throw damage;
  }
  result.files++;
  return mismatch(filePath, actual, expected);
}
