import type { OptimizationsReport, OptimizationSegment, TrackedOptimization } from '@vectorstore/points';

const segment = (s: OptimizationSegment) => ({ uuid: s.uuid, points_count: s.pointsCount });

/** A job as Qdrant's `Optimization`; its progress tree is the job itself (we do not split it into steps). */
function optimization(job: TrackedOptimization): Record<string, unknown> {
  const finished = job.finishedAt;
  return {
    uuid: job.uuid,
    optimizer: job.optimizer,
    status: job.status,
    segments: job.segments.map(segment),
    progress: {
      name: job.optimizer,
      started_at: job.startedAt.toISOString(),
      ...(finished
        ? {
            finished_at: finished.toISOString(),
            duration_sec: (finished.getTime() - job.startedAt.getTime()) / 1000,
          }
        : {}),
      children: [],
    },
  };
}

/** Qdrant's `OptimizationsResponse`: the optional lists only when asked for. */
export function optimizationsToRest(report: OptimizationsReport): Record<string, unknown> {
  return {
    summary: {
      queued_optimizations: report.summary.queuedOptimizations,
      queued_segments: report.summary.queuedSegments,
      queued_points: report.summary.queuedPoints,
      idle_segments: report.summary.idleSegments,
    },
    running: report.running.map(optimization),
    ...(report.queued
      ? { queued: report.queued.map((p) => ({ optimizer: p.optimizer, segments: p.segments.map(segment) })) }
      : {}),
    ...(report.completed ? { completed: report.completed.map(optimization) } : {}),
    ...(report.idleSegments ? { idle_segments: report.idleSegments.map(segment) } : {}),
  };
}
