import { closeSync, constants, ftruncateSync, openSync, promises as fs, readFileSync, writeSync } from 'node:fs';
import * as path from 'node:path';
import { LockUnsupportedError, tryLockFile, unlockFile } from './flock';

export const DATA_DIR_LOCK_FILE = 'vectorstore.lock';

/** How long {@link DataDirLock.acquire} waits for a busy lock by default (ms). */
export const DATA_DIR_LOCK_WAIT_MS = 10_000;

export interface DataDirLockOptions {
  /**
   * Wait this long (ms) for a lock that is held before giving up. A process killed with SIGKILL
   * keeps its lock until the kernel has torn it down (its memory first, then its files), which
   * may take a moment for a large heap (about 90 ms per GiB measured here); a restart right after
   * the kill should not fail over that. A second live server is refused once this has passed.
   */
  waitMs?: number;
  /** Called once when the lock is still busy after a second, with the holder's pid if it wrote one. */
  onWait?: (holderPid: number | undefined) => void;
}

/** Another open of the lock file holds it: a second server on the same data folder. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly lockPath: string,
    /** As written by the holder, for the message only; undefined when unreadable. */
    readonly holderPid: number | undefined,
  ) {
    const holder = holderPid === undefined ? '' : `pid ${holderPid}; `;
    super(`data folder ${dataDir} is in use by another vectorstore server (${holder}lock ${lockPath})`);
    this.name = 'DataDirInUseError';
  }
}

/**
 * Makes sure only one server process uses a data folder: an exclusive flock(2) on
 * `<dataDir>/vectorstore.lock`, held through an open descriptor for the life of the process. The
 * kernel releases it when the process dies however it dies, so there is nothing stale to detect
 * and take over. The file holds the holder's pid, only to name it in the error; the decision never
 * reads it (a pid can be a zombie or reused by an unrelated process). The file is never removed:
 * unlinking a locked file would let the next server lock a new file while someone still holds the
 * old one. A file left by an earlier version (pid text, no flock) is simply locked and overwritten.
 */
export class DataDirLock {
  private fd: number | undefined;

  private constructor(
    readonly lockPath: string,
    fd: number,
  ) {
    this.fd = fd;
  }

  static async acquire(dataDir: string, options: DataDirLockOptions = {}): Promise<DataDirLock> {
    const waitMs = options.waitMs ?? DATA_DIR_LOCK_WAIT_MS;
    await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
    const lockPath = path.join(dataDir, DATA_DIR_LOCK_FILE);
    // Not O_TRUNC: the pid in it belongs to the holder until we hold the lock. Node opens with
    // O_CLOEXEC, so processes the server might spawn do not inherit the descriptor (nor the lock).
    const fd = openSync(lockPath, constants.O_RDWR | constants.O_CREAT, 0o600);
    try {
      const deadline = Date.now() + waitMs;
      let waitingNoticed = false;
      for (let delay = 10; !lockOrExplain(fd, lockPath); delay = Math.min(delay * 2, 100)) {
        if (!waitingNoticed && Date.now() >= deadline - waitMs + 1_000) {
          waitingNoticed = true;
          options.onWait?.(readPid(lockPath));
        }
        if (Date.now() >= deadline) throw new DataDirInUseError(dataDir, lockPath, readPid(lockPath));
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
      ftruncateSync(fd, 0);
      writeSync(fd, String(process.pid), 0);
      return new DataDirLock(lockPath, fd);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  async release(): Promise<void> {
    this.releaseSync();
  }

  /** Unlocks and closes (the file stays). Also fine from `process.on('exit')`; a second call does nothing. */
  releaseSync(): void {
    if (this.fd === undefined) return;
    const fd = this.fd;
    this.fd = undefined;
    try {
      unlockFile(fd);
    } finally {
      closeSync(fd);
    }
  }
}

/** {@link tryLockFile}, with the lock file named when the file system cannot lock at all. */
function lockOrExplain(fd: number, lockPath: string): boolean {
  try {
    return tryLockFile(fd);
  } catch (error) {
    if (error instanceof LockUnsupportedError) throw new DataDirLockError(`cannot lock ${lockPath}: ${error.message}`);
    throw error;
  }
}

/** The data folder cannot be locked at all (see {@link LockUnsupportedError}): refused, with the path. */
export class DataDirLockError extends Error {}

function readPid(lockPath: string): number | undefined {
  try {
    const text = readFileSync(lockPath, 'utf8').trim();
    return /^[1-9]\d{0,9}$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}
