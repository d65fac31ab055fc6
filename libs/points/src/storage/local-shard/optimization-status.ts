/** What the optimizer is doing on a shard; the collection status (Grey, Yellow, Red) is read from it. */
export class OptimizationStatus {
  private wanted = false;
  private jobs = 0;
  private lastError: string | undefined;
  private optimized = 0;
  private ended = 0;
  private failed = 0;
  private totalMicros = 0;
  private lastEnded: Date | undefined;

  /** Optimizations run only once a write arrived since start (after a restart pending work shows Grey). */
  get triggered(): boolean {
    return this.wanted;
  }

  /** Optimization jobs running now. */
  get running(): number {
    return this.jobs;
  }

  /** Points of the segments rebuilt since the shard was opened (Qdrant's `total_optimized_points`). */
  get optimizedPoints(): number {
    return this.optimized;
  }

  /** Jobs ended since the shard was opened, how many failed, their total duration and the last end. */
  get jobStats(): { count: number; failCount: number; totalMicros: number; lastEnded?: string } {
    return {
      count: this.ended,
      failCount: this.failed,
      totalMicros: Math.round(this.totalMicros),
      ...(this.lastEnded ? { lastEnded: this.lastEnded.toISOString() } : {}),
    };
  }

  /** Why the last optimization failed; cleared when one succeeds. */
  get error(): string | undefined {
    return this.lastError;
  }

  /** A write arrived, or the collection config changed: the optimizer may look at the shard. */
  trigger(): void {
    this.wanted = true;
  }

  jobStarted(): void {
    this.jobs++;
  }

  /** A job rebuilt segments holding `points` points. */
  jobSucceeded(points: number): void {
    this.lastError = undefined;
    this.optimized += points;
  }

  jobFailed(error: string): void {
    this.lastError = error;
    this.failed++;
  }

  /** A job ended after `micros`, whether it succeeded or failed. */
  jobEnded(micros = 0): void {
    this.jobs--;
    this.ended++;
    this.totalMicros += micros;
    this.lastEnded = new Date();
  }
}
