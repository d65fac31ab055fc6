/** A segment as an optimization report shows it. */
export interface OptimizationSegment {
  uuid: string;
  pointsCount: number;
}

/** Qdrant's `TrackerStatus`. */
export type OptimizationOutcome = 'optimizing' | 'done' | { cancelled: string } | { error: string };

/** One optimization job, running or ended (Qdrant's `Optimization`). */
export interface TrackedOptimization {
  /** The id of the segment the job builds. */
  uuid: string;
  /** Qdrant's optimizer name: `indexing`, `vacuum`, `merge`, `config mismatch`. */
  optimizer: string;
  segments: OptimizationSegment[];
  status: OptimizationOutcome;
  startedAt: Date;
  finishedAt?: Date;
}

/** Ended jobs kept per shard for the optimizations report. */
const COMPLETED_KEPT = 64;

/** What the optimizer is doing on a shard; the collection status (Grey, Yellow, Red) is read from it. */
export class OptimizationStatus {
  private readonly tracked = new Map<string, TrackedOptimization>();
  private readonly ended: TrackedOptimization[] = [];
  private wanted = false;
  private jobs = 0;
  private lastError: string | undefined;
  private optimized = 0;
  private endedCount = 0;
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
      count: this.endedCount,
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

  /** A job started; `job` (when given) is listed as running until it ends. */
  jobStarted(job?: Omit<TrackedOptimization, 'status' | 'startedAt'>): void {
    this.jobs++;
    if (job) this.tracked.set(job.uuid, { ...job, status: 'optimizing', startedAt: new Date() });
  }

  /** A job rebuilt segments holding `points` points. */
  jobSucceeded(points: number, uuid?: string): void {
    this.lastError = undefined;
    this.optimized += points;
    this.setOutcome(uuid, 'done');
  }

  jobFailed(error: string, uuid?: string): void {
    this.lastError = error;
    this.failed++;
    this.setOutcome(uuid, { error });
  }

  /** A job ended after `micros`, whether it succeeded or failed. */
  jobEnded(micros = 0, uuid?: string): void {
    this.jobs--;
    this.endedCount++;
    this.totalMicros += micros;
    this.lastEnded = new Date();
    const job = uuid === undefined ? undefined : this.tracked.get(uuid);
    if (job) {
      this.tracked.delete(job.uuid);
      // A job that ended without success or failure was stopped (the shard closed).
      if (job.status === 'optimizing') job.status = { cancelled: 'the shard was closed' };
      job.finishedAt = this.lastEnded;
      this.ended.unshift(job);
      this.ended.length = Math.min(this.ended.length, COMPLETED_KEPT);
    }
  }

  /** Jobs running now, oldest first. */
  get runningJobs(): readonly TrackedOptimization[] {
    return [...this.tracked.values()];
  }

  /** Ended jobs, newest first (at most {@link COMPLETED_KEPT}). */
  get completedJobs(): readonly TrackedOptimization[] {
    return this.ended;
  }

  private setOutcome(uuid: string | undefined, outcome: OptimizationOutcome): void {
    const job = uuid === undefined ? undefined : this.tracked.get(uuid);
    if (job) job.status = outcome;
  }
}
