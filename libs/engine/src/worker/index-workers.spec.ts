import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// Whether worker threads keep a process alive is only observable from outside it: a child process builds an
// index in parallel (maxIndexingThreads 2, so a worker pool exists) and never disposes it. It must exit by
// itself when idle (an unref'd pool), and print every result of searches it awaits on the workers (a pool
// unref'd under a running search would let it exit first). A hang fails on the spawn's kill timeout.
const INDEX = join(__dirname, '../hnsw/vector-index');

function run(body: string): { signal: NodeJS.Signals | null; status: number | null; stdout: string; stderr: string } {
  const script = `
    const { VectorIndex } = require(${JSON.stringify(INDEX)});
    const dim = 32, n = 8192;
    const index = new VectorIndex({ dim, distance: 'Euclid', m: 8, efConstruct: 16, maxIndexingThreads: 2 });
    const rows = Array.from({ length: n }, (_, i) => Float32Array.from({ length: dim }, (_, j) => ((i * 31 + j * 7) % 97) / 97));
    index.add(rows);
    ${body}
  `;
  return spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
    cwd: join(__dirname, '../../../..'),
    encoding: 'utf8',
    timeout: 50_000,
    killSignal: 'SIGKILL',
  });
}

describe('IndexWorkers (process lifetime)', () => {
  it('should let a process that built an index in parallel exit, undisposed', () => {
    const r = run(`console.log('built');`);
    expect(r.signal).toBeNull(); // not killed: it exited on its own
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('built');
    expect(r.status).toBe(0);
  });

  it('should keep the process alive under awaited searches, and let it exit after them', () => {
    const r = run(`
      (async () => {
        let first = -1;
        for (let i = 0; i < 10; i++) first = (await index.searchAsync(rows[5], { k: 3, exact: true })).scores[0];
        const both = await Promise.all([
          index.searchAsync(rows[7], { k: 3 }),
          index.searchAsync(rows[7], { k: 0 }).catch(() => 'rejected'),
        ]);
        console.log('done', first, both[0].slots.length, both[1]);
      })();
    `);
    expect(r.signal).toBeNull();
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe('done 0 3 rejected');
    expect(r.status).toBe(0);
  });
});
