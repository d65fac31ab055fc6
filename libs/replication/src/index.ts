// @vectorstore/replication: the replicated layer of points (docs/cluster.md, "Points across peers" and
// "Replication"): reads routed to the peers holding a collection's shards and their answers merged, each
// shard's part of a write applied to its replicas (write_consistency_factor, Dead marking, ordering
// leaders), and this peer's side of the peer service. It runs over @vectorstore/points' single-node
// services and binds that library's ports; points never imports it. See docs/architecture.md.

export { ReplicationModule, type ReplicationModuleOptions } from './replication.module';
// Every read of points, as the transports call it (the local services' answer on a standalone server).
export { ReadRouter } from './read-router';
// What other peers ask of this peer's shards (ShardUpdate, ShardRead of the peer service).
export { ShardEndpoint, type RoutedCollection } from './shard-endpoint';
export {
  SHARD_SNAPSHOT_HOST,
  type ShardSnapshotHost,
  type SnapshotPart,
  type SnapshotPartResult,
} from './snapshot-host';
// The other peers as the replicated layer uses them; the app implements it over the peer service.
export { POINTS_PEERS, type PointsPeers, type ShardRead, type ShardReadResults } from './points-peers';
// A write refused by a replica whose view of the replicas is newer than the coordinator's.
export { StaleRouting } from './local-replicas';
export type { TransferApplyRequest } from './points-peers';
export type { TransferStep } from './transfers/transfer-steps';
export { type ClusterTopology, ReplicaHealer } from './healing/replica-healer';
export type { HealingSettings } from './healing/healing-plan';
export { TransferDriver } from './transfers/transfer-driver';
