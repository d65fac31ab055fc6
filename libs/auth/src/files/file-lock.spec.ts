import { ChildProcess, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { FileLock } from './file-lock';

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..', '..');

describe(FileLock.name, () => {
  let dir: string;
  let lockPath: string;
  const children: ChildProcess[] = [];
  const holders: number[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'file-lock-'));
    lockPath = path.join(dir, 'x.lock');
  });

  afterEach(async () => {
    for (const pid of [...holders.splice(0), ...children.splice(0).map((child) => child.pid)]) {
      try {
        if (pid !== undefined) process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await rm(dir, { recursive: true, force: true });
  });

  /**
   * Another process holding the lock with FileLock, under a perl parent that never reaps it (once
   * killed it stays a zombie, whose pid still looks alive to `kill(pid, 0)`). Resolves with its pid.
   */
  async function lockInChild(file: string): Promise<number> {
    const script = [
      `const { FileLock } = require(${JSON.stringify(path.join(__dirname, 'file-lock.ts'))});`,
      `FileLock.acquire(${JSON.stringify(file)}, { timeoutMs: 0 }).then(`,
      // Keep the lock reachable: a FileHandle that is garbage-collected closes its descriptor, dropping the flock.
      `  (lock) => { globalThis.heldLock = lock; process.stdout.write('locked ' + process.pid + '\\n'); setInterval(() => {}, 1 << 30); },`,
      `  (error) => { process.stderr.write(String(error) + '\\n'); process.exit(1); });`,
    ].join('\n');
    const perl = 'if (my $pid = fork) { sleep 3600 } else { exec @ARGV or die "exec: $!" }';
    const child = spawn('perl', ['-e', perl, process.execPath, '--import', 'tsx', '-e', script], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let output = '';
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`child did not lock:\n${output}`)), 20_000);
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /locked (\d+)/.exec(output);
        if (match) {
          holders.push(Number(match[1]));
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('error', reject);
      child.once('exit', () => reject(new Error(`child exited before locking:\n${output}`)));
    });
  }

  describe('with', () => {
    it('should run tasks one at a time', async () => {
      let inside = 0;
      let most = 0;
      await Promise.all(
        Array.from({ length: 5 }, () =>
          FileLock.with(lockPath, async () => {
            inside += 1;
            most = Math.max(most, inside);
            await new Promise((resolve) => setTimeout(resolve, 5));
            inside -= 1;
          }),
        ),
      );
      expect(most).toBe(1);
      await expect(fs.access(lockPath)).rejects.toThrow();
    });

    it('should keep tasks apart while the lock file is removed and created again many times', async () => {
      let inside = 0;
      let most = 0;
      let runs = 0;
      await Promise.all(
        Array.from({ length: 20 }, () =>
          FileLock.with(lockPath, async () => {
            inside += 1;
            most = Math.max(most, inside);
            await new Promise((resolve) => setImmediate(resolve));
            runs += 1;
            inside -= 1;
          }),
        ),
      );
      expect(runs).toBe(20);
      expect(most).toBe(1);
      await expect(fs.access(lockPath)).rejects.toThrow();
    });

    it('should release the lock when the task throws', async () => {
      await expect(FileLock.with(lockPath, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');

      await expect(FileLock.with(lockPath, () => Promise.resolve(1), { timeoutMs: 0 })).resolves.toBe(1);
    });
  });

  describe('acquire', () => {
    it('should take over a lock whose owner is dead', async () => {
      await fs.writeFile(lockPath, '999999999');
      const lock = await FileLock.acquire(lockPath, { timeoutMs: 1000 });
      await lock.release();
    });

    it('should time out on a lock held by a live process', async () => {
      const holder = await FileLock.acquire(lockPath);
      await expect(FileLock.acquire(lockPath, { timeoutMs: 100 })).rejects.toThrow(/timed out/);
      await holder.release();
    });

    it('should write its pid into the lock file and name the holder in the time-out message', async () => {
      const holder = await FileLock.acquire(lockPath);

      expect(await fs.readFile(lockPath, 'utf8')).toBe(String(process.pid));
      await expect(FileLock.acquire(lockPath, { timeoutMs: 0 })).rejects.toThrow(
        `timed out waiting for lock ${lockPath} (held by pid ${process.pid})`,
      );
      await holder.release();
    });

    it('should not wait for a lock file naming a live process that does not hold the lock', async () => {
      await fs.writeFile(lockPath, String(process.pid));

      const lock = await FileLock.acquire(lockPath, { timeoutMs: 0 });

      await lock.release();
    });

    it('should wait for a lock held by another process, and take it once that process is SIGKILLed even before it is reaped', async () => {
      const holder = await lockInChild(lockPath);
      await expect(FileLock.acquire(lockPath, { timeoutMs: 100 })).rejects.toThrow(
        `timed out waiting for lock ${lockPath} (held by pid ${holder})`,
      );

      const waiting = FileLock.acquire(lockPath, { timeoutMs: 5_000 });
      process.kill(holder, 'SIGKILL');
      const lock = await waiting;

      expect(await fs.readFile(lockPath, 'utf8')).toBe(String(process.pid));
      await lock.release();
    });
  });
});
