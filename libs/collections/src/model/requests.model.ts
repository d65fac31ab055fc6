import { JsonObject } from '@vectorstore/common';
import { ReplicaState, ShardingMethod, ShardKey, TransferMethod } from './cluster.model';
import { PayloadStorageParams } from './collection.model';
import {
  HnswConfig,
  OptimizersConfig,
  QuantizationConfig,
  QuantizationConfigDiff,
  StrictModeConfig,
  WalConfig,
} from './index-config.model';
import {
  Datatype,
  Distance,
  Modifier,
  MultiVectorConfig,
  SparseVectorsConfig,
  VectorsConfig,
  VectorsConfigDiff,
} from './vectors.model';

export interface CreateCollectionRequest {
  name: string;
  vectors?: VectorsConfig;
  sparseVectors?: SparseVectorsConfig;
  hnswConfig?: HnswConfig;
  walConfig?: WalConfig;
  optimizersConfig?: OptimizersConfig;
  shardNumber?: number;
  onDiskPayload?: boolean;
  payload?: PayloadStorageParams;
  replicationFactor?: number;
  writeConsistencyFactor?: number;
  quantizationConfig?: QuantizationConfig;
  shardingMethod?: ShardingMethod;
  strictModeConfig?: StrictModeConfig;
  metadata?: JsonObject;
  /** Seconds; accepted and ignored on a single node, as Qdrant does in standalone mode. */
  timeout?: number;
}

export interface CollectionParamsDiff {
  replicationFactor?: number;
  writeConsistencyFactor?: number;
  onDiskPayload?: boolean;
  /** Merged into the stored payload params. */
  payload?: PayloadStorageParams;
  readFanOutFactor?: number;
  readFanOutDelayMs?: number;
}

export interface UpdateCollectionRequest {
  name: string;
  optimizersConfig?: OptimizersConfig;
  params?: CollectionParamsDiff;
  hnswConfig?: HnswConfig;
  vectors?: VectorsConfigDiff;
  quantizationConfig?: QuantizationConfigDiff;
  sparseVectors?: SparseVectorsConfig;
  strictModeConfig?: StrictModeConfig;
  /** Merged into the stored metadata; a null value removes the key. */
  metadata?: JsonObject;
  timeout?: number;
}

export type AliasAction =
  | { createAlias: { collectionName: string; aliasName: string } }
  | { renameAlias: { oldAliasName: string; newAliasName: string } }
  | { deleteAlias: { aliasName: string } };

export interface AliasDescription {
  aliasName: string;
  collectionName: string;
}

export interface CreateShardKeyRequest {
  shardKey: ShardKey;
  shardsNumber?: number;
  replicationFactor?: number;
  placement?: string[];
  initialState?: ReplicaState;
}

/** Cluster operations that move data between peers; a single node answers them as unimplemented. */
export type PeerTransferOperation =
  | 'moveShard'
  | 'replicateShard'
  | 'abortTransfer'
  | 'dropReplica'
  | 'restartTransfer'
  | 'replicatePoints'
  | 'startResharding'
  | 'abortResharding';

/** The shard and peers of a transfer (move, replicate, abort, restart); peer ids as exact decimal text. */
export interface ShardTransfer {
  shardId: number;
  fromPeerId: string;
  toPeerId: string;
  /** Set when the target shard differs from the source one (resharding). */
  toShardId?: number;
  /** How to copy (move, replicate: default StreamRecords; restart: required). */
  method?: TransferMethod;
}

/** `replicate_points`: copies the points of a one-shard key (matching `filter`) into a one-replica key. */
export interface ReplicatePointsRequest {
  fromShardKey: ShardKey;
  toShardKey: ShardKey;
  /** The points library's filter, passed through as it was decoded. */
  filter?: unknown;
}

/** One change asked of a collection's cluster setup (gRPC UpdateCollectionClusterSetup, REST `POST …/cluster`). */
export type ClusterSetupOperation =
  | { createShardKey: CreateShardKeyRequest }
  | { deleteShardKey: ShardKey }
  /** Removes one replica of a shard (cluster mode); the last Active replica stays. */
  | { dropReplica: { shardId: number; peerId: string } }
  | { replicatePoints: ReplicatePointsRequest }
  | { peerOperation: PeerTransferOperation; transfer?: ShardTransfer; resharding?: StartResharding };

/** `start_resharding`: add a shard (`Up`, on `peerId` or the least loaded peer) or remove the last one (`Down`). */
export interface StartResharding {
  direction: 'Up' | 'Down';
  peerId?: string;
  shardKey?: ShardKey;
}

/** Operations on the cluster's membership (REST only); a single node has no cluster to change. */
export type PeerMembershipOperation = 'recoverRaftState' | 'removePeer';

/** What CreateVectorName adds: a dense (or multi-) vector with its size and distance, or a sparse one. */
export type NewVectorConfig =
  | { dense: { size: number; distance: Distance; datatype?: Datatype; multivectorConfig?: MultiVectorConfig } }
  | { sparse: { modifier?: Modifier; datatype?: Datatype } };

/** Adds a named vector to an existing collection; existing points have no vector of that name. */
export interface CreateVectorNameRequest {
  collectionName: string;
  vectorName: string;
  config: NewVectorConfig;
  /** Seconds; accepted and ignored on a single node. */
  timeout?: number;
}

/** Removes a named vector (dense or sparse) from a collection and from every point. */
export interface DeleteVectorNameRequest {
  collectionName: string;
  vectorName: string;
  timeout?: number;
}
