import { CollectionConfig, OptimizersConfig, payloadsOnDisk } from '@vectorstore/collections';
import { availableParallelism } from 'node:os';
import { LocalShard } from '../storage/local-shard';
import { Segment } from '../storage/segment';
import { isStaleProfile, SegmentStorageOptions } from '../storage/segment-layout';
import { DEFAULT_INDEXING_THRESHOLD_KB } from '../storage/deferred-points';
import { VectorSpace } from '../storage/vector-space';
import { planIndexing } from './indexing-plan';
import { planMerges } from './merge-plan';
import { OptimizationPlan, PlanningState } from './planning-state';

export type { OptimizationKind, OptimizationPlan } from './planning-state';

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

/** Qdrant's default `max_segment_size` per indexing thread, in KB. */
const DEFAULT_MAX_SEGMENT_PER_CPU_KB = 256_000;

/**
 * `max_segment_size` in KB of vectors: as configured, or Qdrant's default of 256 000 KB per indexing thread (the
 * largest `max_indexing_threads` of the dense spaces; 0 = automatic: the CPUs, at most 8 up to 48 CPUs).
 */
export function maxSegmentSizeKb(config: OptimizersConfig, spaces: ReadonlyMap<string, VectorSpace>): number {
  if (config.maxSegmentSize) return config.maxSegmentSize;
  const cpus = availableParallelism();
  const automatic = Math.max(1, Math.min(cpus, cpus <= 48 ? 8 : cpus <= 64 ? 12 : 16));
  let threads = 0;
  for (const space of spaces.values()) {
    if (space.kind !== 'sparse') threads = Math.max(threads, space.hnsw.maxIndexingThreads || automatic);
  }
  return (threads || automatic) * DEFAULT_MAX_SEGMENT_PER_CPU_KB;
}

/**
 * What a shard needs, in Qdrant's order of optimizers (each takes only segments no earlier plan or running job
 * holds; `busy` segments are being rebuilt):
 * - merge the smallest segments while the shard would have more than `default_segment_number` (merge-plan.ts);
 * - index appendable segments that reached `indexing_threshold`, paired with another segment once the shard has
 *   `default_segment_number` of them (indexing-plan.ts);
 * - vacuum indexed segments with too many deletes;
 * - rebuild one indexed segment built with another config (HNSW, quantization, on-disk settings) than the current.
 * The optimizer starts them in this order as far as `max_optimization_threads` allows, and plans again later.
 */
export function planOptimizations(
  shard: LocalShard,
  collection: CollectionConfig,
  busy: ReadonlySet<Segment>,
): OptimizationPlan[] {
  const config = collection.optimizerConfig;
  const state = new PlanningState(shard.segments, busy, shard.optimization.running);
  const target =
    config.defaultSegmentNumber && config.defaultSegmentNumber > 0
      ? config.defaultSegmentNumber
      : defaultSegmentTarget();
  const maxKb = maxSegmentSizeKb(config, shard.spaces);
  planMerges(state, target, maxKb);
  planIndexing(state, target, config.indexingThreshold ?? DEFAULT_INDEXING_THRESHOLD_KB, maxKb);
  const deletedThreshold = config.deletedThreshold ?? 0.2;
  const minVectors = config.vacuumMinVectorNumber ?? 1000;
  for (const segment of state.remaining) {
    if (segment.appendable || segment.size < minVectors) continue;
    if (segment.deletedCount / segment.size > deletedThreshold) state.plan('vacuum', [segment]);
  }
  // One at a time, so a config change does not rebuild the whole shard at once.
  const storage = storageOptionsOf(collection);
  const stale = state.remaining.find((s) => !s.appendable && isStale(s, shard, storage));
  if (stale) state.plan('config', [stale]);
  return state.plans;
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
