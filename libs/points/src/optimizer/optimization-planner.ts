import { CollectionConfig, OptimizersConfig, payloadsOnDisk } from '@vectorstore/collections';
import { availableParallelism } from 'node:os';
import { LocalShard } from '../storage/local-shard';
import { Segment } from '../storage/segment';
import { isStaleProfile, SegmentStorageOptions } from '../storage/segment-layout';
import { DEFAULT_INDEXING_THRESHOLD_KB } from '../storage/deferred-points';

export type OptimizationKind = 'indexing' | 'vacuum' | 'merge' | 'config';

/** One rebuild: `sources` become one new indexed segment. */
export interface OptimizationPlan {
  kind: OptimizationKind;
  sources: Segment[];
}

/** Qdrant's automatic target segment count: half the CPUs, between 2 and 8. */
export function defaultSegmentTarget(): number {
  return Math.min(8, Math.max(2, Math.floor(availableParallelism() / 2)));
}

/** Jobs allowed to run at once per shard; 0 disables optimization. */
export function maxConcurrentJobs(config: OptimizersConfig): number {
  const threads = config.maxOptimizationThreads;
  if (threads && 'value' in threads) return threads.value;
  if (config.deprecatedMaxOptimizationThreads !== undefined) return config.deprecatedMaxOptimizationThreads;
  return Math.max(1, availableParallelism() - 1);
}

/**
 * What a shard needs, in priority order: index appendable segments that grew past
 * `indexing_threshold`; vacuum indexed segments with too many deletes; rebuild one indexed segment
 * built with another config (HNSW, quantization, on-disk settings) than the current; merge the smallest indexed
 * segments while there are more than `default_segment_number`, never past `max_segment_size` KB of
 * vectors in one segment. `busy` segments are skipped.
 */
export function planOptimizations(
  shard: LocalShard,
  collection: CollectionConfig,
  busy: ReadonlySet<Segment>,
): OptimizationPlan[] {
  const config = collection.optimizerConfig;
  const plans: OptimizationPlan[] = [];
  const threshold = config.indexingThreshold ?? DEFAULT_INDEXING_THRESHOLD_KB;
  if (threshold > 0) {
    for (const segment of shard.segments) {
      if (!segment.appendable || busy.has(segment) || segment.pointCount === 0) continue;
      // Deferred points (prevent_unoptimized) wait for this: index them even below the threshold.
      if (segment.vectorDataKb() >= threshold || segment.deferredCount > 0) {
        plans.push({ kind: 'indexing', sources: [segment] });
      }
    }
  }
  const deletedThreshold = config.deletedThreshold ?? 0.2;
  const minVectors = config.vacuumMinVectorNumber ?? 1000;
  for (const segment of shard.segments) {
    if (segment.appendable || busy.has(segment) || segment.size < minVectors) continue;
    if (segment.deletedCount / segment.size > deletedThreshold) plans.push({ kind: 'vacuum', sources: [segment] });
  }
  // One at a time, so a config change does not rebuild the whole shard at once.
  const storage = storageOptionsOf(collection);
  const stale = shard.segments.find(
    (s) => !s.appendable && !busy.has(s) && !plans.some((p) => p.sources.includes(s)) && isStale(s, shard, storage),
  );
  if (stale) plans.push({ kind: 'config', sources: [stale] });
  const target =
    config.defaultSegmentNumber && config.defaultSegmentNumber > 0
      ? config.defaultSegmentNumber
      : defaultSegmentTarget();
  const indexed = shard.segments.filter(
    (s) => !s.appendable && !busy.has(s) && !plans.some((p) => p.sources.includes(s)),
  );
  if (indexed.length > target) {
    const smallest = withinSize(
      [...indexed].sort((a, b) => a.pointCount - b.pointCount).slice(0, indexed.length - target + 1),
      config.maxSegmentSize,
    );
    if (smallest.length >= 2) plans.push({ kind: 'merge', sources: smallest });
  }
  return plans;
}

/** How the collection wants optimized segments stored. */
export function storageOptionsOf(collection: CollectionConfig): SegmentStorageOptions {
  return {
    payloadsOnDisk: payloadsOnDisk(collection.params),
    memmapThresholdKb: collection.optimizerConfig.memmapThreshold,
  };
}

/** Whether a segment was built with another config than a rebuild would use now (unknown: not stale). */
function isStale(segment: Segment, shard: LocalShard, storage: SegmentStorageOptions): boolean {
  return (
    segment.profile !== undefined && isStaleProfile(segment.profile, shard.spaces, segment.vectorDataKb(), storage)
  );
}

/** The leading segments whose vectors together stay within `max_segment_size` KB (all when unset). */
function withinSize(segments: Segment[], maxKb: number | undefined): Segment[] {
  if (!maxKb) return segments;
  const taken: Segment[] = [];
  let total = 0;
  for (const segment of segments) {
    total += segment.vectorDataKb();
    if (total > maxKb) break;
    taken.push(segment);
  }
  return taken;
}
