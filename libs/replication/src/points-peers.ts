import type { CollectionRecord, CollectionRuntimeStats } from '@vectorstore/collections';
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
  | { kind: 'stats'; request: Record<string, never> };

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
}

/** The other peers of the cluster as the replicated layer uses them. Absent in standalone mode. */
export interface PointsPeers {
  /** This peer's id. */
  readonly selfId: string;
  /** Throws UNAVAILABLE while this peer cannot confirm its lease: it must not acknowledge writes. */
  assertWritable(): void;
  /**
   * Applies one operation to shard `shardId` of `collection` on `peerId`; its operation number. With
   * `lead`, `peerId` is the shard's ordering leader: it passes the operation on to every replica.
   */
  update(
    peerId: string,
    collection: CollectionRecord,
    shardId: number,
    operation: UpdateOperation,
    lead?: boolean,
  ): Promise<number>;
  /** Runs a read on `peerId` over its replicas of shards `shardIds` of `collection`. */
  read<K extends ShardRead['kind']>(
    peerId: string,
    collection: CollectionRecord,
    shardIds: readonly number[],
    read: Extract<ShardRead, { kind: K }>,
  ): Promise<ShardReadResults[K]>;
}

export const POINTS_PEERS = Symbol('POINTS_PEERS');
