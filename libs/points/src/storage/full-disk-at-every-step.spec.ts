import { Logger } from '@nestjs/common';
import { insufficientStorageOf } from '@vectorstore/common';
import {
  CrashWalkOperation,
  FullDiskWalkOperation,
  FullDiskWalkResult,
  walkFullDiskPoints,
} from '@vectorstore/persistence';
import * as path from 'node:path';
import {
  A,
  B,
  bigPoints,
  C,
  catalogChange,
  contentAfter,
  contentOf,
  current,
  D,
  Db,
  createRequest,
  expectOneOf,
  fullRestore,
  openDb,
  optimize,
  optimizerMerge,
  point,
  quietLogs,
  segmentBuild,
  segmentBuildOnDisk,
  shardReset,
  shardRestore,
  snapshotBatch,
  snapshotCreate,
  startAfterSwapCut,
  startAfterTornRecord,
  upsertAndFlush,
  upsertBatches,
  walBatches,
  walTruncation,
} from '../testing/storage-walk-fixtures';

/*
 * Full disk at every step (issue 28, item 2): each operation of the crash walk (../testing/storage-walk-fixtures.ts)
 * is run once to count the file operations a full disk can refuse (FULL_DISK_OP_KINDS: not removals or truncates),
 * then once per point N with operation N and all after it failing with ENOSPC, the disk staying full. The operation must succeed or be
 * refused with what the transports answer 507 / RESOURCE_EXHAUSTED (`insufficientStorageOf`, their own test), never
 * crash or hang; the live stack, still full, must serve exactly the acknowledged writes; once space is freed, the
 * same stack (not reopened) must finish the operation; and a restart must find it all, with nothing left over.
 * FULL_DISK_WALK_STRIDE=k (else CRASH_WALK_STRIDE, else 1) walks every k-th point and the last.
 */
const STRIDE = Math.max(1, Number(process.env.FULL_DISK_WALK_STRIDE ?? process.env.CRASH_WALK_STRIDE ?? 1));

const isFullDisk = (error: unknown) => insufficientStorageOf(error) !== undefined;

/**
 * `check` of a collection the full disk may keep from loading (a create whose folder it refused, a restore whose
 * undo it refused): while the disk is full it may refuse as a full disk instead of serving; once space is back it
 * loads again and serves (the resume).
 */
function servedOrRefused(check: () => void): void {
  try {
    check();
  } catch (error) {
    if (!isFullDisk(error)) throw error;
  }
}

type Steps = Record<string, (db: Db) => Promise<unknown>>;

/** Runs the steps not yet acknowledged, in order, acknowledging each. */
async function runSteps(db: Db, steps: Steps, acked: Set<string>): Promise<void> {
  for (const [label, step] of Object.entries(steps)) {
    if (acked.has(label)) continue;
    await step(db);
    acked.add(label);
  }
}

/** `operation` with what the live stack must serve while the disk is full, and how it finishes once space is freed. */
const fullDisk = (
  operation: CrashWalkOperation<Db>,
  checkLive: (db: Db, acked: ReadonlySet<string>) => void,
  resume: (db: Db, acked: Set<string>) => Promise<void>,
): FullDiskWalkOperation<Db> => ({
  ...operation,
  // its checks of the counted run are of the crash walk's count (removals, which a full disk never refuses)
  checkCount: undefined,
  checkLive: async (db, acked) => checkLive(db, acked),
  // as the flush timer does every 2 s: a collection that failed to load for want of space is loaded again
  resume: async (db, acked) => {
    await db.storage.loadAgainAfterFullDisk();
    await resume(db, acked);
  },
});

/** The batches operations: a prefix of the batches is acknowledged, and the live state is exactly that prefix. */
function batchesOnFullDisk(operation: CrashWalkOperation<Db>, batches: ReturnType<typeof point>[][]) {
  const steps: Steps = Object.fromEntries(batches.map((batch, i) => [`batch ${i}`, (db: Db) => db.upsert('c', batch)]));
  steps.flush = (db) => db.flush('c');
  return fullDisk(
    operation,
    (db, acked) => {
      const applied = batches.filter((_, i) => acked.has(`batch ${i}`)).flat();
      expectOneOf('c', contentOf(db, 'c'), [contentAfter(applied, A)]);
    },
    (db, acked) => runSteps(db, steps, acked),
  );
}

