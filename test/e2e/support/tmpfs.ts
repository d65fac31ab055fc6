import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmdirSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/**
 * Small tmpfs file systems for tests that need a disk that really fills up (running as root, as CI does).
 * Every mount made here has to be undone by `unmountTmpfs` in an `afterAll`.
 */

/** Mounts a fresh tmpfs of `sizeMiB` on a new folder under the system's temporary folder; returns that folder. */
export function mountTmpfs(sizeMiB: number): string {
  const mountPoint = mkdtempSync(path.join(tmpdir(), 'vectorstore-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m,mode=0700`, 'tmpfs', mountPoint], { stdio: 'pipe' });
  } catch (error) {
    rmdirSync(mountPoint);
    throw error;
  }
  return mountPoint;
}

/** Unmounts (lazily if something still holds a file open) and removes the folder; never throws. */
export function unmountTmpfs(mountPoint: string): void {
  try {
    execFileSync('umount', [mountPoint], { stdio: 'pipe' });
  } catch {
    try {
      execFileSync('umount', ['-l', mountPoint], { stdio: 'pipe' });
    } catch {
      // not mounted (any more)
    }
  }
  try {
    rmdirSync(mountPoint);
  } catch {
    // still mounted, or never created: nothing more to do
  }
}

/** Why a tmpfs cannot be mounted here (a probe mount, undone at once), or undefined when it can. */
export function tmpfsUnavailableReason(): string | undefined {
  if (process.platform !== 'linux') return `tmpfs mounts need Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'mounting a tmpfs needs root';
  try {
    unmountTmpfs(mountTmpfs(1));
    return undefined;
  } catch (error) {
    return `mount -t tmpfs failed: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`;
  }
}

/**
 * Fills the file system holding `folder` with one file in it until the file system refuses more (ENOSPC), in
 * large writes and then in single pages so that no page is left; returns the file's path.
 */
export function fillFileSystem(folder: string): string {
  const filler = path.join(folder, 'filler');
  const fd = openSync(filler, 'w');
  try {
    for (const chunk of [Buffer.alloc(1 << 20, 1), Buffer.alloc(4096, 1), Buffer.alloc(512, 1)]) {
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return filler;
}

/** Deletes a file `fillFileSystem` made. */
export function freeFileSystem(filler: string): void {
  rmSync(filler, { force: true });
}

/** Whether this is a CI run: CI set to anything but '', 'false' or '0' (as the other suites decide). */
function isCi(): boolean {
  const ci = process.env.CI;
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}

/**
 * `describe` for tests on a tmpfs. Where none can be mounted they fail under CI (a full-disk test that did not run
 * must not pass as green) and otherwise are skipped with a warning on the console: never silently.
 */
export function describeOnTmpfs(name: string, body: () => void): void {
  const reason = tmpfsUnavailableReason();
  if (reason === undefined) {
    describe(name, body);
    return;
  }
  if (isCi()) {
    describe(name, () => {
      it('needs a tmpfs under CI=true', () => {
        throw new Error(`${reason}. Full-disk tests never skip under CI=true.`);
      });
    });
    return;
  }
  console.warn(`SKIPPING "${name}": ${reason}.`);
  describe.skip(name, body);
}
