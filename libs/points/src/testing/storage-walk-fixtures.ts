import { Logger } from '@nestjs/common';
import {
  AliasesService,
  CollectionCatalog,
  CollectionConfig,
  CollectionsService,
  EmptyCollectionStatsProvider,
  FileCatalogStore,
} from '@vectorstore/collections';
import { CrashWalkOperation, FileOp, injectFaults, stopFaultInjection } from '@vectorstore/persistence';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { OptimizerService } from '../optimizer/optimizer.service';
import { CollectionContexts } from '../service/collection-context';
import { PointsWriter } from '../service/points-writer';
import { WriteAheadLog } from '../wal/write-ahead-log';
import { CollectionSnapshots } from '../storage/collection-snapshots';
import { PointsStorage } from '../storage/points-storage';

/*
 * The storage stack and the operations the crash walk (storage/crash-at-every-step.spec.ts) and the full-disk walk
 * (storage/full-disk-at-every-step.spec.ts) run: a catalog + storage stack wired as the server wires it, points
 * whose vector and payload both name their write, and each operation with what a restart must find after it.
 */

/** The collection config of these tests: 64-d dense vectors, indexing from 1 KB, no timed flush, 1 MB WAL files. */
export const DIM = 64;
export const createRequest = (name: string, onDisk = false) => ({
  name,
  vectors: { paramsMap: { v: { size: DIM, distance: 'Dot' as const, onDisk } } },
  onDiskPayload: onDisk,
  shardNumber: 1,
  optimizersConfig: { indexingThreshold: 1, defaultSegmentNumber: 8, flushIntervalSec: 3600 },
  walConfig: { walCapacityMb: 1 },
});

/** Point `id` of generation `gen`: its vector and payload both say which, so a mix of two writes shows. */
export const point = (id: number, gen: number, pad = 0) => ({
  id: BigInt(id),
  vectors: {
    v: { kind: 'dense' as const, values: Float32Array.from({ length: DIM }, (_, i) => [id, gen, 1][i] ?? 0) },
  },
  payload: { id, gen, ...(pad > 0 ? { pad: 'x'.repeat(pad) } : {}) },
});

/** Catalog, storage, snapshots, services and a hand-driven optimizer over one data folder, as the server wires them. */
export async function openDb(dir: string) {
  const catalog = new CollectionCatalog(new FileCatalogStore(dir));
  await catalog.load();
  const openLog = (options: Parameters<typeof WriteAheadLog.open>[0]) => WriteAheadLog.open(options);
  const storage = new PointsStorage(catalog, dir, openLog, '1');
  const snapshots = new CollectionSnapshots(catalog, storage, dir, openLog);
  await storage.onModuleInit();
  await snapshots.onModuleInit();
  // flushes happen when an operation asks, not on a timer: the count of file operations stays the same run to run
  clearInterval((storage as unknown as { flushTimer: NodeJS.Timeout }).flushTimer);
  const contexts = new CollectionContexts(catalog, storage);
  const writer = new PointsWriter(contexts);
  return {
    dir,
    catalog,
    storage,
    snapshots,
    collections: new CollectionsService(catalog, new EmptyCollectionStatsProvider()),
    aliases: new AliasesService(catalog),
    upsert: (name: string, points: ReturnType<typeof point>[]) =>
      writer.update(name, { operation: { upsert: { points } }, wait: true }),
    flush: (name: string) => storage.storageOf(catalog.require(name)).flush(),
    close: () => storage.onApplicationShutdown(),
  };
}
export type Db = Awaited<ReturnType<typeof openDb>>;

/** Runs the optimizer's jobs (with `override` on the collection config) until it plans nothing more. */
export async function optimize(db: Db, override: Partial<CollectionConfig['optimizerConfig']> = {}): Promise<void> {
  const view = {
    openStorages: () =>
      db.storage.openStorages().map((storage) => ({
        record: {
          config: {
            ...storage.record.config,
            optimizerConfig: { ...storage.record.config.optimizerConfig, ...override },
          },
        },
        shards: storage.shards,
      })),
  } as unknown as PointsStorage;
  const optimizer = new OptimizerService(view);
  const shards = db.storage.openStorages().flatMap((storage) => [...storage.shards.values()].map((h) => h.shard));
  // as after a write or a config change: the shard asks the optimizer to look at it
  for (const shard of shards) shard.optimization.trigger();
  for (let round = 0; round < 10; round++) {
    optimizer.scan();
    if (shards.every((shard) => shard.optimization.running === 0)) break;
    while (shards.some((shard) => shard.optimization.running > 0)) await new Promise((r) => setTimeout(r, 2));
    const failed = shards.find((shard) => shard.failure ?? shard.optimization.error);
    if (failed) throw failed.failure ?? new Error(failed.optimization.error);
  }
}

