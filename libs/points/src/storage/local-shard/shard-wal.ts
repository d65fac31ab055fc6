import { UpdateOperation } from '../../model/operations.model';
import { decodeOperation, encodeOperation } from './operation-codec';
import { ShardLog } from '../shard-log';

/** Applies one operation to the shard's segments (deterministic: replay reproduces the same state). */
export type ApplyOperation = (opNum: number, operation: UpdateOperation) => void;

/** Told of each operation applied by a live write, in op-number order, in the same tick it was applied. */
export type AppliedListener = (opNum: number, operation: UpdateOperation) => void;

/**
 * The write-ahead log in front of a shard's segments. A write is logged and fsynced, then applied
 * in op-number order (concurrent appends may be numbered out of the order they resolve in); opening
 * replays the log past the last flush, so an acknowledged write survives any crash.
 */
export class ShardWal {
  private applied: number;
  private readonly pending = new Map<number, UpdateOperation>();
  private readonly failedOps = new Map<number, Error>();
  private firstFailure: Error | undefined;
  private readonly listeners = new Set<AppliedListener>();

  /** `persistedOpNum`: the op number the segments already hold everything up to (the last flush). */
  constructor(
    private readonly log: ShardLog,
    private readonly apply: ApplyOperation,
    private readonly persistedOpNum: number,
  ) {
    this.applied = persistedOpNum;
  }

  /** The op number every operation up to has been applied. */
  get lastApplied(): number {
    return this.applied;
  }

  /** The last op number the log has handed out (acknowledged or about to be); `lastApplied` reaches it. */
  get lastLogged(): number {
    return Math.max(this.log.lastOpNum ?? 0, this.applied);
  }

  /** Set when an operation failed to apply: the shard reports Red and refuses writes. */
  get failure(): Error | undefined {
    return this.firstFailure;
  }

  /** Applies the operations the log holds past the last flush; done once, when the shard opens. */
  async replay(): Promise<void> {
    for await (const record of this.log.readFrom(this.persistedOpNum + 1)) {
      // An operation that cannot be applied marks the shard failed (Red) but never stops it from
      // opening: the records after it are still applied, so no later acknowledged write is lost.
      try {
        this.apply(record.opNum, decodeOperation(record.data));
      } catch (error) {
        this.firstFailure ??= error instanceof Error ? error : new Error(String(error));
      }
      this.applied = record.opNum;
    }
  }

  /** Logs the operation durably, applies it once the operations before it are, and returns its op number. */
  async write(operation: UpdateOperation): Promise<number> {
    const opNum = await this.log.append(encodeOperation(operation));
    if (opNum <= this.applied && !this.pending.has(opNum)) {
      throw new Error(`write-ahead log returned op ${opNum}, but ${this.applied} is already applied`);
    }
    this.pending.set(opNum, operation);
    this.drainPending();
    const failed = this.failedOps.get(opNum);
    if (failed) {
      this.failedOps.delete(opNum);
      throw failed;
    }
    return opNum;
  }

  /**
   * Calls `listener` after each operation a write applies from now on (not replayed ones), synchronously and in
   * op-number order: whatever reads the segments in a later tick has seen exactly the operations told so far.
   * Returns the way to stop.
   */
  observeApplied(listener: AppliedListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Records up to `opNum` are held by flushed segments and may be dropped. */
  ack(opNum: number): Promise<void> {
    return this.log.ack(opNum);
  }

  close(): Promise<void> {
    return this.log.close();
  }

  private drainPending(): void {
    for (let next = this.applied + 1; this.pending.has(next); next++) {
      const operation = this.pending.get(next)!;
      this.pending.delete(next);
      try {
        this.apply(next, operation);
      } catch (error) {
        // Validation should make this impossible; if it happens the caller is told, and the shard
        // stops taking writes (Red) because the operation may be half-applied.
        const failure = error instanceof Error ? error : new Error(String(error));
        this.firstFailure = failure;
        this.failedOps.set(next, failure);
      }
      this.applied = next;
      for (const listener of this.listeners) listener(next, operation);
    }
  }
}
