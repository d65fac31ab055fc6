import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FileOp, injectFaults, stopFaultInjection } from './fault-injection';

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

async function countRun<Stack>(operation: CrashWalkOperation<Stack>, template: string, dir: string): Promise<FileOp[]> {
  cpSync(template, dir, { recursive: true });
  const stack = await operation.open(dir);
  const injector = injectFaults({ root: dir, trace: true });
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
