import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/**
 * Removes temporary siblings of `filePath` that a crash left behind (`writeFileAtomic` names
 * them `.<name>.<pid>.<random>.tmp`). Only this file's, so concurrent writers of other files in
 * the same folder are not disturbed. Call while no one else can be writing `filePath`.
 */
export async function removeStaleTemporaryFilesOf(filePath: string): Promise<void> {
  const dir = path.dirname(filePath);
  const prefix = `.${path.basename(filePath)}.`;
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  await Promise.all(
    names.filter((name) => name.startsWith(prefix) && name.endsWith('.tmp')).map((name) => fs.rm(path.join(dir, name), { force: true })),
  );
}
