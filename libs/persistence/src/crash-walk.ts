import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FILE_OP_KINDS, FileOp, FileOpKind, injectFaults, stopFaultInjection } from './fault-injection';

/**
 * Crash at every step (issue 28, item 1), for tests: an operation is run once to count the durable file operations
 * it makes (durable-fs), then once per crash point N on a fresh copy of the same starting folder, crashing at
 * operation N (a write torn in half). The folder as the crash left it is copied at that instant, and `check` opens
 * a fresh stack on the copy and asserts what must hold after any crash.
 */
export interface CrashWalkOperation<Stack> {
  /** What the operation is, for messages. */
  name: string;
  /** Builds the starting folder in `dir` (its own stack, closed at the end; not counted). */
  prepare(dir: string): Promise<void>;
  /** Opens the stack the operation runs on, over `dir` (not counted). */
  open(dir: string): Promise<Stack>;
  /** Closes a stack; after a crash it is a ghost whose file operations fail, so errors are ignored. */
  close(stack: Stack): Promise<void>;
  /**
   * Runs the operation, adding to `acked` a label for each step whose caller got a success (what a client was
   * told). A crash makes a step throw; the operation should stop there.
   */
  run(stack: Stack, acked: Set<string>): Promise<void>;
  /**
   * After a crash: opens `dir` (the crash's copy) as a fresh server would and asserts that it starts, that every
   * step in `acked` is there and nothing else is half there, and that nothing left trips the next start. Throws
   * what is wrong.
   */
  check(dir: string, acked: ReadonlySet<string>, crashedAt: FileOp | undefined): Promise<void>;
  /** Asserts on the uncrashed run (that the operation does what it is meant to: files it must touch, ...). */
  checkCount?(trace: readonly FileOp[]): void;
}

export interface CrashWalkOptions {
  /** Walk crash points 1, 1 + stride, ... and the last (default 1: every one). */
  stride?: number;
  /**
   * Model a power cut rather than a killed process: every file written since its last fsync is put back, in the
   * crash's copy, to what it held at that fsync (a file never fsynced is left empty). Without it the copy holds
   * everything written, as a kill -9 leaves the page cache (the crashed write torn in half). Folder entries
   * (creations, renames, removals) are kept either way.
   */
  powerCut?: boolean;
}

export interface CrashWalkResult {
  name: string;
  /** Durable file operations of one uncrashed run: the crash points. */
  points: number;
  /** The crash points walked (every one with stride 1). */
  walked: number;
  /** Each crash point whose check failed, with what the crash hit and why. */
  failures: string[];
}