/** Every live point of a collection, id -> "gen|payload", or undefined when the catalog has no such collection. */
export function contentOf(db: Db, name: string): Map<number, string> | undefined {
  const record = db.catalog.resolve(name);
  if (record === undefined) return undefined;
  const storage = db.storage.storageOf(record);
  if (storage.failure) throw storage.failure;
  const content = new Map<number, string>();
  for (const handle of storage.shards.values()) {
    const ids = handle.shard.livePointIds();
    for (const p of handle.shard.exportPoints(ids)) {
      const values = (p.vectors as Record<string, { values: Float32Array }>).v.values;
      const payload = p.payload as { id: number; gen: number; pad?: string };
      const id = Number(p.id);
      if (content.has(id)) throw new Error(`point ${id} is there twice`);
      // a vector of one write with the payload of another is a half-applied write
      if (values[0] !== id || payload.id !== id || values[1] !== payload.gen)
        throw new Error(`point ${id} is a mix: vector ${[...values].join(',')}, payload ${JSON.stringify(payload)}`);
      content.set(id, `${payload.gen}|${payload.pad?.length ?? 0}`);
    }
  }
  return content;
}

export const contentAfter = (points: ReturnType<typeof point>[], base = new Map<number, string>()) => {
  const content = new Map(base);
  for (const p of points) content.set(Number(p.id), `${p.payload.gen}|${p.payload.pad?.length ?? 0}`);
  return content;
};

export const describeContent = (content: Map<number, string> | undefined) =>
  content === undefined
    ? 'no collection'
    : `${content.size} points ${JSON.stringify([...content].sort((a, b) => a[0] - b[0]).slice(0, 6))}...`;

/** Throws unless `actual` is one of `allowed` (states a collection may be in after the crash). */
export function expectOneOf(
  name: string,
  actual: Map<number, string> | undefined,
  allowed: Array<Map<number, string> | undefined>,
) {
  const same = (a: Map<number, string> | undefined, b: Map<number, string> | undefined) =>
    a === undefined || b === undefined
      ? a === b
      : a.size === b.size && [...a].every(([id, value]) => b.get(id) === value);
  if (!allowed.some((state) => same(actual, state)))
    throw new Error(
      `collection ${name} is ${describeContent(actual)}; expected one of: ${allowed.map(describeContent).join(' / ')}`,
    );
}

/** Files a crash may leave that only the start may remove: any left after a start is a leftover. */
export function leftovers(dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (/\.tmp$|\.(restored|replaced|discarded)$/.test(entry.name)) found.push(path.relative(dir, full));
      if (entry.isDirectory()) walk(full);
    }
  };
  walk(dir);
  const restoring = path.join(dir, 'restoring');
  if (fs.existsSync(restoring)) found.push('restoring/');
  return found;
}

/**
 * The common part of every check: the crash copy starts; `verify` sees the state; no leftover is there after the
 * start; a new write and a second start work and the state is still what `verify` accepts.
 */
export async function checkStarts(
  dir: string,
  verify: (db: Db) => void | Promise<void>,
  writeTo?: string,
): Promise<void> {
  let db = await openDb(dir);
  try {
    await verify(db);
    const left = leftovers(dir).filter((file) => !file.startsWith('work'));
    if (left.length > 0) throw new Error(`left after the start: ${left.join(', ')}`);
    const unknown = fs
      .readdirSync(path.join(dir, 'collections'))
      .filter((folder) => ![...db.catalog.snapshot.collections.values()].some((record) => record.id === folder));
    if (unknown.length > 0) throw new Error(`collection folders the catalog does not name: ${unknown.join(', ')}`);
    if (writeTo !== undefined && db.catalog.resolve(writeTo) !== undefined) {
      await db.upsert(writeTo, [point(9999, 9)]);
      await db.flush(writeTo);
    }
  } finally {
    await db.close();
  }
  db = await openDb(dir);
  try {
    if (writeTo !== undefined && db.catalog.resolve(writeTo) !== undefined) {
      if (contentOf(db, writeTo)?.get(9999) !== '9|0') throw new Error('the write after the restart is gone');
    }
  } finally {
    await db.close();
  }
}

