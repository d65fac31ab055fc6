// Vector names being deleted in cluster mode (docs/cluster.md, "Deleting a vector name"): the name has left the
// collection's config, and stays here, with its config, until every peer that held a replica when it was deleted
// has dropped its vectors durably. Until then the name cannot be created again, and a peer that (re)opens a shard
// opens it with that vector and drops it at once, so no file keeps the old vectors.
import { CollectionRecord } from '../model/collection.model';
import { SparseVectorParams, VectorParams } from '../model/vectors.model';

/** One vector name being deleted. */
export interface VectorDrop {
  name: string;
  /** The vector's config when it was deleted (one of the two), to open old segments with it. */
  dense?: VectorParams;
  sparse?: SparseVectorParams;
  /** Peers that have not dropped its vectors durably yet; the drop ends (the record forgets it) when none is left. */
  waitingFor: string[];
}

/** The record field, kept off the shared model type while only this concern reads it. */
interface WithVectorDrops {
  droppingVectors?: VectorDrop[];
}

/** The vector names being deleted from `record` (none in standalone mode, where a delete is one step). */
export function vectorDropsOf(record: CollectionRecord): readonly VectorDrop[] {
  return (record as CollectionRecord & WithVectorDrops).droppingVectors ?? [];
}

export function setVectorDrops(record: CollectionRecord, drops: VectorDrop[]): void {
  const holder = record as CollectionRecord & WithVectorDrops;
  if (drops.length === 0) delete holder.droppingVectors;
  else holder.droppingVectors = drops;
}
