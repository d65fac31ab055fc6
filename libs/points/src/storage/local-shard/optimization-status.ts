/** What the optimizer is doing on a shard; the collection status (Grey, Yellow, Red) is read from it. */
export class OptimizationStatus {
  private wanted = false;
  private jobs = 0;
  private lastError: string | undefined;
  private optimized = 0;

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
  }

  /** A job ended, whether it succeeded or failed. */
  jobEnded(): void {
    this.jobs--;
  }
}
