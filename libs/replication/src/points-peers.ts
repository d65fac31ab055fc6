import type { CollectionRecord, CollectionRuntimeStats, ShardTransferKey } from '@vectorstore/collections';
import type { TransferStep } from './transfers/transfer-steps';
import type { SnapshotPart, SnapshotPartResult } from './snapshot-host';
import type {
  UpdateOperation,
  PointId,
  RetrievedPoint,
  ScoredPoint,
  CountRequest,
  FacetHit,
  FacetRequest,
  GetRequest,
  QueryRequest,
  ScrollRequest,
  DistanceMatrixRequest,
  MatrixSample,
  ShardChecksum,
  ClockTag,
  RecoveryPoint,
} from '@vectorstore/points';

/**
 * A read one peer answers over its own shards of a collection (the `ShardRead` call of the peer
 * service). Requests and answers are the domain types: the peer runs the same local services.
 */
export type ShardRead =
  | { kind: 'get'; request: GetRequest }
  | { kind: 'scroll'; request: ScrollRequest }
  | { kind: 'count'; request: CountRequest }
  | { kind: 'facet'; request: FacetRequest }
  | { kind: 'query'; request: QueryRequest }
  /** A distance matrix's sample of the peer's matching points, with their vectors. */
  | { kind: 'sample'; request: DistanceMatrixRequest }
  /** Several queries at once (a distance matrix's rows), answered in order. */
  | { kind: 'queries'; request: { requests: QueryRequest[]; timeout?: number } }
  /** The collection's state over the peer's shards (GET /collections/{c} sums them). */
  | { kind: 'stats'; request: Record<string, never> }
  /** A step of copying a shard snapshot off or onto the peer (cluster backups; see snapshot-host.ts). */
  | { kind: 'snapshot'; request: SnapshotPart };

export interface ShardReadResults {
  get: RetrievedPoint[];
  scroll: { points: RetrievedPoint[]; nextPageOffset?: PointId };
  count: number;
  /** Every value with its count over the peer's shards, best first (no limit: the coordinator cuts). */
  facet: FacetHit[];
  query: ScoredPoint[];
  sample: MatrixSample;
  queries: ScoredPoint[][];
  stats: CollectionRuntimeStats;
  snapshot: SnapshotPartResult;
}

/** The other peers of the cluster as the replicated layer uses them. Absent in standalone mode. */
export interface PointsPeers {
  /** This peer's id. */
  readonly selfId: string;
  /** This process of the peer (random per start): the origin of the clock tags it gives writes. */
  readonly incarnation: string;
  /** Throws UNAVAILABLE while this peer cannot confirm its lease: it must not acknowledge writes. */
  assertWritable(): void;
  /**
   * Applies one operation to shard `shardId` of `collection` on `peerId`; its operation number. With
   * `lead`, `peerId` is the shard's ordering leader: it passes the operation on to every replica.
   * `epoch`: the replica epoch the write was routed with; a peer past it throws {@link StaleRouting}.
   */
  update(
    peerId: string,
    collection: CollectionRecord,
    shardId: number,
    operation: UpdateOperation,
    lead?: boolean,
    epoch?: number,
    tag?: ClockTag,
  ): Promise<number>;
  /** One step of a transfer on its target peer `peerId` (see transfers/transfer-steps.ts). */
  transferApply(peerId: string, request: TransferApplyRequest): Promise<void>;
  /** The recovery point of `peerId`'s replica of shard `shardId` (what routed writes it holds). */
  recoveryPoint(peerId: string, collection: CollectionRecord, shardId: number): Promise<RecoveryPoint>;
  /** The checksum of `peerId`'s replica of shard `shardId`. */
  checksum(peerId: string, collection: CollectionRecord, shardId: number): Promise<ShardChecksum>;
  /** Runs a read on `peerId` over its replicas of shards `shardIds` of `collection`. */
  read<K extends ShardRead['kind']>(
    peerId: string,
    collection: CollectionRecord,
    shardIds: readonly number[],
    read: Extract<ShardRead, { kind: K }>,
  ): Promise<ShardReadResults[K]>;
}

export const POINTS_PEERS = Symbol('POINTS_PEERS');

/** One numbered batch of a transfer's steps, from its source to its target. */
export interface TransferApplyRequest {
  collection: { id: string; name: string };
  transfer: ShardTransferKey;
  /** The run's start time: a restarted transfer is another run. */
  startedAt: string;
  /** The run on the source (a source restarted mid-transfer runs it again as a new run). */
  runId: string;
  seq: number;
  steps: TransferStep[];
}
