import { LocalShard } from '../storage/local-shard';
import { Segment } from '../storage/segment';

/** What checking the sources' files took. */
export interface SourceCheck {
  files: number;
  bytes: number;
  ms: number;
}

/**
 * Reads the sources of an optimization with `read`, then checks every file they read from disk (vectors and
 * payloads kept on disk) against the checksum the shard's manifest records for it, so that bytes changed on disk
 * since the shard opened are never copied into a new segment, which would get a fresh, matching checksum and be
 * served from then on. Checked after the read, so whatever was read was on disk when its file passed. A read that
 * fails (a torn file) is explained by the damage when there is some. Throws DamagedFileError naming the file.
 */
export async function readVerified<T>(
  shard: LocalShard,
  sources: readonly Segment[],
  read: () => T,
): Promise<{ value: T; check: SourceCheck }> {
  let value: T;
  try {
    value = read();
  } catch (error) {
    await verifySourceFiles(shard, sources);
    throw error;
  }
  return { value, check: await verifySourceFiles(shard, sources) };
}

/** Checks the files `sources` read from disk, one after the other (see {@link readVerified}). */
export async function verifySourceFiles(shard: LocalShard, sources: readonly Segment[]): Promise<SourceCheck> {
  const started = performance.now();
  const { files, bytes } = await shard.verifyDiskFiles(sources);
  return { files, bytes, ms: performance.now() - started };
}
