import { CollectionConfig } from '@vectorstore/collections';
import { VectorSpace } from './vector-space';

/** The optimizer's indexing threshold when the config leaves it unset, in KB of vector data. */
export const DEFAULT_INDEXING_THRESHOLD_KB = 20_000;

// A multivector's row count is unknown ahead: counted as 16 rows, as Qdrant does.
const MULTIVECTOR_ROWS = 16;

/**
 * `prevent_unoptimized` (Qdrant's deferred points): an appendable segment shows reads only its first
 * points, as many as fit in the indexing threshold for the smallest HNSW-indexed vector; later points are
 * stored but hidden until the optimizer has indexed them. Undefined when nothing is deferred.
 */
export function deferredPointsFrom(config: CollectionConfig, spaces: Map<string, VectorSpace>): number | undefined {
  const optimizer = config.optimizerConfig;
  if (optimizer.preventUnoptimized !== true) return undefined;
  const thresholdKb = optimizer.indexingThreshold ?? DEFAULT_INDEXING_THRESHOLD_KB;
  // 0 disables indexing: nothing would ever be optimized, so nothing is deferred.
  if (thresholdKb <= 0) return undefined;
  const thresholdBytes = thresholdKb * 1024;
  let cutoff: number | undefined;
  for (const space of spaces.values()) {
    if (space.kind === 'sparse' || (space.hnsw.m <= 0 && (config.hnswConfig.payloadM ?? 0) <= 0)) continue;
    const elementBytes = space.datatype === 'float16' ? 2 : space.datatype === 'uint8' || space.turbo4 ? 1 : 4;
    const pointBytes = elementBytes * space.dim * (space.kind === 'multi' ? MULTIVECTOR_ROWS : 1);
    const from = Math.ceil(thresholdBytes / pointBytes);
    cutoff = cutoff === undefined ? from : Math.min(cutoff, from);
  }
  return cutoff;
}
