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
}
