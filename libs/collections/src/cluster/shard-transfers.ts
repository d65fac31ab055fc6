// The catalog side of shard transfers (cluster mode): the rules for starting, finishing, aborting and restarting
// one, applied to a collection record inside a catalog change. Each keeps the record's replicas and transfers
// consistent in one step; the data is moved by the replication layer, which calls these at each stage.
// Messages follow Qdrant's (`src/common/collections.rs`, `shards/transfer/helpers.rs`).
import { DomainError } from '@vectorstore/common';
import {
  ReplicaState,
  sameTransfer,
  ShardRecord,
  ShardTransferKey,
  ShardTransferRecord,
  TransferMethod,
  TransferReason,
} from '../model/cluster.model';
import { CollectionRecord } from '../model/collection.model';
import { markMigrated, unitKeyOf } from './resharding';

/** What the peers look like to a transfer: `unknown` never joined (or was removed), `gone` joined but is not live. */
export type PeerStanding = 'live' | 'gone' | 'unknown';

export interface TransferStart extends ShardTransferKey {
  sync: boolean;
  method: TransferMethod;
  reason: TransferReason;
  /** The encoded filter of replicate_points ({@link ShardTransferRecord.filter}). */
  filter?: string;
}

/** The state a transfer's target replica waits in, by method (Qdrant's choice). */
export function transferTargetState(method: TransferMethod): ReplicaState {
  return method === 'StreamRecords' || method === 'ReshardingStreamRecords' ? 'Partial' : 'Recovery';
}

/** The transfers of `record` (a live array on a draft). */
export function transfersOf(record: CollectionRecord): ShardTransferRecord[] {
  record.transfers ??= [];
  return record.transfers;
}

export function findTransfer(record: CollectionRecord, key: ShardTransferKey): ShardTransferRecord | undefined {
  return (record.transfers ?? []).find((transfer) => sameTransfer(transfer, key));
}

function replicaOn(record: CollectionRecord, shardId: number, peerId: string): ShardRecord | undefined {
  return record.shards.find((replica) => replica.shardId === shardId && replica.peerId === peerId);
}

/**
 * Checks `start` against the record and the peers (in Qdrant's order) and records it: the transfer, and the
 * target replica in its waiting state (created, or an existing Dead replica set to it).
 */
export function startTransfer(
  record: CollectionRecord,
  start: TransferStart,
  standing: (peerId: string) => PeerStanding,
  now: Date,
): ShardTransferRecord {
  const { shardId, from, to } = start;
  const targetShardId = start.toShardId ?? shardId;
  if (!record.shards.some((replica) => replica.shardId === shardId))
    throw DomainError.invalidArgument(`Bad request: Shard ${shardId} of ${record.name} does not exist`);
  if (start.toShardId !== undefined && start.toShardId !== shardId && start.filter === undefined)
    throw DomainError.invalidArgument(
      `Bad request: Target shard ${start.toShardId} can only be set for ReshardingStreamRecords or filtered streaming records transfers`,
    );
  const resharding = start.reason === 'resharding';
  if ((start.method === 'ReshardingStreamRecords') !== resharding)
    throw DomainError.invalidArgument(
      resharding
        ? 'Bad request: a resharding copies points with the resharding_stream_records method'
        : 'Bad request: the resharding_stream_records method is used by resharding only (start_resharding)',
    );
  if (record.resharding && start.reason === 'user')
    throw DomainError.invalidArgument(
      `Bad request: resharding is in progress for collection ${record.name}: shards move once it ends (or abort_resharding)`,
    );
  if (!record.shards.some((replica) => replica.shardId === targetShardId))
    throw DomainError.invalidArgument(`Bad request: Destination shard ${targetShardId} does not exist`);
  for (const peerId of [to, from]) {
    const peer = standing(peerId);
    if (peer === 'unknown') throw DomainError.invalidArgument(`Bad request: Peer ${peerId} does not exist`);
    if (peer === 'gone')
      throw DomainError.invalidArgument(
        `Bad request: Peer ${peerId} is not live: a transfer needs both of its peers up`,
      );
  }
  const source = replicaOn(record, shardId, from);
  if (source?.state !== 'Active' && source?.state !== 'ReshardingScaleDown')
    throw DomainError.invalidArgument(`Bad request: Shard ${shardId} is not active on peer ${from}`);
  const conflict = (record.transfers ?? []).find(
    (other) => other.shardId === shardId && [other.from, other.to].some((peerId) => peerId === from || peerId === to),
  );
  if (conflict)
    throw DomainError.invalidArgument(
      `Bad request: Shard ${shardId} is already involved in transfer ${conflict.from} -> ${conflict.to}`,
    );
  const target = replicaOn(record, targetShardId, to);
  // replicate_points copies into another shard's replica, which keeps its own points: it may well be Active.
  const intoOtherShard = start.filter !== undefined && targetShardId !== shardId;
  if (!intoOtherShard && target && (target.state === 'Active' || !start.sync))
    throw DomainError.invalidArgument(
      `Bad request: Shard ${targetShardId} already has a replica on peer ${to} (${target.state})${
        target.state === 'Active' ? '' : '; drop it first or replicate onto it'
      }`,
    );
  const state = transferTargetState(start.method);
  const transfer: ShardTransferRecord = {
    shardId,
    ...(start.toShardId !== undefined && start.toShardId !== shardId ? { toShardId: start.toShardId } : {}),
    from,
    to,
    sync: start.sync,
    method: start.method,
    reason: start.reason,
    ...(start.filter !== undefined ? { filter: start.filter } : {}),
    startedAt: now.toISOString(),
    ...(target ? { targetWas: target.state } : {}),
  };
  // replicate_points leaves the other shard's replica as it is: it keeps serving its own points meanwhile.
  if (target && !intoOtherShard) target.state = state;
  else if (!target) {
    const shardKey = record.shards.find((replica) => replica.shardId === targetShardId)?.shardKey;
    record.shards.push({ shardId: targetShardId, state, peerId: to, ...(shardKey ? { shardKey } : {}) });
  }
  transfersOf(record).push(transfer);
  return transfer;
}

