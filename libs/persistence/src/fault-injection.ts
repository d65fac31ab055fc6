import { constants as osConstants } from 'node:os';
import * as path from 'node:path';

/**
 * The kinds of file operation that change what is on disk, as durable-fs counts them. `fsync` covers fsync and
 * fdatasync of files and folders; `create` an open that may create or truncate a file; `remove` one unlink or rmdir
 * (a recursive removal counts each entry while faults are injected).
 */
export const FILE_OP_KINDS = [
  'create',
  'write',
  'fsync',
  'truncate',
  'rename',
  'link',
  'remove',
  'mkdir',
  'copy',
] as const;
export type FileOpKind = (typeof FILE_OP_KINDS)[number];

/** One counted file operation: its number (from 1), kind and path (the source of a rename, link or copy). */
export interface FileOp {
  n: number;
  kind: FileOpKind;
  path: string;
  /** The target of a rename, link or copy. */
  to?: string;
}

/**
 * What to do to the file operations under `root` (see {@link injectFaults}). Without `at` the injector only counts.
 *
 * - `fail`: operations `at` to `at + times - 1` (of the kinds counted) throw an I/O error with `code` (EIO by
 *   default; ENOSPC for a full disk; `times: Infinity` until the injector is stopped) instead of running.
 * - `crash`: operation `at` does not run (a write may be torn: its first half reaches the file), `onCrash` is
 *   called at once, synchronously (to copy the folder as a crash leaves it, or to kill the process), and this
 *   and every later operation under `root` throws {@link InjectedCrashError}: the code still running is a ghost
 *   whose state must be abandoned.
 */
export interface FaultPlan {
  /** Only operations on paths inside this folder are counted and faulted. */
  root: string;
  /** The operation (1-based, counting only `kinds`) where the fault starts. */
  at?: number;
  action?: 'fail' | 'crash';
  /** errno code name of a `fail` (default EIO). */
  code?: string;
  /** How many operations in a row a `fail` fails (default 1). */
  times?: number;
  /** The kinds counted and faulted (default all). */
  kinds?: readonly FileOpKind[];
  /** A crash at a write lets the first half of its bytes reach the file (a torn write). */
  tornWrite?: boolean;
  /** Called synchronously when the crash happens, before the operation's caller sees anything. */
  onCrash?: (op: FileOp) => void;
  /** Keep every counted operation in {@link FaultInjector.trace} (to print what a number points at). */
  trace?: boolean;
  /**
   * Called synchronously for every counted operation that is about to run (not the one crashed at), before it runs:
   * a test can see what a file held when it was fsynced, to model a power cut losing what was not.
   */
  onOp?: (op: FileOp) => void;
}

/** What every file operation under the root throws once an injected crash happened. */
export class InjectedCrashError extends Error {
  readonly code = 'EINJECTEDCRASH';

  constructor(
    readonly op: FileOp,
    at: FileOp,
  ) {
    super(`injected crash at file operation #${at.n} (${at.kind} ${at.path}); ${op.kind} ${op.path} did not run`);
    this.name = 'InjectedCrashError';
  }
}

const SYSCALLS: Record<FileOpKind, string> = {
  create: 'open',
  write: 'write',
  fsync: 'fsync',
  truncate: 'ftruncate',
  rename: 'rename',
  link: 'link',
  remove: 'unlink',
  mkdir: 'mkdir',
  copy: 'copyfile',
};

const DESCRIPTIONS: Record<string, string> = {
  EIO: 'i/o error',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
};

/** Counts file operations under a folder and fails or crashes one of them (see {@link FaultPlan}). */
export class FaultInjector {
  /** Operations counted so far. */
  count = 0;
  /** Operations counted so far, by kind. */
  readonly counts: Record<FileOpKind, number> = Object.fromEntries(FILE_OP_KINDS.map((k) => [k, 0])) as Record<
    FileOpKind,
    number
  >;
  /** Every counted operation, when the plan asked for a trace. */
  readonly trace: FileOp[] = [];
  /** The operation a crash happened at; undefined until then. */
  crashedAt: FileOp | undefined;
  /** Operations failed so far. */
  failed = 0;
  private readonly root: string;
  private readonly kinds: ReadonlySet<FileOpKind>;

