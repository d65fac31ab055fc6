import { durableFs } from '@vectorstore/persistence';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Segment } from '../segment';

/** Files an immutable segment may keep data in besides its body: `<id>.vec` (vectors), `<id>.pay` (payloads). */
export const SIDE_FILE_EXTENSIONS = ['.vec', '.pay'] as const;

/**
 * The body file of a segment at its version: a new version gets a new name, so none is overwritten. A body written
 * again at the same version (from memory) takes a `tag` before the version, which stays last (`<id>.<tag>.<version>`).
 */
export function bodyFileName(segment: Segment, tag?: string): string {
  return tag === undefined ? `${segment.id}.${segment.version}.seg` : `${segment.id}.${tag}.${segment.version}.seg`;
}

/** The delete file of an immutable segment at its version (named like bodies, for the same reason). */
export function deletesFileName(segment: Segment): string {
  return `${segment.id}.${segment.version}.del`;
}

/** Removes the vector and payload files of segment `id` from `dir`. */
export async function removeSideFiles(dir: string, id: string): Promise<void> {
  await Promise.all(SIDE_FILE_EXTENSIONS.map((ext) => durableFs.rm(path.join(dir, `${id}${ext}`), { force: true })));
}

/**
 * Removes from `dir` the bodies and delete files not in `keepFiles`, and the vector and payload
 * files of segments not in `keepIds` (those belong to their segment for its whole life).
 */
export async function removeFilesNotKept(
  dir: string,
  keepFiles: ReadonlySet<string>,
  keepIds: ReadonlySet<string>,
): Promise<void> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const unlisted = (name: string): boolean => {
    if (/\.(seg|del)$/.test(name)) return !keepFiles.has(name);
    if (SIDE_FILE_EXTENSIONS.some((ext) => name.endsWith(ext))) return !keepIds.has(name.slice(0, name.indexOf('.')));
    return false;
  };
  await Promise.all(names.filter(unlisted).map((name) => durableFs.rm(path.join(dir, name), { force: true })));
}
