import { cpSync, mkdtempSync, rmSync } from 'node:fs';
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
  stride = 1,
): Promise<CrashWalkResult> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'vs-crash-walk-'));
  try {
    const template = path.join(scratch, 'template');
    await operation.prepare(template);
    const trace = await countRun(operation, template, path.join(scratch, 'count'));
    operation.checkCount?.(trace);
    const points: number[] = [];
    for (let n = 1; n <= trace.length; n += stride) points.push(n);
    if (trace.length > 0 && points[points.length - 1] !== trace.length) points.push(trace.length);
    const failures: string[] = [];
    for (const n of points) {
      const failure = await crashAt(operation, template, scratch, n);
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
): Promise<string | undefined> {
  const dir = path.join(scratch, `run-${n}`);
  const copy = path.join(scratch, `crashed-${n}`);
  cpSync(template, dir, { recursive: true });
  const stack = await operation.open(dir);
  const acked = new Set<string>();
  const injector = injectFaults({
    root: dir,
    at: n,
    action: 'crash',
    tornWrite: true,
    onCrash: () => cpSync(dir, copy, { recursive: true }),
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