/** Silences the logs of the stacks opened and crashed hundreds of times. */
export function quietLogs(): void {
  for (const level of ['log', 'warn', 'error', 'debug'] as const)
    jest.spyOn(Logger.prototype, level).mockImplementation(() => undefined);
}

// ---- the operations ----

export const gen0 = Array.from({ length: 20 }, (_, i) => point(i + 1, 0));
export const A = contentAfter(gen0);

/** A data folder with collection `c` holding `gen0`, flushed and closed. */
export async function prepareBasic(dir: string, build?: (db: Db) => Promise<void>, onDisk = false): Promise<void> {
  const db = await openDb(dir);
  try {
    await db.collections.create(createRequest('c', onDisk));
    await db.upsert('c', gen0);
    await build?.(db);
  } finally {
    await db.close();
  }
}

export const base = {
  open: openDb,
  close: (db: Db) => db.close(),
};

/** Writes acknowledged one batch at a time: each batch all there if acknowledged, else all or nothing. */
export function batchesOperation(
  name: string,
  batches: ReturnType<typeof point>[][],
  checkCount?: (trace: readonly FileOp[]) => void,
): CrashWalkOperation<Db> {
  return {
    ...base,
    name,
    prepare: (dir) => prepareBasic(dir),
    run: async (db, acked) => {
      for (const [i, batch] of batches.entries()) {
        await db.upsert('c', batch);
        acked.add(`batch ${i}`);
      }
      await db.flush('c');
      acked.add('flush');
    },
    check: (dir, acked) =>
      checkStarts(
        dir,
        (db) => {
          // batches apply in order: the state is A plus some prefix of them, at least the acknowledged ones
          const states = [A];
          for (const batch of batches) states.push(contentAfter(batch, states[states.length - 1]));
          const atLeast = batches.findIndex((_, i) => !acked.has(`batch ${i}`));
          expectOneOf('c', contentOf(db, 'c'), atLeast < 0 ? [states[batches.length]] : states.slice(atLeast));
        },
        'c',
      ),
    checkCount,
  };
}

export const upsertBatches = [
  [point(101, 1), point(102, 1), point(103, 1)],
  [point(1, 1), point(2, 1), point(3, 1)],
  [point(104, 1), point(105, 1)],
];
export const upsertAndFlush = batchesOperation('upsert + flush', upsertBatches);

