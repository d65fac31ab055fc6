import { parseJson } from '@vectorstore/common';
import { durableFs } from '@vectorstore/persistence';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** Files an immutable segment may keep beside its body (see segment-files.ts). */
const SIDE_FILE_EXTENSIONS = ['.vec', '.pay'] as const;

/**
 * Puts into `intoDir` a stable copy of what the shard's last manifest lists: `manifest.json` and
 * `segments/<file>` for each body, delete file, and vector or payload file of a listed segment.
 * Files are hard-linked (a copy when the target is on another file system). The source files are
 * never rewritten in place (new versions get new names; the manifest is replaced by rename), so the
 * links keep the exact bytes the manifest describes however the shard changes afterwards.
 *
 * Must run under the shard's flush lock, so no flush removes a listed file meanwhile.
 */
export async function linkManifestFiles(shardDir: string, intoDir: string): Promise<void> {
  const segmentsDir = path.join(shardDir, 'segments');
  const targetSegments = path.join(intoDir, 'segments');
  await durableFs.mkdir(targetSegments, { recursive: true, mode: 0o700 });
  const manifestPath = path.join(shardDir, 'manifest.json');
  const text = await fs.readFile(manifestPath, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (text === undefined) return; // a shard never flushed holds nothing
  await linkOrCopy(manifestPath, path.join(intoDir, 'manifest.json'));
  const manifest = parseJson(text) as { segments: Array<{ id: string; body: string; deletes?: string }> };
  for (const segment of manifest.segments) {
    const names = [segment.body, ...(segment.deletes ? [segment.deletes] : [])];
    for (const ext of SIDE_FILE_EXTENSIONS) {
      const side = `${segment.id}${ext}`;
      if (await exists(path.join(segmentsDir, side))) names.push(side);
    }
    for (const name of names) await linkOrCopy(path.join(segmentsDir, name), path.join(targetSegments, name));
  }
}

async function linkOrCopy(from: string, to: string): Promise<void> {
  try {
    await durableFs.link(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    await durableFs.copyFile(from, to);
  }
}

async function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(
    () => true,
    () => false,
  );
}
