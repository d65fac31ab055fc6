import {
  CrashWalkOperation,
  CrashWalkResult,
  FileOp,
  injectFaults,
  stopFaultInjection,
  walkCrashPoints,
} from '@vectorstore/persistence';
import * as fs from 'node:fs';
import {
  catalogChange,
  Db,
  fullRestore,
  openDb,
  optimizerMerge,
  quietLogs,
  segmentBuild,
  segmentBuildOnDisk,
  shardReset,
  shardRestore,
  snapshotCreate,
  upsertAndFlush,
  walTruncation,
} from '../testing/storage-walk-fixtures';

/*
 * Crash at every step (issue 28, item 1): each operation (../testing/storage-walk-fixtures.ts) is run once to count its durable file operations,
 * then crashed at each of them in turn (a write torn in half, or what was not fsynced lost), and a fresh catalog + storage stack opened on the
 * folder as the crash left it must start, hold every acknowledged write, hold nothing unacknowledged half-way, and
 * leave nothing that trips the start after it. Each walk runs twice: as a kill -9 leaves the files, and as a power
 * cut does (what was not fsynced lost). CRASH_WALK_STRIDE=k walks every k-th point of both (`npm run test:crash`:
 * every point of both; npm test: every point as kill -9, every fourth as a power cut).
 */
const stride = (fallback: number) => Math.max(1, Number(process.env.CRASH_WALK_STRIDE ?? fallback));
const MODES = [
  // the process killed: what it wrote is there, the write it died in torn in half
  { mode: 'kill -9', powerCut: false, stride: stride(1) },
  // the power cut: what was not fsynced is lost (every fourth point in npm test, to keep it short)
  { mode: 'power cut', powerCut: true, stride: stride(4) },
];

/**
 * A second crash: `base` crashed at the point `pick` chooses (as a kill -9), then the start on that folder, which
 * has recovery work to do (settle a restore, cut a torn log record, remove an unnamed folder), is itself crashed
 * at each of its file operations; the check is `base`'s, for the first crash's acknowledged steps.
 */
function startAfterCrash(
  name: string,
  base: CrashWalkOperation<Db>,
  pick: (trace: readonly FileOp[]) => number,
): CrashWalkOperation<string> {
  let acked = new Set<string>();
  const crashedRun = async (from: string, dir: string, plan: { at?: number }): Promise<FileOp[]> => {
    fs.cpSync(from, dir, { recursive: true });
    const db = await openDb(dir);
    const target = `${dir}.crashed`;
    const injector = injectFaults({
      root: dir,
      trace: true,
      ...(plan.at === undefined
        ? {}
        : {
            at: plan.at,
            action: 'crash' as const,
            tornWrite: true,
            onCrash: () => fs.cpSync(dir, target, { recursive: true }),
          }),
    });
    acked = new Set();
    await base.run(db, acked).catch(() => undefined);
    stopFaultInjection();
    await db.close().catch(() => undefined);
    return injector.trace;
  };
  return {
    name,
    prepare: async (dir) => {
      const start = `${dir}.base`;
      await base.prepare(start);
      const n = pick(await crashedRun(start, `${dir}.count`, {}));
      await crashedRun(start, `${dir}.first`, { at: n });
      fs.renameSync(`${dir}.first.crashed`, dir);
      for (const leftover of [start, `${dir}.count`, `${dir}.first`])
        fs.rmSync(leftover, { recursive: true, force: true });
    },
    open: async (dir) => dir,
    close: async () => undefined,
    run: async (dir, startAcked) => {
      const db = await openDb(dir);
      await db.close();
      startAcked.add('started');
    },
    check: (dir) => base.check(dir, acked, undefined),
  };
}

const indexOf = (trace: readonly FileOp[], match: (op: FileOp) => boolean, after = 0): number => {
  const found = trace.find((op) => match(op));
  if (found === undefined) throw new Error('the operation makes no such file operation');
  return found.n + after;
};

const startAfterSwapCut = startAfterCrash('start after a cut swap', shardRestore, (trace) =>
  // just after the old shard folder is moved aside: the shard's own name is missing
  indexOf(trace, (op) => op.kind === 'rename' && /\/collections\/[^/]+\/shards\/0$/.test(op.path), 1),
);

const startAfterTornRecord = startAfterCrash('start after a torn record', upsertAndFlush, (trace) =>
  // the second batch's log write, torn: the start cuts it off
  indexOf(trace.filter((op) => op.kind === 'write' && /\/wal\//.test(op.path)).slice(1), () => true),
);

const startAfterUnnamedFolder = startAfterCrash('start after a restore', fullRestore, (trace) =>
  // the restored collection renamed in, the catalog not yet written: the start removes the folder
  indexOf(trace, (op) => op.kind === 'rename' && /\/restoring\//.test(op.path), 1),
);

// ---- the walk ----

describe('crash at every step (issue 28, item 1)', () => {
  const results: Array<CrashWalkResult & { mode: string }> = [];

  beforeEach(quietLogs);
  afterEach(() => jest.restoreAllMocks());

  afterAll(() => {
    const lines = results.map(
      (r) =>
        `  ${r.name.padEnd(26)} ${r.mode.padEnd(10)} ${String(r.points).padStart(4)} injection points, ${r.walked} walked`,
    );
    process.stdout.write(`crash at every step:\n${lines.join('\n')}\n`);
  });

  const operations = [
    upsertAndFlush,
    segmentBuild,
    segmentBuildOnDisk,
    optimizerMerge,
    walTruncation,
    snapshotCreate,
    shardRestore,
    shardReset,
    fullRestore,
    catalogChange,
    startAfterSwapCut,
    startAfterTornRecord,
    startAfterUnnamedFolder,
  ] as Array<CrashWalkOperation<unknown>>;
  it.each(MODES.flatMap((mode) => operations.map((op) => ({ ...mode, op, name: op.name }))))(
    '$name, $mode: after a crash at any file operation, start, acknowledged writes and no half writes',
    async ({ op, mode, powerCut, stride }) => {
      const result = await walkCrashPoints(op, { stride, powerCut });
      results.push({ ...result, mode });
      expect(result.points).toBeGreaterThan(0);
      expect(result.failures).toEqual([]);
    },
    600_000,
  );
});
