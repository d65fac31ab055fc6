import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { durableFs } from './durable-fs';

/**
 * Replaces `filePath` with `data` so that a crash at any moment leaves either the old or the new
 * content, never a torn file: write a temporary sibling, fsync it, rename over, fsync the folder.
 * `data` may be an iterable of chunks, written one after the other (large files built in parts).
 */
export async function writeFileAtomic(
  filePath: string,
  data: string | Uint8Array | Iterable<Uint8Array>,
  mode = 0o600,
): Promise<void> {
  const dir = path.dirname(filePath);
  const tmp = path.join(dir, `.${path.basename(filePath)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await durableFs.open(tmp, 'w', mode);
  try {
    try {
      const chunks = typeof data === 'string' ? [Buffer.from(data)] : data instanceof Uint8Array ? [data] : data;
      let position = 0;
      for (const chunk of chunks) {
        await durableFs.writeAll(handle, chunk, position);
        position += chunk.length;
      }
      await durableFs.sync(handle);
    } finally {
      await handle.close();
    }
    await durableFs.rename(tmp, filePath);
  } catch (error) {
    // a full disk must not stay full of a half-written temporary file until the next start; the write's own
    // error is the one to report
    await durableFs.rm(tmp, { force: true }).catch(() => undefined);
    throw error;
  }
  await fsyncDirectory(dir);
}

/** Makes a rename or unlink inside `dir` durable. */
export function fsyncDirectory(dir: string): Promise<void> {
  return durableFs.syncDirectory(dir);
}

/** Reads a file, or returns undefined when it does not exist. */
export async function readFileIfExists(filePath: string): Promise<string | undefined> {
  try {
    return await fs.readFile(filePath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Removes temporary files a crash left behind in `dir` (they were never renamed into place). With
 * `ofFile`, only that file's (`.<ofFile>.<pid>.<random>.tmp`), so writers of other files in the
 * same folder are not disturbed.
 */
export async function removeStaleTemporaryFiles(dir: string, ofFile?: string): Promise<void> {
  const prefix = ofFile === undefined ? '.' : `.${ofFile}.`;
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  await Promise.all(
    names
      .filter((name) => name.startsWith(prefix) && name.endsWith('.tmp'))
      .map((name) => durableFs.rm(path.join(dir, name), { force: true })),
  );
}
