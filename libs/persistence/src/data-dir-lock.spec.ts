import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DataDirInUseError, DataDirLock } from './data-dir-lock';

const LOCK_FILE = 'vectorstore.lock';
const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
const onLinux = process.platform === 'linux' ? it : it.skip;

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

/** Scheduler state of a process from /proc (`Z` for a zombie), undefined once it is gone. */
function processState(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

/** This process's descriptors open on `file` (Linux). */
function descriptorsOn(file: string): number[] {
  return fs
    .readdirSync('/proc/self/fd')
    .map(Number)
    .filter((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`) === file;
      } catch {
        return false;
      }
    });
}

describe(DataDirLock.name, () => {
  let dir: string;
  const children: ChildProcess[] = [];
  const locks: DataDirLock[] = [];
  const holders: number[] = [];

  const acquire = async (dataDir: string, waitMs?: number) => {
    const lock = await DataDirLock.acquire(dataDir, { waitMs });
    locks.push(lock);
    return lock;
  };

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vs-lock-'));
  });

  afterEach(() => {
    for (const lock of locks.splice(0)) lock.releaseSync();
    for (const pid of holders.splice(0)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
        process.kill(child.pid, 'SIGKILL');
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Spawns `command` and resolves once it runs. */
  async function spawnChild(command: string, args: string[]): Promise<ChildProcess> {
    const child = spawn(command, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', reject);
    });
    return child;
  }

  /**
   * Another process locking `dir` with DataDirLock. It runs under a perl parent that never reaps it,
   * so once killed it stays a zombie whose pid `kill(pid, 0)` still finds. Resolves with its pid.
   */
  async function lockInChild(dataDir: string): Promise<number> {
    const script = [
      `const { DataDirLock } = require(${JSON.stringify(path.join(__dirname, 'data-dir-lock.ts'))});`,
      `DataDirLock.acquire(${JSON.stringify(dataDir)}, { waitMs: 0 }).then(`,
      `  () => { process.stdout.write('locked ' + process.pid + '\\n'); setInterval(() => {}, 1 << 30); },`,
      `  (error) => { process.stderr.write(String(error) + '\\n'); process.exit(1); });`,
    ].join('\n');
    const child = await spawnChild('perl', [
      '-e',
      'if (my $pid = fork) { sleep 3600 } else { exec @ARGV or die "exec: $!" }',
      process.execPath,
      '--import',
      'tsx',
      '-e',
      script,
    ]);
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
      child.once('exit', () => reject(new Error(`child exited before locking:\n${output}`)));
    });
  }

  describe('acquire', () => {
    it('should create the lock file holding this process id with mode 0o600', async () => {
      await acquire(dir);

      const lockPath = path.join(dir, LOCK_FILE);
      expect(fs.readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
      expect(fs.statSync(lockPath).mode & 0o777).toBe(0o600);
    });

    it('should create a missing data folder', async () => {
      const nested = path.join(dir, 'a', 'b');

      await acquire(nested);

      expect(fs.existsSync(path.join(nested, LOCK_FILE))).toBe(true);
    });

    it('should not be blocked by a lock file naming a live process that does not hold the lock', async () => {
      const sleeper = await spawnChild('sleep', ['30']);
      const lockPath = path.join(dir, LOCK_FILE);
      fs.writeFileSync(lockPath, String(sleeper.pid));

      await acquire(dir, 0);

      expect(fs.readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
    });

    it('should not be blocked by a lock file naming pid 1', async () => {
      const lockPath = path.join(dir, LOCK_FILE);
      fs.writeFileSync(lockPath, '1');

      await acquire(dir, 0);

      expect(fs.readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
    });

    it('should reuse a lock file left by an earlier version naming a process that no longer runs', async () => {
      const lockPath = path.join(dir, LOCK_FILE);
      fs.writeFileSync(lockPath, String(deadPid()));

      await acquire(dir, 0);

      expect(fs.readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
    });

    it('should reuse a lock file with unreadable content, replacing all of it', async () => {
      const lockPath = path.join(dir, LOCK_FILE);
      fs.writeFileSync(lockPath, 'garbage that is longer than a pid');

      await acquire(dir, 0);

      expect(fs.readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
    });

    it("should reuse a lock file holding this process's own pid (a restart reusing the pid)", async () => {
      const lockPath = path.join(dir, LOCK_FILE);
      fs.writeFileSync(lockPath, String(process.pid));

      await expect(acquire(dir, 0)).resolves.toBeInstanceOf(DataDirLock);
      expect(fs.readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
    });

    it('should refuse a second lock on the same folder within this process', async () => {
      await acquire(dir);
      const lockPath = path.join(dir, LOCK_FILE);

      const second = acquire(dir, 50);

      await expect(second).rejects.toThrow(DataDirInUseError);
      await expect(second).rejects.toThrow(
        `data folder ${dir} is in use by another vectorstore server (pid ${process.pid}; lock ${lockPath})`,
      );
      expect(fs.readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
    });

    it('should leave out the pid when the holder has not written one', async () => {
      await acquire(dir);
      const lockPath = path.join(dir, LOCK_FILE);
      fs.writeFileSync(lockPath, '');

      await expect(acquire(dir, 0)).rejects.toThrow(
        `data folder ${dir} is in use by another vectorstore server (lock ${lockPath})`,
      );
    });

    it('should wait for a lock that is released within the wait', async () => {
      const first = await acquire(dir);
      setTimeout(() => first.releaseSync(), 100);

      await expect(acquire(dir, 5_000)).resolves.toBeInstanceOf(DataDirLock);
    });

    it('should refuse a folder locked by another process, and lock it once that process is SIGKILLed even before it is reaped', async () => {
      const holder = await lockInChild(dir);
      const lockPath = path.join(dir, LOCK_FILE);

      await expect(acquire(dir, 0)).rejects.toThrow(
        `data folder ${dir} is in use by another vectorstore server (pid ${holder}; lock ${lockPath})`,
      );

      process.kill(holder, 'SIGKILL');
      await acquire(dir);

      expect(fs.readFileSync(lockPath, 'utf8')).toBe(String(process.pid));
      if (process.platform === 'linux') expect(processState(holder)).toBe('Z');
    });

    onLinux(
      'should hold the lock through a close-on-exec descriptor that spawned processes do not inherit',
      async () => {
        await acquire(dir);
        const lockPath = fs.realpathSync(path.join(dir, LOCK_FILE));

        const fds = descriptorsOn(lockPath);
        expect(fds).toHaveLength(1);
        const flags = Number.parseInt(
          /^flags:\s+(\d+)$/m.exec(fs.readFileSync(`/proc/self/fdinfo/${fds[0]}`, 'utf8'))![1],
          8,
        );
        expect(flags & 0o2000000).toBe(0o2000000); // O_CLOEXEC
        // What a spawned process has open: its stdio and nothing of ours.
        const inChild = execFileSync('sh', ['-c', 'ls -l /proc/$$/fd/'], { encoding: 'utf8' });
        expect(inChild).toMatch(/ 0 -> /);
        expect(inChild).not.toContain(lockPath);
      },
    );
  });

  describe('release', () => {
    it('should keep the lock file and let the folder be locked again', async () => {
      const lock = await acquire(dir);

      await lock.release();

      expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(true);
      await expect(acquire(dir, 0)).resolves.toBeInstanceOf(DataDirLock);
      expect(fs.readFileSync(path.join(dir, LOCK_FILE), 'utf8')).toBe(String(process.pid));
    });

    it('should close its descriptor', async () => {
      const lock = await acquire(dir);
      const lockPath = fs.realpathSync(path.join(dir, LOCK_FILE));

      lock.releaseSync();

      if (process.platform === 'linux') expect(descriptorsOn(lockPath)).toEqual([]);
    });

    it('should do nothing when called again', async () => {
      const lock = await acquire(dir);
      await lock.release();

      expect(() => lock.releaseSync()).not.toThrow();
      await expect(lock.release()).resolves.toBeUndefined();
    });

    it('should succeed when the lock file is already gone', async () => {
      const lock = await acquire(dir);
      fs.rmSync(path.join(dir, LOCK_FILE));

      await expect(lock.release()).resolves.toBeUndefined();
    });
  });
});
