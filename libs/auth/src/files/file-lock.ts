import { isProcessAlive } from '@vectorstore/persistence';
import { promises as fs } from 'node:fs';

export interface FileLockOptions {
  /** Give up after this long (ms). */
  timeoutMs?: number;
  /** A lock older than this (ms) is considered abandoned even if its pid looks alive. */
  staleMs?: number;
}

/**
 * A cross-process advisory lock: a file created with O_EXCL holding the owner's pid. Used so the
 * server and the user CLI never interleave read-modify-write cycles on the same file. A lock left
 * by a dead process (or older than `staleMs`) is taken over.
 */
export class FileLock {
  private constructor(private readonly lockPath: string) {}

  static async acquire(lockPath: string, options: FileLockOptions = {}): Promise<FileLock> {
    const timeoutMs = options.timeoutMs ?? 10_000;
    const staleMs = options.staleMs ?? 30_000;
    const deadline = Date.now() + timeoutMs;
    for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
      try {
        const handle = await fs.open(lockPath, 'wx', 0o600);
        try {
          await handle.writeFile(String(process.pid));
        } finally {
          await handle.close();
        }
        return new FileLock(lockPath);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      if (await isAbandoned(lockPath, staleMs)) {
        await fs.rm(lockPath, { force: true });
        continue;
      }
      if (Date.now() >= deadline) throw new Error(`timed out waiting for lock ${lockPath}`);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  async release(): Promise<void> {
    await fs.rm(this.lockPath, { force: true });
  }

  /** Runs `task` while holding the lock at `lockPath`. */
  static async with<T>(lockPath: string, task: () => Promise<T>, options?: FileLockOptions): Promise<T> {
    const lock = await FileLock.acquire(lockPath, options);
    try {
      return await task();
    } finally {
      await lock.release();
    }
  }
}

async function isAbandoned(lockPath: string, staleMs: number): Promise<boolean> {
  try {
    const [text, stat] = await Promise.all([fs.readFile(lockPath, 'utf8'), fs.stat(lockPath)]);
    if (Date.now() - stat.mtimeMs > staleMs) return true;
    const owner = Number.parseInt(text.trim(), 10);
    // An empty file is a lock being written right now; give its owner time.
    return Number.isInteger(owner) && !isProcessAlive(owner);
  } catch (error) {
    // Released between our attempt and the check: try again at once.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
