import { durableFs } from '@vectorstore/persistence';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/**
 * Replacing a shard's folder by another (a shard snapshot restored) takes two renames, and a crash between them
 * must not lose the shard. The folders' names are the journal: beside `shards/<id>` there may be
 *
 * - `<id>.restored`: the replacement, moved there first (same file system, so the later rename is atomic);
 * - `<id>.replaced`: the old folder, moved aside just before the replacement takes its name;
 * - `<id>.discarded`: a replacement being undone after it failed to open, or a shard folder being removed (a reset,
 *   a shard no longer placed here), so that no shard is ever left in part under its own name.
 *
 * Each rename is made durable (the folder fsynced) before the next one, and {@link settleShardReplacement} reads
 * the names at start, before the shard opens: the shard is then the old folder or the new one, whole.
 */
export interface ShardFolders {
  dir: string;
  restored: string;
  replaced: string;
  discarded: string;
}

export function shardFolders(dir: string): ShardFolders {
  return { dir, restored: `${dir}.restored`, replaced: `${dir}.replaced`, discarded: `${dir}.discarded` };
}

/**
 * Step 1: the replacement goes beside the shard. A crash from here until step 2 leaves the old shard in use. What
 * an earlier replacement left beside the shard (a `.replaced` whose removal failed) goes first: the shard folder is
 * the live one, and an older `.replaced` must never be taken for the folder to put back.
 */
export async function stageReplacement(folders: ShardFolders, replacementDir: string): Promise<void> {
  for (const leftover of [folders.restored, folders.replaced, folders.discarded])
    await durableFs.rm(leftover, { recursive: true, force: true });
  await durableFs.rename(replacementDir, folders.restored);
  await durableFs.syncDirectory(path.dirname(folders.dir));
}

/**
 * Step 2, with the old shard closed: the old folder aside, the replacement in its place. A crash between the two
 * renames finds `<id>.restored` and no `<id>`, and start finishes the move.
 */
export async function swapInReplacement(folders: ShardFolders): Promise<void> {
  const parent = path.dirname(folders.dir);
  await durableFs.rename(folders.dir, folders.replaced);
  await durableFs.syncDirectory(parent);
  await durableFs.rename(folders.restored, folders.dir);
  await durableFs.syncDirectory(parent);
}

/** After the replacement opened: the old folder goes (a crash midway leaves the rest for start to remove). */
export async function dropReplaced(folders: ShardFolders): Promise<void> {
  await durableFs.rm(folders.replaced, { recursive: true, force: true });
}

/**
 * The replacement failed before or after it took the shard's name: the old folder is put back, through names
 * {@link settleShardReplacement} reads the same way, and the replacement removed.
 */
export async function undoReplacement(folders: ShardFolders): Promise<void> {
  const parent = path.dirname(folders.dir);
  if (await exists(folders.replaced)) {
    if (await exists(folders.dir)) {
      await durableFs.rename(folders.dir, folders.discarded);
      await durableFs.syncDirectory(parent);
    }
    await durableFs.rename(folders.replaced, folders.dir);
    await durableFs.syncDirectory(parent);
  }
  await durableFs.rm(folders.restored, { recursive: true, force: true });
  await durableFs.rm(folders.discarded, { recursive: true, force: true });
}

/**
 * Removes a shard's folder so that a crash midway cannot leave a shard in part under its name (a manifest naming
 * files already gone): it is renamed to `<id>.discarded` first, which start removes ({@link settleShardReplacement}).
 */
export async function discardShardFolder(dir: string): Promise<void> {
  const folders = shardFolders(dir);
  if (await exists(dir)) {
    await durableFs.rm(folders.discarded, { recursive: true, force: true });
    await durableFs.rename(dir, folders.discarded);
    await durableFs.syncDirectory(path.dirname(dir));
  }
  await durableFs.rm(folders.discarded, { recursive: true, force: true });
}

/**
 * At start, before shard `dir` opens: finishes or undoes a replacement a crash interrupted. No `<id>` but
 * `<id>.restored`: the crash came between the two renames of a swap, which is finished (the replacement was
 * whole and had opened in its staging folder). No `<id>` but `<id>.replaced`: an undo was interrupted and is
 * finished. Then whatever is left beside `<id>` is removed (a replacement never swapped in, an old folder no
 * longer used). Returns what it did, for the log.
 */
export async function settleShardReplacement(dir: string): Promise<string | undefined> {
  const folders = shardFolders(dir);
  const [current, restored, replaced, discarded] = await Promise.all(
    [folders.dir, folders.restored, folders.replaced, folders.discarded].map(exists),
  );
  if (!restored && !replaced && !discarded) return undefined;
  const parent = path.dirname(dir);
  let done: string;
  if (!current && restored) {
    await durableFs.rename(folders.restored, folders.dir);
    done = `finished replacing shard folder ${dir} by a restored snapshot, which a crash had interrupted`;
  } else if (!current && replaced) {
    await durableFs.rename(folders.replaced, folders.dir);
    done = `put back shard folder ${dir}: undoing a failed restore had been interrupted`;
  } else {
    done = `removed what an interrupted or finished restore left beside shard folder ${dir}`;
  }
  await durableFs.syncDirectory(parent);
  for (const leftover of [folders.restored, folders.replaced, folders.discarded])
    await durableFs.rm(leftover, { recursive: true, force: true });
  return done;
}

async function exists(target: string): Promise<boolean> {
  return fs.stat(target).then(
    () => true,
    () => false,
  );
}
