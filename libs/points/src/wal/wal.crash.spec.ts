import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { recordFor } from './testing/deterministic-record';
import { CRASH_WAL_OPTIONS } from './testing/wal-crash-writer';
import { WriteAheadLog } from './write-ahead-log';

const WRITER = path.join(__dirname, 'testing', 'wal-crash-writer.ts');
const REPO_ROOT = path.resolve(__dirname, '..', '..', '..', '..');

/** Runs the writer until `killAfterMs` after its first acknowledged append, SIGKILLs it, returns the acknowledged ops. */
function runWriterUntilKilled(
  dir: string,
  concurrency: number,
  killAfterMs: number,
  tearAfterMs?: number,
): Promise<{ ready: number; acknowledged: number[] }> {
  const args = [WRITER, dir, String(concurrency), ...(tearAfterMs === undefined ? [] : [String(tearAfterMs)])];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', require.resolve('tsx/cjs'), ...args], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timer: NodeJS.Timeout | undefined;
    const watchdog = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (timer === undefined && /^\d+$/m.test(stdout)) timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      clearTimeout(watchdog);
      clearTimeout(timer);
      if (signal !== 'SIGKILL') return reject(new Error(`writer exited on its own (${signal ?? _code}): ${stderr}`));
      // Only whole lines: a number cut off by the kill was still acknowledged, but we cannot read it.
      const lines = stdout.split('\n').slice(0, -1);
      const ready = Number(/^ready (\d+)$/.exec(lines[0] ?? '')?.[1]);
      resolve({ ready, acknowledged: lines.slice(1).map(Number) });
    });
  });
}

describe(WriteAheadLog.name, () => {
  let dir: string;

  beforeEach(async () => {
    dir = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'wal-crash-')), 'wal');
  });

  afterEach(async () => {
    await fs.rm(path.dirname(dir), { recursive: true, force: true });
  });

  describe('open after kill -9', () => {
    it('should hold every acknowledged record and nothing but a clean prefix', async () => {
      const acknowledged: number[] = [];
      let lastPresent = 0;
      // The last round tears its final write in half before killing itself, so recovery must cut the tail.
      const rounds: Array<{ concurrency: number; tearAfterMs?: number }> = [
        { concurrency: 8 },
        { concurrency: 1 },
        { concurrency: 64 },
        { concurrency: 8, tearAfterMs: 300 },
      ];
      for (const [round, { concurrency, tearAfterMs }] of rounds.entries()) {
        const run = await runWriterUntilKilled(dir, concurrency, tearAfterMs === undefined ? 300 : 10_000, tearAfterMs);
        // The writer's own open recovered the same log we checked after the previous round.
        expect(run.ready).toBe(lastPresent);
        expect(run.acknowledged.length).toBeGreaterThan(0);
        acknowledged.push(...run.acknowledged);

        const wal = await WriteAheadLog.open({ dir, ...CRASH_WAL_OPTIONS });
        const present = new Map<number, Uint8Array>();
        let expected = 1;
        for await (const record of wal.readFrom(1)) {
          expect(record.opNum).toBe(expected++);
          present.set(record.opNum, record.data);
        }
        await wal.close();
        lastPresent = expected - 1;
        if (tearAfterMs !== undefined) expect(wal.recovery).toMatchObject({ clean: false, droppedSegments: 0 });

        const missing = acknowledged.filter((op) => !present.has(op));
        expect(missing).toEqual([]);
        for (const [opNum, data] of present) {
          if (!Buffer.from(data).equals(Buffer.from(recordFor(opNum))))
            throw new Error(`op ${opNum} has the wrong content`);
        }
        console.log(
          `round ${round}: ${run.acknowledged.length} acknowledged with ${concurrency} appenders, log holds 1..${lastPresent}, recovery ${JSON.stringify(wal.recovery)}`,
        );
      }
    }, 30_000);
  });
});
