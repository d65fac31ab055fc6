import { Segment } from '../storage/segment';

export type OptimizationKind = 'indexing' | 'vacuum' | 'merge' | 'config';

/** One rebuild: `sources` become one new indexed segment. */
export interface OptimizationPlan {
  kind: OptimizationKind;
  sources: Segment[];
}

/**
 * One planning pass over a shard (Qdrant's `OptimizationPlanner`): the segments no job holds yet, the plans made
 * so far, and the jobs already running. Each optimizer in turn takes segments out of `remaining` into a plan.
 */
export class PlanningState {
  readonly plans: OptimizationPlan[] = [];
  private readonly free: Set<Segment>;

  constructor(
    segments: readonly Segment[],
    busy: ReadonlySet<Segment>,
    private readonly running: number,
  ) {
    this.free = new Set(segments.filter((segment) => !busy.has(segment)));
  }

  /** Segments not taken by a running job or a plan, in the shard's order. */
  get remaining(): Segment[] {
    return [...this.free];
  }

  has(segment: Segment): boolean {
    return this.free.has(segment);
  }

  /** How many segments the shard will have once the plans made and the running jobs are done (one each). */
  expectedSegmentCount(): number {
    return this.free.size + this.plans.length + this.running;
  }

  plan(kind: OptimizationKind, sources: Segment[]): void {
    for (const source of sources) this.free.delete(source);
    this.plans.push({ kind, sources });
  }
}
