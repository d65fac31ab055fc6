import { HnswConfig, OptimizersConfig, WalConfig } from '../model/index-config.model';

/** HNSW defaults (Qdrant's config.yaml): m 16, ef_construct 100, full_scan_threshold 10000 KB. */
export const DEFAULT_HNSW_CONFIG: Readonly<HnswConfig> = Object.freeze({
  m: 16,
  efConstruct: 100,
  fullScanThreshold: 10000,
  maxIndexingThreads: 0,
  onDisk: false,
});

/** Optimizer defaults; indexing_threshold follows our spec (20000 KB), not Qdrant's 10000. */
export const DEFAULT_OPTIMIZERS_CONFIG: Readonly<OptimizersConfig> = Object.freeze({
  deletedThreshold: 0.2,
  vacuumMinVectorNumber: 1000,
  defaultSegmentNumber: 0,
  indexingThreshold: 20000,
  flushIntervalSec: 5,
  maxOptimizationThreads: { setting: 'Auto' as const },
});

/** WAL defaults: 32 MB segments, none created ahead, one closed segment retained. */
export const DEFAULT_WAL_CONFIG: Readonly<WalConfig> = Object.freeze({
  walCapacityMb: 32,
  walSegmentsAhead: 0,
  walRetainClosed: 1,
});

export const DEFAULT_SHARD_NUMBER = 1;
export const DEFAULT_REPLICATION_FACTOR = 1;
export const DEFAULT_WRITE_CONSISTENCY_FACTOR = 1;
/** Qdrant ships `storage.on_disk_payload: true`. */
export const DEFAULT_ON_DISK_PAYLOAD = true;
