import type * as FsExt from 'fs-ext';
import { isMainThread } from 'node:worker_threads';

// fs-ext is a native add-on that V8 cannot load into a second worker thread: the process aborts. The segment
// builder starts a worker per build, and each loads this library for its atomic writes. So the add-on is loaded on
// first use, which only the main thread reaches (locks are taken by the server and the CLI, never by workers).
let fsExt: typeof FsExt | undefined;
function flockSync(fd: number, flags: 'exnb' | 'un'): void {
  if (!isMainThread) throw new Error('file locks are taken on the main thread only (fs-ext cannot load in a worker)');
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
    throw new LockUnsupportedError(code);
  }
}

/**
 * flock(2) failed for another reason than a holder (ENOLCK, EINVAL, ENOSYS, EOPNOTSUPP): the file system
 * cannot lock, e.g. NFS without working locks. Refusing is the only safe answer.
 */
export class LockUnsupportedError extends Error {
  constructor(readonly code: string | undefined) {
    super(
      `the file system cannot lock files (flock: ${code ?? 'unknown error'}); use a local file system, or NFS with working locks`,
    );
  }
}

/** Drops a flock(2) taken with {@link tryLockFile}. */
export function unlockFile(fd: number): void {
  flockSync(fd, 'un');
}
