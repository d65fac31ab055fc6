import { Injectable } from '@nestjs/common';
import { DomainError } from '@vectorstore/common';
import { planOptimizations } from '../optimizer/optimization-planner';
import { optimizerName, OptimizerService } from '../optimizer/optimizer.service';
import { OptimizationSegment, TrackedOptimization } from '../storage/local-shard/optimization-status';
import { Segment } from '../storage/segment';
import { CollectionContexts } from './collection-context';

/** What a report holds beyond the running jobs (Qdrant's `?with=`). */
export interface OptimizationsOptions {
  queued: boolean;
  /** Ended jobs to list, newest first; undefined: none. */
  completedLimit?: number;
  idleSegments: boolean;
}

export interface PendingOptimization {
  optimizer: string;
  segments: OptimizationSegment[];
}

/** Qdrant's `OptimizationsResponse`, over every shard of the collection on this node. */
export interface OptimizationsReport {
  summary: { queuedOptimizations: number; queuedSegments: number; queuedPoints: number; idleSegments: number };
  running: TrackedOptimization[];
  queued?: PendingOptimization[];
  completed?: TrackedOptimization[];
  idleSegments?: OptimizationSegment[];
}

/** Qdrant's default for `completed_limit`. */
export const DEFAULT_COMPLETED_LIMIT = 16;

/**
 * Reads `?with=` as Qdrant does: a comma-separated list of `queued`, `completed`, `idle_segments`
 * (blanks around names and empty items ignored); anything else is 400.
 */
export function optimizationsOptions(withFields: string | undefined, completedLimit?: number): OptimizationsOptions {
  const options: OptimizationsOptions = { queued: false, idleSegments: false };
  for (const field of (withFields ?? '').split(',')) {
    const name = field.trim();
    if (name === '') continue;
    if (name === 'queued') options.queued = true;
    else if (name === 'completed') options.completedLimit = completedLimit ?? DEFAULT_COMPLETED_LIMIT;
    else if (name === 'idle_segments') options.idleSegments = true;
    else throw DomainError.invalidArgument(`Bad request: Unknown field in 'with' parameter: ${field}`);
  }
  return options;
}

const segmentInfo = (segment: Segment): OptimizationSegment => ({ uuid: segment.id, pointsCount: segment.pointCount });

/** The optimizer's work on a collection: running jobs, the estimated queue, ended jobs, idle segments. */
@Injectable()
export class OptimizationsReporter {
  constructor(
    private readonly contexts: CollectionContexts,
    private readonly optimizer: OptimizerService,
  ) {}

  report(nameOrAlias: string, options: OptimizationsOptions): OptimizationsReport {
    const { storage } = this.contexts.resolve(nameOrAlias);
    const running: TrackedOptimization[] = [];
    const queued: PendingOptimization[] = [];
    const completed: TrackedOptimization[] = [];
    const idle: OptimizationSegment[] = [];
    for (const handle of storage.shards.values()) {
      const shard = handle.shard;
      const busy = this.optimizer.busySegments(shard);
      running.push(...shard.optimization.runningJobs);
      completed.push(...shard.optimization.completedJobs);
      // The plans the optimizer would start next: an estimate, as in Qdrant (limits may hold some back).
      const plans = planOptimizations(shard, storage.record.config, busy);
      const planned = new Set(plans.flatMap((plan) => plan.sources));
      for (const plan of plans) {
        queued.push({ optimizer: optimizerName(plan.kind), segments: plan.sources.map(segmentInfo) });
      }
      for (const segment of shard.segments) {
        if (!busy.has(segment) && !planned.has(segment)) idle.push(segmentInfo(segment));
      }
    }
    running.sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime());
    completed.sort((a, b) => (b.finishedAt?.getTime() ?? 0) - (a.finishedAt?.getTime() ?? 0));
    const report: OptimizationsReport = {
      summary: {
        queuedOptimizations: queued.length,
        queuedSegments: queued.reduce((sum, plan) => sum + plan.segments.length, 0),
        queuedPoints: queued.reduce((sum, plan) => sum + plan.segments.reduce((n, s) => n + s.pointsCount, 0), 0),
        idleSegments: idle.length,
      },
      running,
    };
    if (options.queued) report.queued = queued;
    if (options.completedLimit !== undefined) report.completed = completed.slice(0, options.completedLimit);
    if (options.idleSegments) report.idleSegments = idle;
    return report;
  }
}