  constructor(private readonly plan: FaultPlan) {
    this.root = path.resolve(plan.root);
    this.kinds = new Set(plan.kinds ?? FILE_OP_KINDS);
    if (plan.at !== undefined && (!Number.isSafeInteger(plan.at) || plan.at < 1))
      throw new RangeError(`fault plan: at must be a positive integer, got ${plan.at}`);
  }

  /** True once the planned fault (a crash, or the first failure) has happened. */
  get fired(): boolean {
    return this.crashedAt !== undefined || this.failed > 0;
  }

  /**
   * Called by durable-fs before an operation runs: the error to throw instead of running it, or undefined to
   * run it. `tear` writes the first half of a write's bytes (for a torn crash).
   * @internal
   */
  before(kind: FileOpKind, filePath: string, tear?: () => void, target?: string): Error | undefined {
    const resolved = path.resolve(filePath);
    if (resolved !== this.root && !resolved.startsWith(this.root + path.sep)) return undefined;
    if (this.crashedAt !== undefined) return new InjectedCrashError({ n: 0, kind, path: resolved }, this.crashedAt);
    if (!this.kinds.has(kind)) return undefined;
    const op: FileOp = { n: ++this.count, kind, path: resolved };
    if (target !== undefined) op.to = path.resolve(target);
    this.counts[kind]++;
    if (this.plan.trace) this.trace.push(op);
    const at = this.plan.at;
    if (at === undefined || op.n < at) {
      this.plan.onOp?.(op);
      return undefined;
    }
    if (this.plan.action === 'crash') {
      if (op.n !== at) {
        this.plan.onOp?.(op);
        return undefined;
      }
      this.crashedAt = op;
      if (this.plan.tornWrite && tear !== undefined) tear();
      this.plan.onCrash?.(op);
      return new InjectedCrashError(op, op);
    }
    if (op.n >= at + (this.plan.times ?? 1)) {
      this.plan.onOp?.(op);
      return undefined;
    }
    this.failed++;
    return ioError(this.plan.code ?? 'EIO', kind, resolved);
  }
}

/** An error shaped as Node's own for a failed system call (`code`, `errno`, `syscall`, `path`). */
function ioError(code: string, kind: FileOpKind, filePath: string): NodeJS.ErrnoException {
  const syscall = SYSCALLS[kind];
  const description = DESCRIPTIONS[code] ?? code.toLowerCase();
  const error: NodeJS.ErrnoException = new Error(`${code}: ${description} (injected), ${syscall} '${filePath}'`);
  error.code = code;
  const errno = (osConstants.errno as Record<string, number | undefined>)[code];
  if (errno !== undefined) error.errno = -errno;
  error.syscall = syscall;
  error.path = filePath;
  return error;
}

/** The injector durable-fs consults: undefined (the normal case) costs one property read per operation. */
export const faultState: { active: FaultInjector | undefined } = { active: undefined };

/**
 * Starts counting (and faulting, per `plan`) the file operations durable-fs makes under `plan.root`, in this
 * thread. For tests only; one injector at a time. Stop it with {@link stopFaultInjection}.
 */
export function injectFaults(plan: FaultPlan): FaultInjector {
  if (faultState.active !== undefined) throw new Error('fault injection is already on; stop it first');
  const injector = new FaultInjector(plan);
  faultState.active = injector;
  return injector;
}

/** Stops fault injection; returns the injector that was on, if any. */
export function stopFaultInjection(): FaultInjector | undefined {
  const injector = faultState.active;
  faultState.active = undefined;
  return injector;
}
