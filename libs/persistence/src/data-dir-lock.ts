import { promises as fs, rmSync } from 'node:fs';
import * as path from 'node:path';

const LOCK_FILE = 'vectorstore.lock';

/**
 * Makes sure only one server process uses a data folder. The lock records the owner's pid;
 * a lock left by a process that no longer runs (kill -9) is taken over.
 */
export class DataDirLock {
  private constructor(private readonly lockPath: string) {}

  static async acquire(dataDir: string): Promise<DataDirLock> {
    await fs.mkdir(dataDir, { recursive: true, mode: 0o700 });
    const lockPath = path.join(dataDir, LOCK_FILE);
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const handle = await fs.open(lockPath, 'wx', 0o600);
        await handle.writeFile(String(process.pid));
        await handle.close();
        return new DataDirLock(lockPath);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        const owner = Number.parseInt((await fs.readFile(lockPath, 'utf8').catch(() => '')).trim(), 10);
        if (Number.isInteger(owner) && owner !== process.pid && isProcessAlive(owner)) {
          throw new Error(`data folder ${dataDir} is in use by process ${owner} (${lockPath})`);
        }
        await fs.rm(lockPath, { force: true });
      }
    }
    throw new Error(`could not lock data folder ${dataDir}`);
  }

  async release(): Promise<void> {
    await fs.rm(this.lockPath, { force: true });
  }

  /** For `process.on('exit')`, where asynchronous work no longer runs. */
  releaseSync(): void {
    rmSync(this.lockPath, { force: true });
  }
}

/** Whether a process with this pid exists (EPERM: it exists but belongs to another user). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
