import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DataDirLock } from './data-dir-lock';

const LOCK_FILE = 'vectorstore.lock';

/** A pid that no process uses right now (checked, not assumed). */
function deadPid(): number {
  for (let pid = 999_999; pid > 900_000; pid--) {
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return pid;
    }
  }
  throw new Error('no free pid found');
}

describe(DataDirLock.name, () => {
  let dir: string;
  const children: ChildProcess[] = [];

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vs-lock-'));
  });

  afterEach(() => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('acquire', () => {
    it('should create the lock file holding this process id with mode 0o600', async () => {
      await DataDirLock.acquire(dir);

      const lockPath = path.join(dir, LOCK_FILE);
      expect(fs.readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
      expect(fs.statSync(lockPath).mode & 0o777).toBe(0o600);
    });

    it('should create a missing data folder', async () => {
      const nested = path.join(dir, 'a', 'b');

      await DataDirLock.acquire(nested);

      expect(fs.existsSync(path.join(nested, LOCK_FILE))).toBe(true);
    });

    it('should refuse a folder locked by another live process', async () => {
      const child = spawn('sleep', ['30'], { stdio: 'ignore' });
      children.push(child);
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', () => resolve());
        child.once('error', reject);
      });
      const lockPath = path.join(dir, LOCK_FILE);
      fs.writeFileSync(lockPath, String(child.pid));

      await expect(DataDirLock.acquire(dir)).rejects.toThrow(`is in use by process ${child.pid}`);

      expect(fs.readFileSync(lockPath, 'utf8')).toBe(String(child.pid));
    });

    it('should take over a lock left by a process that no longer runs', async () => {
      const lockPath = path.join(dir, LOCK_FILE);
      fs.writeFileSync(lockPath, String(deadPid()));

      await DataDirLock.acquire(dir);

      expect(fs.readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
    });

    it('should take over a lock file with unreadable content', async () => {
      const lockPath = path.join(dir, LOCK_FILE);
      fs.writeFileSync(lockPath, 'garbage');

      await DataDirLock.acquire(dir);

      expect(fs.readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
    });

    it("should take over a lock holding this process's own pid (a restart reusing the pid)", async () => {
      const lockPath = path.join(dir, LOCK_FILE);
      fs.writeFileSync(lockPath, String(process.pid));

      await expect(DataDirLock.acquire(dir)).resolves.toBeInstanceOf(DataDirLock);
      expect(fs.readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
    });
  });

  describe('release', () => {
    it('should remove the lock file', async () => {
      const lock = await DataDirLock.acquire(dir);

      await lock.release();

      expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
    });

    it('should succeed when the lock file is already gone', async () => {
      const lock = await DataDirLock.acquire(dir);
      fs.rmSync(path.join(dir, LOCK_FILE));

      await expect(lock.release()).resolves.toBeUndefined();
    });

    it('should let the folder be locked again after release', async () => {
      const lock = await DataDirLock.acquire(dir);
      await lock.release();

      await DataDirLock.acquire(dir);

      expect(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8')).toBe(String(process.pid));
    });
  });
});
