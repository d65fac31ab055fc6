import type { RequiredAccess } from './access.model';

/**
 * Every operation a client can ask for, on any transport, and the access it needs: the one table
 * both guards read. gRPC handlers and HTTP routes name their operation with `@Operation(...)`, so a
 * write is a write however it arrives. Names follow Qdrant's gRPC `Service/Method`; operations that
 * only REST has are named the same way. Writes match Qdrant's `check_collection_meta_operation`,
 * its point and snapshot write checks, and its manage-only service routes.
 */
export const OPERATION_ACCESS = {
  'Collections/List': 'read',
  'Collections/Get': 'read',
  'Collections/CollectionExists': 'read',
  'Collections/Create': 'manage',
  'Collections/Update': 'manage',
  'Collections/Delete': 'manage',
  'Collections/UpdateAliases': 'manage',
  'Collections/ListCollectionAliases': 'read',
  'Collections/ListAliases': 'read',
  'Collections/CollectionClusterInfo': 'read',
  'Collections/UpdateCollectionClusterSetup': 'manage',
  'Collections/CreateShardKey': 'manage',
  'Collections/DeleteShardKey': 'manage',
  'Collections/ListShardKeys': 'read',
  // REST only: the optimizer's progress.
  'Collections/Optimizations': 'read',
  'Points/Upsert': 'manage',
  'Points/Delete': 'manage',
  'Points/UpdateVectors': 'manage',
  'Points/DeleteVectors': 'manage',
  'Points/SetPayload': 'manage',
  'Points/OverwritePayload': 'manage',
  'Points/DeletePayload': 'manage',
  'Points/ClearPayload': 'manage',
  'Points/CreateFieldIndex': 'manage',
  'Points/DeleteFieldIndex': 'manage',
  'Points/CreateVectorName': 'manage',
  'Points/DeleteVectorName': 'manage',
  'Points/UpdateBatch': 'manage',
  'Points/Get': 'read',
  'Points/Scroll': 'read',
  'Points/Count': 'read',
  'Points/Facet': 'read',
  'Points/Search': 'read',
  'Points/SearchBatch': 'read',
  'Points/SearchGroups': 'read',
  'Points/Recommend': 'read',
  'Points/RecommendBatch': 'read',
  'Points/RecommendGroups': 'read',
  'Points/Discover': 'read',
  'Points/DiscoverBatch': 'read',
  'Points/Query': 'read',
  'Points/QueryBatch': 'read',
  'Points/QueryGroups': 'read',
  'Points/SearchMatrixPairs': 'read',
  'Points/SearchMatrixOffsets': 'read',
  'Snapshots/Create': 'manage',
  'Snapshots/List': 'read',
  'Snapshots/Delete': 'manage',
  'Snapshots/CreateFull': 'manage',
  'Snapshots/ListFull': 'read',
  'Snapshots/DeleteFull': 'manage',
  // REST only: download (read, as Qdrant), recovery and upload.
  'Snapshots/Download': 'read',
  'Snapshots/Recover': 'manage',
  'Snapshots/Upload': 'manage',
  'Snapshots/DownloadFull': 'manage',
  // Not in Qdrant: restoring a full snapshot on a running node.
  'Snapshots/RecoverFull': 'manage',
  'Snapshots/UploadFull': 'manage',
  // REST only: shard snapshots, as collection snapshots; the partial-snapshot routes are for operators.
  'Snapshots/CreateShard': 'manage',
  'Snapshots/ListShard': 'read',
  'Snapshots/DeleteShard': 'manage',
  'Snapshots/DownloadShard': 'read',
  'Snapshots/RecoverShard': 'manage',
  'Snapshots/UploadShard': 'manage',
  'Snapshots/PartialManifest': 'manage',
  'Snapshots/PartialCreate': 'manage',
  'Snapshots/PartialRecover': 'manage',
  'Auth/Me': 'read',
  // The users API (/api/auth/users): administrators only.
  'Auth/ListUsers': 'manage',
  'Auth/CreateUser': 'manage',
  'Auth/UpdateUser': 'manage',
  // REST only: the node itself.
  'Service/Metrics': 'read',
  'Service/Telemetry': 'read',
  'Service/Issues': 'read',
  'Service/ClearIssues': 'manage',
  'Cluster/Status': 'read',
  'Cluster/Recover': 'manage',
  'Cluster/RemovePeer': 'manage',
} as const satisfies Record<string, RequiredAccess>;

export type OperationName = keyof typeof OPERATION_ACCESS;

export function isOperationName(value: unknown): value is OperationName {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(OPERATION_ACCESS, value);
}
