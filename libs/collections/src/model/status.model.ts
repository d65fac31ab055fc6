export type CollectionStatus = 'Green' | 'Yellow' | 'Red' | 'Grey';

/** Live state of one local shard, reported by the storage layer. */
export interface ShardRuntimeStats {
  pointsCount: number;
  segmentsCount: number;
  /** The op number every update up to has been applied (0 before the first). */
  appliedOpNum: number;
  /** Updates accepted and not applied yet. */
  updateQueueLength: number;
  status: CollectionStatus;
  /** Set when the shard failed or its last optimization did. */
  optimizerError?: string;
  /** Points of the segments the optimizer rebuilt since the server started. */
  optimizedPoints: number;
  /** Live vectors per vector name. */
  vectorsByName: Record<string, number>;
  /** Estimated bytes of dense vector data, and of payloads (their JSON size). */
  vectorsSizeBytes: number;
  payloadsSizeBytes: number;
  /** Optimization jobs ended since the server started. */
  optimizations: OptimizationJobStats;
}

export interface OptimizationJobStats {
  count: number;
  failCount: number;
  totalMicros: number;
  /** When the last one ended (ISO 8601). */
  lastEnded?: string;
}
