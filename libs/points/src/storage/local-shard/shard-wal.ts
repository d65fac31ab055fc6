import { UpdateOperation } from '../../model/operations.model';
import { decodeRecord, encodeOperation } from './operation-codec';
import { ShardLog } from '../shard-log';
import { ClockTag, originOf, RecoveryPoint, ShardClocks, TaggedRecord } from './shard-clocks';
import { requireKnownOperation } from './tagged-operation';

/** A WAL record the shard cannot decode: replay stops there and the shard does not open. */
export class WalReplayError extends Error {
  constructor(
    readonly opNum: number,
    readonly file: string | undefined,
    cause: unknown,
  ) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(
      `write-ahead log record of op ${opNum} in ${file ?? "the shard's log"} cannot be decoded (${reason}); ` +
        `replay stopped before it, so the shard is not opened and no later record is applied`,
      { cause },
    );
    this.name = 'WalReplayError';
  }
}

/** Applies one operation to the shard's segments (deterministic: replay reproduces the same state). */
export type ApplyOperation = (opNum: number, operation: UpdateOperation) => void;

/** Told of each operation applied by a live write, in op-number order, in the same tick it was applied. */
export type AppliedListener = (opNum: number, operation: UpdateOperation, tag: ClockTag | undefined) => void;

/**
 * The write-ahead log in front of a shard's segments. A write is logged and fsynced, then applied
 * in op-number order (concurrent appends may be numbered out of the order they resolve in); opening
 * replays the log past the last flush, so an acknowledged write survives any crash.
 */
export class ShardWal {
  private applied: number;
  private readonly pending = new Map<number, { operation: UpdateOperation; tag?: ClockTag }>();
  /** Writes with a tag being logged or applied: a repeat of one of them waits for it instead of being logged again. */
  private readonly pendingTags = new Map<string, Promise<number>>();
  /** The routed writes applied, by origin (recovery point); as of `persistedOpNum` until replayed past it. */
  readonly clocks: ShardClocks;
  private readonly failedOps = new Map<number, Error>();
  private firstFailure: Error | undefined;
  private readonly listeners = new Set<AppliedListener>();

  /** `persistedOpNum`: the op number the segments already hold everything up to (the last flush). */
  constructor(
    private readonly log: ShardLog,
    private readonly apply: ApplyOperation,
    private readonly persistedOpNum: number,
    persistedClocks: RecoveryPoint = {},
  ) {
    this.applied = persistedOpNum;
    this.clocks = new ShardClocks(persistedClocks);
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

  /**
   * Applies the operations the log holds past the last flush; done once, when the shard opens. A record that
   * cannot be decoded stops the replay with a {@link WalReplayError} naming its file and op number, and the log is
   * closed: skipping it would apply the writes after it without it, so the shard refuses to open instead.
   * Afterwards the log numbers the next write past every op the segments hold (a torn tail may have cut some).
   */
  async replay(): Promise<void> {
    try {
      for await (const record of this.log.readFrom(this.persistedOpNum + 1)) {
        let decoded: { operation: UpdateOperation; tag?: ClockTag };
        try {
          decoded = decodeRecord(record.data);
        } catch (error) {
          throw new WalReplayError(record.opNum, this.log.fileOf(record.opNum), error);
        }
        // An operation that cannot be applied marks the shard failed (Red) but never stops it from
        // opening: the records after it are still applied, so no later acknowledged write is lost.
        try {
          if (decoded.tag) this.clocks.add(decoded.tag);
          this.apply(record.opNum, decoded.operation);
        } catch (error) {
          this.firstFailure ??= error instanceof Error ? error : new Error(String(error));
        }
        this.applied = record.opNum;
      }
      await this.log.continueAfter(this.applied);
    } catch (error) {
      await this.log.close().catch(() => undefined);
      throw error;
    }
  }

  /**
   * The records the log still holds, in order, with their clock tags (for a WAL delta), up to what has been
   * applied when called, and the recovery point at that moment (which the records are the newest part of).
   */
  async retained(): Promise<{
    point: RecoveryPoint;
    records: Array<TaggedRecord<{ opNum: number; operation: UpdateOperation }>>;
  }> {
    const upTo = this.applied;
    const point = this.clocks.snapshot();
    const first = this.log.firstOpNum ?? upTo + 1;
    const records: Array<TaggedRecord<{ opNum: number; operation: UpdateOperation }>> = [];
    for await (const record of this.log.readFrom(first)) {
      if (record.opNum > upTo) break;
      const { operation, tag } = decodeRecord(record.data);
      records.push({ tag, item: { opNum: record.opNum, operation } });
    }
    return { point, records };
  }

  /**
   * Logs the operation durably, applies it once the operations before it are, and returns its op number. A tagged
   * write this shard has already applied (a coordinator sending it again) is not logged or applied twice: the answer
   * is the last op number applied; one still being logged or applied is answered as that write is (it may fail).
   */
  write(operation: UpdateOperation, tag?: ClockTag): Promise<number> {
    // Refused before it is logged: a record the shard cannot apply must never reach the log.
    try {
      requireKnownOperation(operation);
    } catch (error) {
      return Promise.reject(error);
    }
    if (!tag) return this.logAndApply(operation, undefined);
    if (this.clocks.has(tag)) return Promise.resolve(this.applied);
    const key = `${originOf(tag)}#${tag.seq}`;
    const pending = this.pendingTags.get(key);
    if (pending) return pending;
    const written = this.logAndApply(operation, tag);
    // Dropped when applied (drainPending, with the tag going into the clocks in the same step), or when it failed:
    // an append may resolve before the write is applied, and a repeat then must still find it.
    written.catch(() => {
      if (this.pendingTags.get(key) === written) this.pendingTags.delete(key);
    });
    this.pendingTags.set(key, written);
    return written;
  }

  private async logAndApply(operation: UpdateOperation, tag: ClockTag | undefined): Promise<number> {
    const opNum = await this.log.append(encodeOperation(operation, tag));
    if (opNum <= this.applied && !this.pending.has(opNum)) {
      throw new Error(`write-ahead log returned op ${opNum}, but ${this.applied} is already applied`);
    }
    this.pending.set(opNum, tag ? { operation, tag } : { operation });
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

  /** Whether any listener observes the operations applied. */
  get observed(): boolean {
    return this.listeners.size > 0;
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
      const { operation, tag } = this.pending.get(next)!;
      this.pending.delete(next);
      if (tag) {
        this.clocks.add(tag);
        this.pendingTags.delete(`${originOf(tag)}#${tag.seq}`);
      }
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
      for (const listener of this.listeners) listener(next, operation, tag);
    }
  }
}
