import type { AccessRule } from './access.model';

// The rules, as Qdrant's `AccessRequirements` (lib/storage/src/rbac): global or for the named collection,
// with write, manage and "extras" (snapshots, payload indexes, cluster info) needs.
const G_READ: AccessRule = { scope: 'global' };
const G_MANAGE: AccessRule = { scope: 'global', manage: true };
const C_READ: AccessRule = { scope: 'collection' };
const C_EXTRAS: AccessRule = { scope: 'collection', extras: true };
const C_WRITE: AccessRule = { scope: 'collection', write: true };
const C_WRITE_EXTRAS: AccessRule = { scope: 'collection', write: true, extras: true };
/** Lists: global read, or the granted collections only (the answer is filtered). */
const LIST: AccessRule = { scope: 'list' };
/** Any verified credential (who am I). */
const ANY: AccessRule = { scope: 'any' };

/**
 * Every operation a client can ask for, on any transport, and the access it needs: the one table
 * both guards read. gRPC handlers and HTTP routes name their operation with `@Operation(...)`, so a
 * write is a write however it arrives. Names follow Qdrant's gRPC `Service/Method`; operations that
 * only REST has are named the same way. Rules match Qdrant's `check_collection_meta_operation`, its
 * point and snapshot checks, and its manage-only service routes; a collection-scoped rule is checked
 * against the collection the request names (an alias resolved to its collection first).
 */
export const OPERATION_ACCESS = {
  'Collections/List': LIST,
  'Collections/Get': C_READ,
  'Collections/CollectionExists': C_READ,
  'Collections/Create': G_MANAGE,
  'Collections/Update': G_MANAGE,
  'Collections/Delete': G_MANAGE,
  'Collections/UpdateAliases': G_MANAGE,
  'Collections/ListCollectionAliases': C_READ,
  'Collections/ListAliases': LIST,
  'Collections/CollectionClusterInfo': C_EXTRAS,
  'Collections/UpdateCollectionClusterSetup': G_MANAGE,
  'Collections/CreateShardKey': G_MANAGE,
  'Collections/DeleteShardKey': G_MANAGE,
  'Collections/ListShardKeys': C_READ,
  // REST only: the optimizer's progress.
  'Collections/Optimizations': C_EXTRAS,
  'Points/Upsert': C_WRITE,
  'Points/Delete': C_WRITE,
  'Points/UpdateVectors': C_WRITE,
  'Points/DeleteVectors': C_WRITE,
  'Points/SetPayload': C_WRITE,
  'Points/OverwritePayload': C_WRITE,
  'Points/DeletePayload': C_WRITE,
  'Points/ClearPayload': C_WRITE,
  'Points/CreateFieldIndex': C_WRITE_EXTRAS,
  'Points/DeleteFieldIndex': C_WRITE_EXTRAS,
  'Points/CreateVectorName': C_WRITE_EXTRAS,
  'Points/DeleteVectorName': C_WRITE_EXTRAS,
  'Points/UpdateBatch': C_WRITE,
  'Points/Get': C_READ,
  'Points/Scroll': C_READ,
  'Points/Count': C_READ,
  'Points/Facet': C_READ,
  'Points/Search': C_READ,
  'Points/SearchBatch': C_READ,
  'Points/SearchGroups': C_READ,
  'Points/Recommend': C_READ,
  'Points/RecommendBatch': C_READ,
  'Points/RecommendGroups': C_READ,
  'Points/Discover': C_READ,
  'Points/DiscoverBatch': C_READ,
  'Points/Query': C_READ,
  'Points/QueryBatch': C_READ,
  'Points/QueryGroups': C_READ,
  'Points/SearchMatrixPairs': C_READ,
  'Points/SearchMatrixOffsets': C_READ,
  'Snapshots/Create': C_WRITE_EXTRAS,
  'Snapshots/List': C_EXTRAS,
  'Snapshots/Delete': C_WRITE_EXTRAS,
  'Snapshots/CreateFull': G_MANAGE,
  'Snapshots/ListFull': G_READ,
  'Snapshots/DeleteFull': G_MANAGE,
  // REST only: download (read, as Qdrant), recovery and upload.
  'Snapshots/Download': C_EXTRAS,
  'Snapshots/Recover': G_MANAGE,
  'Snapshots/Upload': G_MANAGE,
  'Snapshots/DownloadFull': G_MANAGE,
  // Not in Qdrant: restoring a full snapshot on a running node.
  'Snapshots/RecoverFull': G_MANAGE,
  'Snapshots/UploadFull': G_MANAGE,
  // REST only: shard snapshots, as collection snapshots; the partial-snapshot routes are for operators.
  'Snapshots/CreateShard': C_WRITE_EXTRAS,
  'Snapshots/ListShard': C_EXTRAS,
  'Snapshots/DeleteShard': C_WRITE_EXTRAS,
  'Snapshots/DownloadShard': C_EXTRAS,
  'Snapshots/RecoverShard': G_MANAGE,
  'Snapshots/UploadShard': G_MANAGE,
  'Snapshots/PartialManifest': G_MANAGE,
  'Snapshots/PartialCreate': G_MANAGE,
  'Snapshots/PartialRecover': G_MANAGE,
  'Auth/Me': ANY,
  // The users API (/api/auth/users): administrators only.
  'Auth/ListUsers': G_MANAGE,
  'Auth/CreateUser': G_MANAGE,
  'Auth/UpdateUser': G_MANAGE,
  // REST only: the node itself.
  'Service/Metrics': G_READ,
  'Service/Telemetry': G_READ,
  'Service/Issues': G_READ,
  'Service/ClearIssues': G_MANAGE,
  'Cluster/Status': G_READ,
  'Cluster/Recover': G_MANAGE,
  'Cluster/RemovePeer': G_MANAGE,
} as const satisfies Record<string, AccessRule>;

export type OperationName = keyof typeof OPERATION_ACCESS;

export function isOperationName(value: unknown): value is OperationName {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(OPERATION_ACCESS, value);
}
