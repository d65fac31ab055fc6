import { stepBytes, TransferStep } from './transfer-steps';

/** Sends one numbered batch of steps to the target; rejects when the target did not apply it. */
export type SendBatch = (seq: number, steps: TransferStep[]) => Promise<void>;

export interface TransferSenderOptions {
  /** A batch holds at most this many bytes of steps (one step may exceed it alone). */
  maxBatchBytes?: number;
  /** Attempts per batch (the target acknowledges a batch it has without applying it twice). */
  attempts?: number;
  /** Whether a failed attempt may be tried again (a lost connection, a time-out), or ends the transfer. */
  retryable?: (error: unknown) => boolean;
}

/**
 * A transfer's ordered channel to its target: steps pushed in the order the source produced them (its writes in
 * apply order, copied points in between) go out in that order, in numbered batches, one batch at a time. Pushing
 * never waits (it is called in the tick a write is applied); the producer of copies waits for room instead.
 */
export class TransferSender {
  private readonly queue: TransferStep[] = [];
  /** Per queued step, who waits for its delivery (see {@link pushTracked}); undefined when nobody does. */
  private readonly trackers: Array<{ resolve: () => void; reject: (error: Error) => void } | undefined> = [];
  private queuedBytes = 0;
  private seq = 0;
  private sending = false;
  private failed: Error | undefined;
  private closed = false;
  private waiters: Array<{ ready: () => boolean; resolve: () => void; reject: (error: Error) => void }> = [];
  private readonly maxBatchBytes: number;
  private readonly attempts: number;
  private readonly retryable: (error: unknown) => boolean;
  /** Steps the target has applied. */
  delivered = 0;

  constructor(
    private readonly send: SendBatch,
    options: TransferSenderOptions = {},
  ) {
    this.maxBatchBytes = options.maxBatchBytes ?? 4 * 1024 * 1024;
    this.attempts = options.attempts ?? 5;
    this.retryable = options.retryable ?? (() => true);
  }

  /** Bytes pushed and not yet applied by the target. */
  get pendingBytes(): number {
    return this.queuedBytes;
  }

  /** Set once a batch could not be delivered: nothing more is sent. */
  get failure(): Error | undefined {
    return this.failed;
  }

  push(step: TransferStep): void {
    if (this.failed || this.closed) return;
    this.queue.push(step);
    this.trackers.push(undefined);
    this.queuedBytes += stepBytes(step);
    if (!this.sending) void this.pump();
  }

  /** Like {@link push}, and resolves once the target has applied the step (rejects if it never will). */
  pushTracked(step: TransferStep): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    if (this.closed) return Promise.reject(new Error('transfer stopped'));
    return new Promise<void>((resolve, reject) => {
      this.push(step);
      this.trackers[this.trackers.length - 1] = { resolve, reject };
    });
  }

  /** Resolves when fewer than `bytes` are pending (the copy's back-pressure); rejects once the channel failed. */
  roomFor(bytes: number): Promise<void> {
    return this.until(() => this.queuedBytes < bytes);
  }

  /** Resolves when the target has applied every step pushed so far. */
  drained(): Promise<void> {
    // The queue still holds the batch in flight: it leaves the queue once delivered.
    const target = this.delivered + this.queue.length;
    return this.until(() => this.delivered >= target);
  }

  /** Stops: pending steps are dropped and waiters rejected. */
  close(reason = new Error('transfer stopped')): void {
    this.closed = true;
    this.queue.length = 0;
    this.queuedBytes = 0;
    for (const tracker of this.trackers.splice(0)) tracker?.reject(reason);
    for (const waiter of this.waiters.splice(0)) waiter.reject(reason);
  }

  private until(ready: () => boolean): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    if (this.closed) return Promise.reject(new Error('transfer stopped'));
    if (ready()) return Promise.resolve();
    return new Promise((resolve, reject) => this.waiters.push({ ready, resolve, reject }));
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) {
      if (this.failed) waiter.reject(this.failed);
      else if (waiter.ready()) waiter.resolve();
      else continue;
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
    }
  }

  private async pump(): Promise<void> {
    this.sending = true;
    try {
      while (this.queue.length > 0 && !this.failed && !this.closed) {
        let bytes = 0;
        let count = 0;
        while (
          count < this.queue.length &&
          (count === 0 || bytes + stepBytes(this.queue[count]) <= this.maxBatchBytes)
        ) {
          bytes += stepBytes(this.queue[count]);
          count++;
        }
        const batch = this.queue.slice(0, count);
        const seq = ++this.seq;
        await this.deliver(seq, batch);
        if (this.closed) return;
        this.queue.splice(0, count);
        for (const tracker of this.trackers.splice(0, count)) tracker?.resolve();
        this.queuedBytes -= bytes;
        this.delivered += count;
        this.wake();
      }
    } catch (error) {
      this.failed = error instanceof Error ? error : new Error(String(error));
      for (const tracker of this.trackers.splice(0)) tracker?.reject(this.failed);
      this.wake();
    } finally {
      this.sending = false;
    }
  }

  private async deliver(seq: number, batch: TransferStep[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      // Closed (during a back-off too): nothing more goes out, the target may belong to another run by now.
      if (this.closed) return;
      try {
        await this.send(seq, batch);
        return;
      } catch (error) {
        if (attempt >= this.attempts || !this.retryable(error) || this.closed) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(2000, 100 * 2 ** attempt)));
      }
    }
  }
}
