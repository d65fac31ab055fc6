import { promises as fs } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { FileLock } from './file-lock';

describe(FileLock.name, () => {
  let dir: string;
  let lockPath: string;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'file-lock-'));
    lockPath = path.join(dir, 'x.lock');
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

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
  });

  describe('acquire', () => {
    it('should take over a lock whose owner is dead', async () => {
      await fs.writeFile(lockPath, '999999999');
      const lock = await FileLock.acquire(lockPath, { timeoutMs: 1000 });
      await lock.release();
    });

    it('should time out on a lock held by a live process', async () => {
      await fs.writeFile(lockPath, String(process.pid));
      await expect(FileLock.acquire(lockPath, { timeoutMs: 100 })).rejects.toThrow(/timed out/);
    });
  });
});