/** Walks crash points 1, 1 + stride, ... and the last one of `operation` under a scratch folder. */
export async function walkCrashPoints<Stack>(
  operation: CrashWalkOperation<Stack>,
  { stride = 1, powerCut = false }: CrashWalkOptions = {},
): Promise<CrashWalkResult> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'vs-crash-walk-'));
  try {
    const template = path.join(scratch, 'template');
    await operation.prepare(template);
    const trace = await countRun(operation, template, path.join(scratch, 'count'));
    // CRASH_WALK_TRACE=1 prints what each crash point is
    if (process.env.CRASH_WALK_TRACE === '1')
      process.stdout.write(`${operation.name}:\n${trace.map((op) => `  #${op.n} ${describe(op)}`).join('\n')}\n`);
    operation.checkCount?.(trace);
    const points: number[] = [];
    for (let n = 1; n <= trace.length; n += stride) points.push(n);
    if (trace.length > 0 && points[points.length - 1] !== trace.length) points.push(trace.length);
    const failures: string[] = [];
    for (const n of points) {
      const failure = await crashAt(operation, template, scratch, n, powerCut);
      if (failure !== undefined)
        failures.push(`crash at #${n} of ${trace.length} (${describe(trace[n - 1])}): ${failure}`);
    }
    return { name: operation.name, points: trace.length, walked: points.length, failures };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function countRun<Stack>(
  operation: CrashWalkOperation<Stack>,
  template: string,
  dir: string,
  kinds: readonly FileOpKind[] = FILE_OP_KINDS,
): Promise<FileOp[]> {
  cpSync(template, dir, { recursive: true });
  const stack = await operation.open(dir);
  const injector = injectFaults({ root: dir, trace: true, kinds });
  const acked = new Set<string>();
  try {
    await operation.run(stack, acked);
  } finally {
    stopFaultInjection();
    await operation.close(stack);
  }
  // the uncrashed run must leave what any other start accepts, every step acknowledged
  await operation.check(dir, acked, undefined);
  rmSync(dir, { recursive: true, force: true });
  return injector.trace;
}

async function crashAt<Stack>(
  operation: CrashWalkOperation<Stack>,
  template: string,
  scratch: string,
  n: number,
  powerCut: boolean,
): Promise<string | undefined> {
  const dir = path.join(scratch, `run-${n}`);
  const copy = path.join(scratch, `crashed-${n}`);
  cpSync(template, dir, { recursive: true });
  const stack = await operation.open(dir);
  const acked = new Set<string>();
  const unsynced = powerCut ? new UnsyncedWrites() : undefined;
  const injector = injectFaults({
    root: dir,
    at: n,
    action: 'crash',
    tornWrite: !powerCut,
    onOp: unsynced && ((op) => unsynced.see(op)),
    onCrash: () => {
      cpSync(dir, copy, { recursive: true });
      unsynced?.loseIn(dir, copy);
    },
  });
  try {
    await operation.run(stack, acked).catch(() => undefined);
  } finally {
    stopFaultInjection();
    await operation.close(stack).catch(() => undefined);
  }
  try {
    // a run whose count changed may end before operation n: then the folder as it was left is the crash's
    if (injector.crashedAt === undefined) cpSync(dir, copy, { recursive: true });
    await operation.check(copy, acked, injector.crashedAt);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(copy, { recursive: true, force: true });
  }
}

function describe(op: FileOp | undefined): string {
  return op === undefined ? 'beyond the counted run' : `${op.kind} ${op.path.replace(/^.*?\/(run|count)[^/]*\//, '')}`;
}

/**
 * What a power cut loses: the content each file had at its last fsync, for the files written since (tracked from
 * the operations as they are about to run, so a file is read just before it is first changed and when fsynced).
 */
class UnsyncedWrites {
  /** Content as of the last fsync (or as before the first change), by path. */
  private readonly durable = new Map<string, Buffer>();
  private readonly dirty = new Set<string>();

  see(op: FileOp): void {
    switch (op.kind) {
      case 'create':
      case 'write':
      case 'truncate':
        this.remember(op.path);
        this.dirty.add(op.path);
        return;
      case 'fsync':
        if (isFile(op.path)) {
          this.durable.set(op.path, readFileSync(op.path));
          this.dirty.delete(op.path);
        }
        return;
      case 'rename':
        this.forget(op.to!);
        this.move(op.path, op.to!);
        return;
      case 'link':
        if (this.durable.has(op.path)) this.durable.set(op.to!, this.durable.get(op.path)!);
        if (this.dirty.has(op.path)) this.dirty.add(op.to!);
        return;
      case 'copy':
        this.durable.set(op.to!, Buffer.alloc(0));
        this.dirty.add(op.to!);
        return;
      case 'remove':
        this.forget(op.path);
        return;
      case 'mkdir':
        return;
    }
  }

  /** In `copy` (a copy of `dir` taken at the crash), every file written since its last fsync as it was then. */
  loseIn(dir: string, copy: string): void {
    for (const file of this.dirty) {
      const target = path.join(copy, path.relative(dir, file));
      if (isFile(target)) writeFileSync(target, this.durable.get(file) ?? Buffer.alloc(0));
    }
  }

  private remember(file: string): void {
    if (!this.durable.has(file)) this.durable.set(file, isFile(file) ? readFileSync(file) : Buffer.alloc(0));
  }

  /** A file or folder renamed: what is known of it and of everything under it moves along. */
  private move(from: string, to: string): void {
    for (const map of [this.durable, this.dirty]) {
      for (const key of [...map.keys()]) {
        if (key !== from && !key.startsWith(from + path.sep)) continue;
        const moved = to + key.slice(from.length);
        if (map instanceof Map) map.set(moved, map.get(key)!);
        else map.add(moved);
        map.delete(key);
      }
    }
  }

  private forget(target: string): void {
    for (const map of [this.durable, this.dirty])
      for (const key of [...map.keys()]) if (key === target || key.startsWith(target + path.sep)) map.delete(key);
  }
}

function isFile(file: string): boolean {
  return existsSync(file) && statSync(file).isFile();
}

/**
 * The kinds of file operation a full disk can refuse: every one that may need a block or a folder entry. A removal
 * frees space, and so does a truncate that shrinks; one that grows makes a sparse file (the WAL's spare files),
 * taking no block: neither is refused by a full disk, so neither is counted here.
 */
export const FULL_DISK_OP_KINDS: readonly FileOpKind[] = FILE_OP_KINDS.filter(
  (kind) => kind !== 'remove' && kind !== 'truncate',
);

/**
 * Full disk at every step (issue 28, item 2), for tests: an operation is run once to count the file operations a
 * full disk can refuse, then once per point N on a fresh copy of the starting folder with operation N and every
 * later one failing with ENOSPC (the disk stays full). The run must succeed or be refused as a full disk; the live
 * stack, still full, must serve exactly the acknowledged steps; once space is freed (the injector stopped), the same
 * stack, not reopened, must finish the operation; and after it is closed, `check` must find everything on a restart.
 */
export interface FullDiskWalkOperation<Stack> extends CrashWalkOperation<Stack> {
  /** While the disk is still full, after `run` ended: throws unless `stack` serves exactly what `acked` says. */
  checkLive(stack: Stack, acked: ReadonlySet<string>): Promise<void>;
  /**
   * Space is freed: on the same stack, finishes the operation (the steps not in `acked`, or the whole of it again),
   * adding each step to `acked`. Any failure is a defect: nothing is full any more.
   */
  resume(stack: Stack, acked: Set<string>): Promise<void>;
}

export interface FullDiskWalkOptions {
  /** Walk points 1, 1 + stride, ... and the last (default 1: every one). */
  stride?: number;
  /** Whether a failure is what the transports answer as a full disk (REST 507, gRPC RESOURCE_EXHAUSTED). */
  isFullDisk(error: unknown): boolean;
  /** How long one phase (run, check, resume, close) may take before it counts as hung (default 60 s). */
  timeoutMs?: number;
  /** Which points to walk (default all): the points of a known defect can be walked apart (`it.failing`). */
  select?: (op: FileOp, trace: readonly FileOp[]) => boolean;
}

export interface FullDiskWalkResult extends CrashWalkResult {
  /** Points whose run was refused (the others completed: the refused operation was not on their path). */
  refused: number;
}

/** Walks full-disk points 1, 1 + stride, ... and the last one of `operation` under a scratch folder. */
export async function walkFullDiskPoints<Stack>(
  operation: FullDiskWalkOperation<Stack>,
  { stride = 1, isFullDisk, timeoutMs = 60_000, select = () => true }: FullDiskWalkOptions,
): Promise<FullDiskWalkResult> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'vs-full-disk-walk-'));
  // a promise nobody waits for that rejects is a crash waiting to happen in a server: each is a failure (under
  // jest, which takes the event itself, the test fails on it anyway)
  const strays: unknown[] = [];
  const onStray = (reason: unknown) => void strays.push(reason);
  process.on('unhandledRejection', onStray);
  try {
    const template = path.join(scratch, 'template');
    await operation.prepare(template);
    const trace = await countRun(operation, template, path.join(scratch, 'count'), FULL_DISK_OP_KINDS);
    if (process.env.CRASH_WALK_TRACE === '1')
      process.stdout.write(`${operation.name}:\n${trace.map((op) => `  #${op.n} ${describe(op)}`).join('\n')}\n`);
    operation.checkCount?.(trace);
    const selected = trace.filter((op) => select(op, trace)).map((op) => op.n);
    const points = selected.filter((_, i) => i % stride === 0);
    if (selected.length > 0 && points[points.length - 1] !== selected[selected.length - 1])
      points.push(selected[selected.length - 1]);
    const failures: string[] = [];
    let refused = 0;
    for (const n of points) {
      const dir = path.join(scratch, `run-${n}`);
      const outcome = await fullDiskAt(operation, template, dir, n, isFullDisk, timeoutMs).finally(() =>
        rmSync(dir, { recursive: true, force: true }),
      );
      // rejections left unhandled surface a turn later
      await new Promise((resolve) => setImmediate(resolve));
      const stray = strays.splice(0).map((reason) => `unhandled rejection: ${messageOf(reason)}`);
      const failure = [outcome.failure, ...stray].filter((text) => text !== undefined).join('; ');
      if (outcome.refused) refused++;
      if (failure !== '') failures.push(`ENOSPC at #${n} of ${trace.length} (${describe(trace[n - 1])}): ${failure}`);
    }
    return { name: operation.name, points: trace.length, walked: points.length, refused, failures };
  } finally {
    process.off('unhandledRejection', onStray);
    rmSync(scratch, { recursive: true, force: true });
  }
}

