import { JsonObject } from '@vectorstore/common';
import { ReshardingRecord, ShardingMethod, ShardKeyRecord, ShardRecord, ShardTransferRecord } from './cluster.model';
import {
  HnswConfig,
  Memory,
  OptimizersConfig,
  QuantizationConfig,
  StrictModeConfig,
  WalConfig,
} from './index-config.model';
import { PayloadIndexParams } from './payload-index.model';
import { CollectionStatus, ShardRuntimeStats } from './status.model';

export type { CollectionStatus, ShardRuntimeStats } from './status.model';
import { SparseVectorsConfig, VectorsConfig } from './vectors.model';

/** The payload storage's placement (Qdrant 1.19); wins over `onDiskPayload`. `Pinned` is refused. */
export interface PayloadStorageParams {
  memory?: Memory;
}

export interface CollectionParams {
  shardNumber: number;
  onDiskPayload: boolean;
  /** Present only when a client set it, so older clients see an unchanged config. */
  payload?: PayloadStorageParams;
  vectors: VectorsConfig;
  replicationFactor: number;
  writeConsistencyFactor: number;
  readFanOutFactor?: number;
  shardingMethod?: ShardingMethod;
  sparseVectors?: SparseVectorsConfig;
  readFanOutDelayMs?: number;
}

/** A collection's complete configuration, defaults filled in: what Get reports. */
export interface CollectionConfig {
  params: CollectionParams;
  hnswConfig: HnswConfig;
  optimizerConfig: OptimizersConfig;
  walConfig: WalConfig;
  quantizationConfig?: QuantizationConfig;
  strictModeConfig?: StrictModeConfig;
  metadata: JsonObject;
}

/** What the catalog keeps for one collection. */
export interface CollectionRecord {
  /** Stable internal id; names the collection's data folder, so names need no escaping on disk. */
  id: string;
  name: string;
  createdAt: string;
  config: CollectionConfig;
  shards: ShardRecord[];
  shardKeys: ShardKeyRecord[];
  nextShardId: number;
  /**
   * How point ids map to shards: absent, `sha1(id) % shards` (every collection made before cluster mode,
   * and every standalone one); `Ring`, a consistent-hash ring (collections made in cluster mode), so
   * that a shard added later takes about 1/(n+1) of the points.
   */
  router?: 'Ring';
  /**
   * Cluster mode: the replication factor was raised, and shards with fewer replicas than it get new ones (the
   * leader clears it once every shard has them; dropping a replica clears it, as the operator wants fewer).
   */
  growReplicas?: true;
  /** Shard transfers in progress (cluster mode); absent when none. */
  transfers?: ShardTransferRecord[];
  /** The resharding in progress (cluster mode); absent when none. */
  resharding?: ReshardingRecord;
  /**
   * Counts changes of where the shards are and what their replicas may do (replicas, states, transfers). A
   * write to a replica carries the epoch it was routed with, and a replica applies it only under the same
   * epoch, so no coordinator routes with a view that a transfer has moved past (cluster mode).
   */
  replicaEpoch?: number;
}

export const PAYLOAD_SCHEMA_TYPES = ['Keyword', 'Integer', 'Float', 'Geo', 'Text', 'Bool', 'Datetime', 'Uuid'] as const;
export type PayloadSchemaType = (typeof PAYLOAD_SCHEMA_TYPES)[number];

export interface PayloadSchemaInfo {
  dataType: PayloadSchemaType;
  params?: PayloadIndexParams;
  points?: number;
}

/** Live state of a collection's storage, reported by the storage layer. */
export interface CollectionRuntimeStats {
  status: CollectionStatus;
  optimizerStatus: { ok: boolean; error: string };
  segmentsCount: number;
  pointsCount: number;
  indexedVectorsCount: number;
  payloadSchema: Record<string, PayloadSchemaInfo>;
  warnings: string[];
  updateQueueLength: number;
  /** Each local shard's state, by shard id. */
  shards: Record<number, ShardRuntimeStats>;
}

export interface CollectionInfo extends Omit<CollectionRuntimeStats, 'shards'> {
  config: CollectionConfig;
}
