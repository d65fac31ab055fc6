import { openSync, closeSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { tryLockFile, unlockFile } from './flock';

/** Loads this library's entry point in a fresh worker thread, as the segment builder's workers do. */
function loadInWorker(): Promise<number> {
  const entry = path.join(__dirname, 'index.ts');
  const code = `require('tsx/cjs'); const p = require(${JSON.stringify(entry)}); if (typeof p.writeFileAtomic !== 'function') process.exit(3);`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true });
    worker.once('error', reject);
    worker.once('exit', resolve);
  });
}

describe('flock', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'vs-flock-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a second open file description and allows it after unlock', () => {
    const file = path.join(dir, 'lock');
    const first = openSync(file, 'a');
    const second = openSync(file, 'a');
    try {
      expect(tryLockFile(first)).toBe(true);
      expect(tryLockFile(second)).toBe(false);
      unlockFile(first);
      expect(tryLockFile(second)).toBe(true);
    } finally {
      closeSync(first);
      closeSync(second);
    }
  });

  // fs-ext is a native add-on that V8 cannot load into a second worker thread (the process aborts). The
  // segment builder starts a worker per build, and each loads this library for its atomic writes.
  it('lets worker threads load the library one after another once the main thread has locked a file', async () => {
    const fd = openSync(path.join(dir, 'lock'), 'a');
    try {
      expect(tryLockFile(fd)).toBe(true);
      for (let i = 0; i < 3; i++) expect(await loadInWorker()).toBe(0);
    } finally {
      closeSync(fd);
    }
  }, 60_000);
});
