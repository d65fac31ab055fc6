import {
  AWAITING_COPY_REPLICA_STATES,
  CollectionRecord,
  READABLE_REPLICA_STATES,
  ShardRecord,
} from '@vectorstore/collections';
import { DamagedFileError, DomainError } from '@vectorstore/common';

/**
 * Whether this node's replica `mine` of a shard, whose files are damaged beyond a rebuild from its log, may be set
 * aside (not opened, refused by name) while the rest of the collection serves, rather than refusing the whole
 * collection (issue 28: in cluster mode such a replica is marked Dead and copied again). That needs a peer to copy
 * from: another replica of the shard that answers reads, or this one already waiting for a copy (Dead, Partial,
 * Recovery …). Standalone (no peer ids) a damaged shard refuses its collection, naming the file.
 */
export function canSetAside(mine: ShardRecord, known: CollectionRecord['shards']): boolean {
  if (mine.peerId === undefined) return false;
  if (AWAITING_COPY_REPLICA_STATES.has(mine.state)) return true;
  return known.some(
    (other) =>
      other.shardId === mine.shardId &&
      other.peerId !== undefined &&
      other.peerId !== mine.peerId &&
      READABLE_REPLICA_STATES.has(other.state),
  );
}

/** The refusal of a read or write routed to a replica set aside as damaged (503: another replica answers). */
export function damagedReplicaError(collection: string, shardId: number, damage: DamagedFileError): DomainError {
  return DomainError.unavailable(
    `Service unavailable: the replica of shard ${shardId} of collection \`${collection}\` on this peer is damaged and waits to be copied again (${damage.message})`,
  );
}