async function fullDiskAt<Stack>(
  operation: FullDiskWalkOperation<Stack>,
  template: string,
  dir: string,
  n: number,
  isFullDisk: (error: unknown) => boolean,
  timeoutMs: number,
): Promise<{ refused: boolean; failure?: string }> {
  cpSync(template, dir, { recursive: true });
  const stack = await operation.open(dir);
  const acked = new Set<string>();
  let refused = false;
  // each phase runs even after one failed, so that a failure says what else it leads to
  const failures: string[] = [];
  const phase = async (name: string, step: () => Promise<unknown>): Promise<boolean> => {
    try {
      await withTimeout(step(), timeoutMs);
      return true;
    } catch (error) {
      failures.push(`${name}: ${messageOf(error)}`);
      return false;
    }
  };
  injectFaults({ root: dir, at: n, action: 'fail', code: 'ENOSPC', times: Infinity, kinds: FULL_DISK_OP_KINDS });
  try {
    try {
      await withTimeout(operation.run(stack, acked), timeoutMs);
    } catch (error) {
      if (error instanceof HungError || !isFullDisk(error))
        failures.push(`run: not refused as a full disk: ${messageOf(error)}`);
      else refused = true;
    }
    await phase('the check while the disk is full', () => operation.checkLive(stack, acked));
  } finally {
    stopFaultInjection();
  }
  await phase('the resume after space was freed', () => operation.resume(stack, acked));
  if (await phase('the close', () => operation.close(stack)))
    await phase('the restart', () => operation.check(dir, acked, undefined));
  return { refused, failure: failures.length > 0 ? failures.join('; ') : undefined };
}

class HungError extends Error {}

/** `promise`, or a {@link HungError} once `ms` passed. */
async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new HungError(`hung: no answer after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, hung]);
  } finally {
    clearTimeout(timer);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