/**
 * An optimization: no client waits on it, so its refusal is the error the optimizer's failed job logged (its status
 * keeps only the text), which must be the full disk. The points stay exactly A, the shard stays writable (not
 * failed), and once space is freed the optimizer finishes its plan.
 */
const optimizerOnFullDisk = (operation: CrashWalkOperation<Db>, override: Parameters<typeof optimize>[1] = {}) =>
  fullDisk(
    {
      ...operation,
      run: async (db, acked) => {
        const logged = jest.mocked(Logger.prototype.error);
        const before = logged.mock.calls.length;
        try {
          await operation.run(db, acked);
        } catch (error) {
          const jobError = logged.mock.calls
            .slice(before)
            .map(([entry]) => (entry as { err?: unknown } | undefined)?.err)
            .find((err) => err !== undefined);
          throw jobError ?? error;
        }
      },
    },
    (db) => {
      expectOneOf('c', contentOf(db, 'c'), [A]);
      const shard = db.storage.storageOf(db.catalog.require('c')).shards.get(0)!.shard;
      if (shard.failure) throw new Error(`the shard failed: ${shard.failure.message}`);
    },
    async (db, acked) => {
      await optimize(db, override);
      acked.add('optimized');
    },
  );

const snapshotSteps: Steps = {
  batch: (db) => db.upsert('c', snapshotBatch),
  // a fresh folder, as the snapshot service takes for each snapshot
  snapshot: (db) => db.snapshots.checkpoint('c', path.join(db.dir, 'work', `snapshot-${Date.now()}`)),
};

const fullRestoreSteps: Steps = {
  c: (db) => db.snapshots.restore('c', path.join(db.dir, 'snap', 'c')),
  d: (db) => db.snapshots.restore('d', path.join(db.dir, 'snap', 'd')),
  alias: (db) => db.aliases.update([{ createAlias: { aliasName: 'latest', collectionName: 'd' } }]),
};

const catalogSteps: Steps = {
  'create e': (db) => db.collections.create(createRequest('e')),
  'alias x': (db) => db.aliases.update([{ createAlias: { aliasName: 'x', collectionName: 'c' } }]),
  'update c': (db) => db.collections.update({ name: 'c', optimizersConfig: { indexingThreshold: 2 } }),
  'delete c': (db) => db.collections.delete('c'),
};

/**
 * A start with recovery work to do (after a first crash, as in the crash walk): the start must work or be refused as
 * a full disk; while the disk is full, collection c is read or refused as a full disk (its recovery may need the
 * space); once space is freed, the started server (or, if the start was refused, the next start) must serve c without
 * a restart; and the crash walk's check of the first crash must hold at the next start.
 */
const started = new Map<string, Db>();
const startOnFullDisk = (operation: CrashWalkOperation<string>): FullDiskWalkOperation<string> => ({
  ...operation,
  run: async (dir, acked) => {
    started.set(dir, await openDb(dir));
    acked.add('started');
  },
  checkLive: async (dir) => {
    const db = started.get(dir);
    if (db === undefined) return;
    try {
      contentOf(db, 'c');
    } catch (error) {
      if (!isFullDisk(error)) throw error;
    }
  },
  resume: async (dir, acked) => {
    const db = started.get(dir) ?? (await openDb(dir));
    started.set(dir, db);
    await db.storage.loadAgainAfterFullDisk();
    acked.add('started');
    contentOf(db, 'c');
  },
  close: async (dir) => {
    const db = started.get(dir);
    started.delete(dir);
    await db?.close();
  },
});

