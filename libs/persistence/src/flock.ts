import { flockSync } from 'fs-ext';

/**
 * Tries to take an exclusive flock(2) on `fd` without waiting. False when another open file
 * description holds it: another process, or another open() of the same file in this process.
 * The kernel drops the lock when the last descriptor of the open file is closed, which includes
 * the process dying by any means (kill -9 too), so a lock never outlives its holder.
 */
export function tryLockFile(fd: number): boolean {
  try {
    flockSync(fd, 'exnb');
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EAGAIN' || code === 'EWOULDBLOCK') return false;
    throw error;
  }
}

/** Drops a flock(2) taken with {@link tryLockFile}. */
export function unlockFile(fd: number): void {
  flockSync(fd, 'un');
}
