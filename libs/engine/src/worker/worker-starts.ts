// Process-wide record of engine worker thread starts. A failing start is retried at once (a new worker in the
// same slot); after START_ATTEMPTS failures in a row no start is tried for COOL_DOWN_MS and whatever needs a
// worker fails with EngineWorkersError (not retryable), reported by one warning line until a start succeeds again.

/** Starts in a row that may fail before starts are refused. */
export const START_ATTEMPTS = 3;
/** How long starts are refused after START_ATTEMPTS failures; then one start is tried again. */
export const COOL_DOWN_MS = 30_000;
export const WARNING_CODE = 'VECTORSTORE_ENGINE_WORKERS';

/**
 * Worker threads of the engine cannot be started (the process cannot create threads, out of memory, a broken
 * engine module): a retry would fail the same way, so the storage layer answers it as an internal error.
 */
export class EngineWorkersError extends Error {
  override readonly name = 'EngineWorkersError';
  constructor(message: string) {
    super(message);
  }
}

export class WorkerStarts {
  private failuresInARow = 0;
  private refusedUntil = 0;
  private lastReason = '';
  private warned = false;

  constructor(
    private readonly now: () => number = Date.now,
    private readonly warn: (message: string) => void = (message) =>
      process.emitWarning(message, { code: WARNING_CODE }),
  ) {}

  /** Whether starts are refused now. */
  get refusing(): boolean {
    return this.failuresInARow >= START_ATTEMPTS && this.now() < this.refusedUntil;
  }

  /** Throws the refusal while starts are refused. */
  check(): void {
    if (this.refusing) throw this.error();
  }

  /** A worker came up. */
  succeeded(): void {
    if (this.warned) this.warn('engine worker threads start again');
    this.failuresInARow = 0;
    this.warned = false;
  }

  /** A worker failed before it came up; true when starts are now refused. */
  failed(reason: string): boolean {
    this.failuresInARow++;
    this.lastReason = reason;
    if (this.failuresInARow < START_ATTEMPTS) return false;
    this.refusedUntil = this.now() + COOL_DOWN_MS;
    if (!this.warned) {
      this.warned = true;
      this.warn(`${this.error().message} (logged once until a start succeeds)`);
    }
    return true;
  }

  error(): EngineWorkersError {
    return new EngineWorkersError(
      `engine worker threads failed to start ${this.failuresInARow} times in a row (last: ${this.lastReason}); ` +
        `searches and builds on worker threads fail until a start succeeds (the next is tried ` +
        `${COOL_DOWN_MS / 1000} s after the last failure)`,
    );
  }
}

/** The one record of the process (each worker thread that builds segments has its own). */
export const workerStarts = new WorkerStarts();
