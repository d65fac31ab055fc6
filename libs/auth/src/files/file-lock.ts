import { tryLockFile, unlockFile } from '@vectorstore/persistence';
import { constants, promises as fs } from 'node:fs';

export interface FileLockOptions {
  /** Give up after this long (ms). */
  timeoutMs?: number;
}

/**
 * A cross-process lock held for a short read-modify-write: an exclusive flock(2) on `lockPath`.
 * Used so the server and the user CLI never interleave changes to the same file. The kernel drops
 * the lock when its holder closes the file or dies (kill -9 too), so there is no stale lock to
 * detect; a busy lock is retried until `timeoutMs`. The file holds the holder's pid, only to name it
 * in the time-out message.
 *
 * The file is removed on release, while still locked. A waiter may have opened it before that and
 * then lock a file that is no longer at `lockPath`; it therefore checks, once locked, that `lockPath`
 * still names the file it locked, and starts over if not. So only the file at `lockPath` ever grants
 * the lock, and a waiter never holds a lock on an unlinked file while another process holds the new one.
 */
export class FileLock {
  private constructor(
    private readonly lockPath: string,
    private readonly handle: fs.FileHandle,
  ) {}

  static async acquire(lockPath: string, options: FileLockOptions = {}): Promise<FileLock> {
    const timeoutMs = options.timeoutMs ?? 10_000;
    const deadline = Date.now() + timeoutMs;
    for (let delay = 5; ; delay = Math.min(delay * 2, 100)) {
      // Not O_TRUNC: until we hold the lock, the pid in it is the holder's.
      const handle = await fs.open(lockPath, constants.O_RDWR | constants.O_CREAT, 0o600);
      let locked = false;
      try {
        locked = tryLockFile(handle.fd);
        if (locked && (await isAt(handle, lockPath))) {
          await handle.truncate(0);
          await handle.write(String(process.pid), 0);
          return new FileLock(lockPath, handle);
        }
      } catch (error) {
        await handle.close();
        throw error;
      }
      await handle.close();
      // Locked a file its holder had already removed: the lock is free, take the new file at once.
      if (locked) continue;
      if (Date.now() >= deadline) throw new Error(`timed out waiting for lock ${lockPath}${await holderOf(lockPath)}`);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }

  async release(): Promise<void> {
    try {
      await fs.rm(this.lockPath, { force: true });
    } finally {
      try {
        unlockFile(this.handle.fd);
      } finally {
        await this.handle.close();
      }
    }
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

/** Whether `lockPath` still names the file open in `handle`. */
async function isAt(handle: fs.FileHandle, lockPath: string): Promise<boolean> {
  try {
    const [open, named] = await Promise.all([handle.stat({ bigint: true }), fs.stat(lockPath, { bigint: true })]);
    return open.ino === named.ino && open.dev === named.dev;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** " (held by pid N)" from the lock file, or nothing when it names none. */
async function holderOf(lockPath: string): Promise<string> {
  const text = (await fs.readFile(lockPath, 'utf8').catch(() => '')).trim();
  return /^[1-9]\d{0,9}$/.test(text) ? ` (held by pid ${text})` : '';
}
