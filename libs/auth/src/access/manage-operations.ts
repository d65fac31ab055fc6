/**
 * gRPC operations that change state, keyed `Service/Method` (package-independent, so the same
 * entry covers `/vectorstore.X/Y` and `/qdrant.X/Y`). The guard requires manage access for these
 * even when a handler forgets `@RequireAccess('manage')`: a missing annotation must fail closed.
 * Matches Qdrant's `check_collection_meta_operation` and its point/snapshot write checks.
 */
export const MANAGE_OPERATIONS: ReadonlySet<string> = new Set([
  'Collections/Create',
  'Collections/Update',
  'Collections/Delete',
  'Collections/UpdateAliases',
  'Collections/UpdateCollectionClusterSetup',
  'Collections/CreateShardKey',
  'Collections/DeleteShardKey',
  'Points/Upsert',
  'Points/Delete',
  'Points/UpdateVectors',
  'Points/DeleteVectors',
  'Points/SetPayload',
  'Points/OverwritePayload',
  'Points/DeletePayload',
  'Points/ClearPayload',
  'Points/CreateFieldIndex',
  'Points/DeleteFieldIndex',
  'Points/CreateVectorName',
  'Points/DeleteVectorName',
  'Points/UpdateBatch',
  'Snapshots/Create',
  'Snapshots/Delete',
  'Snapshots/CreateFull',
  'Snapshots/DeleteFull',
]);

/** `Service/Method` from a gRPC path such as `/qdrant.Collections/Create`; undefined if malformed. */
export function operationOfGrpcPath(grpcPath: string): string | undefined {
  const match = /^\/(?:[\w.]+\.)?(\w+)\/(\w+)$/.exec(grpcPath);
  return match ? `${match[1]}/${match[2]}` : undefined;
}
