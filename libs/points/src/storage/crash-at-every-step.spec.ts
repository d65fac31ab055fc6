import { CrashWalkOperation, CrashWalkResult, walkCrashPoints } from '@vectorstore/persistence';
import {
  catalogChange,
  fullRestore,
  optimizerMerge,
  quietLogs,
  segmentBuild,
  segmentBuildOnDisk,
  shardReset,
  shardRestore,
  snapshotCreate,
  startAfterSwapCut,
  startAfterTornRecord,
  startAfterUnnamedFolder,
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
