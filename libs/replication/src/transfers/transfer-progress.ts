/** What a transfer's source is doing, in Qdrant's words (`shards/transfer/transfer_tasks_pool.rs`). */
export type TransferStage =
  | 'proxifying'
  | 'creating snapshot'
  | 'transferring'
  | 'applying queued updates'
  | 'finalizing'
  | 'waiting for writes to settle';

/** A transfer's progress as its source knows it: the stage and its start, and records copied of those planned. */
export class TransferProgress {
  private stage: TransferStage = 'proxifying';
  private stageStarted: number;
  private readonly started: number;
  private done = 0;
  private total = 0;
  /** Set when the method ran as another one (e.g. wal_delta as stream_records), said in the comment. */
  note: string | undefined;

  constructor(private readonly now: () => number = Date.now) {
    this.started = now();
    this.stageStarted = this.started;
  }

  enter(stage: TransferStage): void {
    this.stage = stage;
    this.stageStarted = this.now();
  }

  plan(total: number): void {
    this.total = total;
  }

  add(records: number): void {
    this.done += records;
    this.total = Math.max(this.total, this.done);
  }

  get transferred(): number {
    return this.done;
  }

  /** `transferring (1.20s) | Transferring records (300/1000), ETA: 2.40s`, as Qdrant's comment. */
  comment(): string {
    const parts = [`${this.stage} (${((this.now() - this.stageStarted) / 1000).toFixed(2)}s)`];
    if (this.total > 0) {
      let records = `Transferring records (${this.done}/${this.total})`;
      const elapsed = (this.now() - this.started) / 1000;
      if (this.done > 0 && this.done < this.total)
        records += `, ETA: ${((elapsed / this.done) * (this.total - this.done)).toFixed(2)}s`;
      parts.push(records);
    }
    if (this.note) parts.push(this.note);
    return parts.join(' | ');
  }
}