/** The Not found answer for a transfer that is not (or no longer) running. */
export function transferNotFound(record: CollectionRecord, key: ShardTransferKey): DomainError {
  return DomainError.notFound(
    `Not found: Shard transfer ${key.from} -> ${key.to} for collection ${record.name}:${key.shardId} does not exist`,
  );
}

/**
 * The transfer is done: the target replica becomes Active, a move drops the source replica, the record goes.
 * `started` (the run's start time) guards against finishing a transfer that was restarted meanwhile.
 */
export function finishTransfer(record: CollectionRecord, key: ShardTransferKey, started?: string): void {
  const transfer = findTransfer(record, key);
  if (!transfer || (started !== undefined && transfer.startedAt !== started)) throw transferNotFound(record, key);
  const target = replicaOn(record, transfer.toShardId ?? transfer.shardId, transfer.to);
  if (!target)
    throw DomainError.failedPrecondition(
      `Failed precondition: the target replica of shard ${transfer.toShardId ?? transfer.shardId} on peer ${transfer.to} is gone`,
    );
  // A resharding's copy leaves its target as it is (the resharding's next step decides); it counts the copy made.
  if (transfer.reason === 'resharding') markMigrated(record, unitKeyOf(transfer));
  else target.state = 'Active';
  if (!transfer.sync) {
    const source = replicaOn(record, transfer.shardId, transfer.from);
    if (source) record.shards.splice(record.shards.indexOf(source), 1);
  }
  removeTransfer(record, transfer);
}

/**
 * Ends the transfer without finishing it. The target replica goes back to what it was: a replica the transfer
 * created is removed when the operator cancels it or it was a move, else (a failed replication or recovery) it
 * is left Dead so that recovery tries again; a replica that existed before is Dead (its copy was started over),
 * except the target of replicate_points, which keeps its state (its own points were never touched).
 */
export function abortTransfer(record: CollectionRecord, key: ShardTransferKey, byOperator: boolean): void {
  const transfer = findTransfer(record, key);
  if (!transfer) throw transferNotFound(record, key);
  const target = replicaOn(record, transfer.toShardId ?? transfer.shardId, transfer.to);
  if (target) {
    const created = transfer.targetWas === undefined;
    // replicate_points never emptied the other shard's replica: it goes back to what it was.
    if (transfer.filter !== undefined && transfer.targetWas !== undefined) target.state = transfer.targetWas;
    else if (created && (byOperator || !transfer.sync)) record.shards.splice(record.shards.indexOf(target), 1);
    else target.state = 'Dead';
  }
  removeTransfer(record, transfer);
}

/** Runs the transfer again from the start, with `method`; the target waits in that method's state. */
export function restartTransfer(
  record: CollectionRecord,
  key: ShardTransferKey,
  method: TransferMethod,
  now: Date,
): void {
  const transfer = findTransfer(record, key);
  if (!transfer) throw transferNotFound(record, key);
  if ((method === 'ReshardingStreamRecords') !== (transfer.reason === 'resharding'))
    throw DomainError.invalidArgument(
      transfer.reason === 'resharding'
        ? 'Bad request: a resharding copies points with the resharding_stream_records method'
        : 'Bad request: the resharding_stream_records method is used by resharding only (start_resharding)',
    );
  transfer.method = method;
  transfer.startedAt = now.toISOString();
  const target = replicaOn(record, transfer.toShardId ?? transfer.shardId, transfer.to);
  // A copy into another shard (replicate_points, resharding) leaves that shard's replica as it is.
  const intoOtherShard = transfer.filter !== undefined && (transfer.toShardId ?? transfer.shardId) !== transfer.shardId;
  if (target && !intoOtherShard) target.state = transferTargetState(method);
}

/**
 * Ends (as failed) every transfer reading from or writing to the replica of shard `shardId` on `peerId`: called
 * when that replica is dropped or marked Dead, so that no transfer finishes from a source that missed writes.
 */
export function abortTransfersOf(record: CollectionRecord, shardId: number, peerId: string): void {
  for (const transfer of [...(record.transfers ?? [])]) {
    const source = transfer.shardId === shardId && transfer.from === peerId;
    const target = (transfer.toShardId ?? transfer.shardId) === shardId && transfer.to === peerId;
    if (source || target) abortTransfer(record, transfer, false);
  }
}

function removeTransfer(record: CollectionRecord, transfer: ShardTransferRecord): void {
  const transfers = transfersOf(record);
  transfers.splice(transfers.indexOf(transfer), 1);
  if (transfers.length === 0) delete record.transfers;
}