const OPERATIONS: Array<FullDiskWalkOperation<Db>> = [
  batchesOnFullDisk(upsertAndFlush, upsertBatches),
  optimizerOnFullDisk(segmentBuild),
  optimizerOnFullDisk(segmentBuildOnDisk),
  optimizerOnFullDisk(optimizerMerge, { defaultSegmentNumber: 1 }),
  batchesOnFullDisk(walTruncation, walBatches),
  fullDisk(
    snapshotCreate,
    (db, acked) => expectOneOf('c', contentOf(db, 'c'), [acked.has('batch') ? B : A]),
    (db, acked) => runSteps(db, snapshotSteps, acked),
  ),
  fullDisk(
    shardRestore,
    (db, acked) => servedOrRefused(() => expectOneOf('c', contentOf(db, 'c'), [acked.has('restored') ? A : C])),
    async (db, acked) => {
      await db.snapshots.restoreShard('c', 0, path.join(db.dir, 'snap', 'shard'));
      acked.add('restored');
    },
  ),
  fullDisk(
    shardReset,
    (db, acked) => expectOneOf('c', contentOf(db, 'c'), [acked.has('reset') ? new Map() : contentAfter(bigPoints, A)]),
    async (db, acked) => {
      await db.storage.storageOf(db.catalog.require('c')).resetShard(0);
      acked.add('reset');
    },
  ),
  fullDisk(
    fullRestore,
    (db, acked) => {
      expectOneOf('c', contentOf(db, 'c'), [acked.has('c') ? A : contentAfter(current)]);
      expectOneOf('d', contentOf(db, 'd'), [acked.has('d') ? D : undefined]);
      const latest = db.catalog.resolve('latest')?.name;
      if (latest !== (acked.has('alias') ? 'd' : undefined)) throw new Error(`alias latest names ${latest}`);
    },
    (db, acked) => runSteps(db, fullRestoreSteps, acked),
  ),
  fullDisk(
    catalogChange,
    (db, acked) => {
      servedOrRefused(() => expectOneOf('e', contentOf(db, 'e'), [acked.has('create e') ? new Map() : undefined]));
      expectOneOf('c', contentOf(db, 'c'), [acked.has('delete c') ? undefined : A]);
      const x = db.catalog.resolve('x')?.name;
      if (!acked.has('delete c') && x !== (acked.has('alias x') ? 'c' : undefined))
        throw new Error(`alias x names ${x}`);
      const threshold = db.catalog.resolve('c')?.config.optimizerConfig.indexingThreshold;
      if (!acked.has('delete c') && (threshold === 2) !== acked.has('update c'))
        throw new Error(`indexing threshold of c is ${threshold}`);
    },
    (db, acked) => runSteps(db, catalogSteps, acked),
  ),
];

// (the start after a restored folder was renamed in only removes that folder: nothing a full disk refuses)
const STARTS = [startAfterSwapCut, startAfterTornRecord].map(startOnFullDisk);

describe('full disk at every step (issue 28, item 2)', () => {
  const results: FullDiskWalkResult[] = [];

  beforeEach(quietLogs);
  afterEach(() => jest.restoreAllMocks());

  afterAll(() => {
    const lines = results.map(
      (r) =>
        `  ${r.name.padEnd(26)} ${String(r.points).padStart(4)} injection points, ${r.walked} walked, ` +
        `${r.refused} refused`,
    );
    process.stdout.write(`full disk at every step:\n${lines.join('\n')}\n`);
  });

  // Each walked in full: the known defects the first walks found (a failed undo of a restore's swap, a create or a
  // start whose folders the full disk refused staying failed once space was back) are fixed.
  it.each([...OPERATIONS, ...STARTS].map((op) => ({ op: op as FullDiskWalkOperation<unknown>, name: op.name })))(
    '$name: refused as a full disk or done at any file operation, nothing half, done once space is freed',
    async ({ op }) => {
      const result = await walkFullDiskPoints(op, { stride: STRIDE, isFullDisk });
      results.push(result);
      expect(result.points).toBeGreaterThan(0);
      expect(result.failures).toEqual([]);
    },
    600_000,
  );
});
