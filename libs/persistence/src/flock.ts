import type * as FsExt from 'fs-ext';

// fs-ext is a native add-on that V8 cannot load into a second worker thread: the process aborts. The segment
// builder starts a worker per build, and each loads this library for its atomic writes. So the add-on is loaded on
// first use, which only the main thread reaches (locks are taken by the server and the CLI, never by workers).
let fsExt: typeof FsExt | undefined;
function flockSync(fd: number, flags: 'exnb' | 'un'): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose, see above
  fsExt ??= require('fs-ext') as typeof FsExt;
  fsExt.flockSync(fd, flags);
}

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