// 14 points of 250 KB payload fill three 1 MB log files; the flush then removes the older ones (one closed is kept).
export const walBatches = Array.from({ length: 14 }, (_, i) => [point(200 + i, 1, 250_000)]);
export const walTruncation = batchesOperation('WAL truncation', walBatches, (trace) => {
  const walRemovals = trace.filter((op) => op.kind === 'remove' && /\/wal\//.test(op.path));
  expect(walRemovals.length).toBeGreaterThan(0);
});

/** An optimization run: the points are exactly A after any crash, and the uncrashed run changed the segments. */
export function optimizerOperation(
  name: string,
  prepare: (db: Db) => Promise<void>,
  override: Partial<CollectionConfig['optimizerConfig']>,
  expectSegments: (before: number, after: number) => void,
  options: { onDisk?: boolean; checkCount?: (trace: readonly FileOp[]) => void } = {},
): CrashWalkOperation<Db> {
  let before = 0;
  return {
    ...base,
    name,
    checkCount: options.checkCount,
    prepare: (dir) => prepareBasic(dir, prepare, options.onDisk),
    run: async (db, acked) => {
      before = db.storage.storageOf(db.catalog.require('c')).shards.get(0)!.shard.segments.length;
      await optimize(db, override);
      expectSegments(before, db.storage.storageOf(db.catalog.require('c')).shards.get(0)!.shard.segments.length);
      acked.add('optimized');
    },
    check: (dir) => checkStarts(dir, (db) => expectOneOf('c', contentOf(db, 'c'), [A]), 'c'),
  };
}

export const segmentBuild = optimizerOperation(
  'segment build and swap',
  async () => undefined,
  {},
  (before, after) => expect([before, after]).toEqual([1, 2]), // the indexed segment and a fresh appendable one
);

// The same with vectors and payloads on disk: the build writes side files (.vec, .pay) beside the segment.
export const segmentBuildOnDisk = optimizerOperation(
  'segment build, on disk',
  async () => undefined,
  {},
  (before, after) => expect([before, after]).toEqual([1, 2]),
  {
    onDisk: true,
    checkCount: (trace) => {
      // renamed from their temporary names, `.<file>.<pid>.<random>.tmp`
      const sideFiles = trace.filter((op) => op.kind === 'rename' && /\.(vec|pay)\.\d+\.[0-9a-f]+\.tmp$/.test(op.path));
      expect(sideFiles.length).toBe(2);
    },
  },
);

export const optimizerMerge = optimizerOperation(
  'optimizer merge',
  async (db) => {
    // three indexed segments (a batch indexed at a time), kept apart by a high segment target
    for (const range of [
      [0, 7],
      [7, 14],
      [14, 20],
    ]) {
      await db.upsert('c', gen0.slice(range[0], range[1]));
      await optimize(db);
    }
  },
  { defaultSegmentNumber: 1 },
  (before, after) => expect(after).toBeLessThan(before),
);

/** The batch written before the snapshot, and the state after it. */
export const snapshotBatch = [point(1, 1), point(150, 1)];
export const B = contentAfter(snapshotBatch, A);
export const snapshotCreate: CrashWalkOperation<Db> = {
  ...base,
  name: 'snapshot create',
  prepare: (dir) => prepareBasic(dir),
  run: async (db, acked) => {
    await db.upsert('c', snapshotBatch);
    acked.add('batch');
    await db.snapshots.checkpoint('c', path.join(db.dir, 'work', 'snapshot'));
    acked.add('snapshot');
  },
  check: (dir, acked) =>
    checkStarts(
      dir,
      (db) => {
        expectOneOf('c', contentOf(db, 'c'), acked.has('batch') ? [B] : [A, B]);
      },
      'c',
    ),
};

// A shard emptied for a transfer to fill (cluster mode's target of a shard transfer): the old points whole, or none.
// Its log no longer starts at op 1 (big points rolled it over three files and a flush dropped the first), so a shard
// left in part could not be rebuilt from it.
export const bigPoints = Array.from({ length: 10 }, (_, i) => point(400 + i, 4, 300_000));
export const shardReset: CrashWalkOperation<Db> = {
  ...base,
  name: 'shard reset',
  prepare: (dir) =>
    prepareBasic(dir, async (db) => {
      for (const p of bigPoints) await db.upsert('c', [p]);
      await db.flush('c');
    }),
  run: async (db, acked) => {
    await db.storage.storageOf(db.catalog.require('c')).resetShard(0);
    acked.add('reset');
  },
  check: (dir, acked) =>
    checkStarts(
      dir,
      (db) => {
        const before = contentAfter(bigPoints, A);
        expectOneOf('c', contentOf(db, 'c'), acked.has('reset') ? [new Map()] : [before, new Map()]);
      },
      'c',
    ),
};

// Shard and full restores: the data folder holds the current state (gen 1 over 25 points), `snap/` snapshot trees of
// an earlier one (A).
export const current = Array.from({ length: 25 }, (_, i) => point(i + 1, 1));
export const C = contentAfter(current);
export const dPoints = Array.from({ length: 5 }, (_, i) => point(300 + i, 3));
export const D = contentAfter(dPoints);

export const shardRestore: CrashWalkOperation<Db> = {
  ...base,
  name: 'shard restore',
  prepare: (dir) =>
    prepareBasic(dir, async (db) => {
      await db.snapshots.checkpointShard('c', 0, path.join(dir, 'snap', 'shard'));
      await db.upsert('c', current);
    }),
  run: async (db, acked) => {
    await db.snapshots.restoreShard('c', 0, path.join(db.dir, 'snap', 'shard'));
    acked.add('restored');
  },
  check: (dir, acked) =>
    checkStarts(dir, (db) => expectOneOf('c', contentOf(db, 'c'), acked.has('restored') ? [A] : [C, A]), 'c'),
};

export const fullRestore: CrashWalkOperation<Db> = {
  ...base,
  name: 'full restore',
  prepare: (dir) =>
    prepareBasic(dir, async (db) => {
      await db.snapshots.checkpoint('c', path.join(dir, 'snap', 'c'));
      await db.upsert('c', current);
      await db.collections.create(createRequest('d'));
      await db.upsert('d', dPoints);
      await db.snapshots.checkpoint('d', path.join(dir, 'snap', 'd'));
      await db.collections.delete('d');
    }),
  // as SnapshotsService.restoreFullArchive: each collection restored in turn, then the aliases
  run: async (db, acked) => {
    await db.snapshots.restore('c', path.join(db.dir, 'snap', 'c'));
    acked.add('c');
    await db.snapshots.restore('d', path.join(db.dir, 'snap', 'd'));
    acked.add('d');
    await db.aliases.update([{ createAlias: { aliasName: 'latest', collectionName: 'd' } }]);
    acked.add('alias');
  },
  check: (dir, acked) =>
    checkStarts(
      dir,
      (db) => {
        expectOneOf('c', contentOf(db, 'c'), acked.has('c') ? [A] : [C, A]);
        expectOneOf('d', contentOf(db, 'd'), acked.has('d') ? [D] : [undefined, D]);
        if (acked.has('alias') && db.catalog.resolve('latest')?.name !== 'd') throw new Error('alias latest is gone');
      },
      'c',
    ),
};

export const catalogChange: CrashWalkOperation<Db> = {
  ...base,
  name: 'catalog change',
  prepare: (dir) => prepareBasic(dir),
  run: async (db, acked) => {
    await db.collections.create(createRequest('e'));
    acked.add('create e');
    await db.aliases.update([{ createAlias: { aliasName: 'x', collectionName: 'c' } }]);
    acked.add('alias x');
    await db.collections.update({ name: 'c', optimizersConfig: { indexingThreshold: 2 } });
    acked.add('update c');
    await db.collections.delete('c');
    acked.add('delete c');
  },
  check: (dir, acked) =>
    checkStarts(dir, (db) => {
      if (acked.has('create e')) expectOneOf('e', contentOf(db, 'e'), [new Map()]);
      else expectOneOf('e', contentOf(db, 'e'), [undefined, new Map()]);
      const c = contentOf(db, 'c');
      expectOneOf('c', c, acked.has('delete c') ? [undefined] : [A, undefined]);
      if (acked.has('alias x') && c !== undefined && db.catalog.resolve('x')?.name !== 'c')
        throw new Error('alias x is gone');
      const threshold = db.catalog.resolve('c')?.config.optimizerConfig.indexingThreshold;
      if (acked.has('update c') && c !== undefined && threshold !== 2)
        throw new Error(`the config update of c is gone (indexing threshold ${threshold})`);
      if (c === undefined && !acked.has('delete c') && !acked.has('update c'))
        throw new Error('c was deleted before its delete was asked');
    }),
};

/**
 * A second crash: `base` crashed at the point `pick` chooses (as a kill -9), then the start on that folder, which
 * has recovery work to do (settle a restore, cut a torn log record, remove an unnamed folder), is itself crashed
 * at each of its file operations; the check is `base`'s, for the first crash's acknowledged steps.
 */
export function startAfterCrash(
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

export const indexOf = (trace: readonly FileOp[], match: (op: FileOp) => boolean, after = 0): number => {
  const found = trace.find((op) => match(op));
  if (found === undefined) throw new Error('the operation makes no such file operation');
  return found.n + after;
};

export const startAfterSwapCut = startAfterCrash('start after a cut swap', shardRestore, (trace) =>
  // just after the old shard folder is moved aside: the shard's own name is missing
  indexOf(trace, (op) => op.kind === 'rename' && /\/collections\/[^/]+\/shards\/0$/.test(op.path), 1),
);

export const startAfterTornRecord = startAfterCrash('start after a torn record', upsertAndFlush, (trace) =>
  // the second batch's log write, torn: the start cuts it off
  indexOf(trace.filter((op) => op.kind === 'write' && /\/wal\//.test(op.path)).slice(1), () => true),
);

export const startAfterUnnamedFolder = startAfterCrash('start after a restore', fullRestore, (trace) =>
  // the restored collection renamed in, the catalog not yet written: the start removes the folder
  indexOf(trace, (op) => op.kind === 'rename' && /\/restoring\//.test(op.path), 1),
);
