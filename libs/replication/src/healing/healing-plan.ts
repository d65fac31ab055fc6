// What the leader does about the cluster's replicas, decided from the catalog and who is live (design §2.4, §4):
// a pure function of what it is given, so that each rule is tested without peers.
import {
  CatalogState,
  CollectionRecord,
  comparePeerIds,
  ShardRecord,
  ShardTransferKey,
  shardKeyEquals,
  TransferStart,
} from '@vectorstore/collections';

export interface HealingView {
  /** Peers live now. */
  live: ReadonlySet<string>;
  /** Since when (ms) a peer that is not live has been gone. */
  goneSince(peerId: string): number;
  now: number;
}

export interface HealingSettings {
  /** A peer gone this long has its replicas marked Dead and its transfers failed. */
  deadGraceMs: number;
  /** Automatic transfers in and out per peer and collection at once. */
  transferLimit: number;
  /** A peer gone this long no longer counts toward a shard's replication factor (absent: it always counts). */
  autoReplicateAfterMs?: number;
}

export interface HealingPlan {
  /** Replicas on peers gone past the grace, to mark Dead (never a shard's last Active one: the catalog refuses). */
  markDead: Array<{ collectionId: string; shardId: number; peerId: string }>;
  /** Transfers whose source or target is gone past the grace. */
  fail: Array<{ collectionId: string; transfer: ShardTransferKey }>;
  /** Transfers to start: recovery of Dead replicas on live peers, then replicas a shard lacks. */
  start: Array<{ collectionId: string; transfers: TransferStart[] }>;
  /** Collections whose raised replication factor is met on every shard: the request is done. */
  grown: string[];
}

/** The leader's decisions for the catalog `state` as things stand in `view`. */
export function planHealing(state: Readonly<CatalogState>, view: HealingView, settings: HealingSettings): HealingPlan {
  const plan: HealingPlan = { markDead: [], fail: [], start: [], grown: [] };
  const gonePast = (peerId: string, ms: number) => !view.live.has(peerId) && view.now - view.goneSince(peerId) >= ms;
  const load = replicaLoad(state);
  for (const record of state.collections.values()) {
    for (const replica of record.shards) {
      const peerId = replica.peerId;
      if (peerId === undefined || replica.state === 'Dead' || TRANSFER_TARGET.has(replica.state)) continue;
      // Never the last Active replica: with no other one on a live peer, the shard waits for its peer instead.
      if (gonePast(peerId, settings.deadGraceMs) && activeSource(record, replica.shardId, view) !== undefined)
        plan.markDead.push({ collectionId: record.id, shardId: replica.shardId, peerId });
    }
    for (const transfer of record.transfers ?? []) {
      if (gonePast(transfer.from, settings.deadGraceMs) || gonePast(transfer.to, settings.deadGraceMs))
        plan.fail.push({ collectionId: record.id, transfer });
    }
    // Candidates are placed on a copy of the load; only the starts kept within the limit count afterwards.
    const topUp = topUps(record, view, settings, new Map(load));
    if (record.growReplicas && topUp.grown && !(record.transfers ?? []).some((t) => t.reason === 'replication'))
      plan.grown.push(record.id);
    const starts = [...recoveries(record, view), ...topUp.starts];
    const limited = withinLimit(record, starts, settings.transferLimit);
    for (const start of limited) if (start.reason === 'replication') load.set(start.to, (load.get(start.to) ?? 0) + 1);
    if (limited.length > 0) plan.start.push({ collectionId: record.id, transfers: limited });
  }
  return plan;
}

const TRANSFER_TARGET: ReadonlySet<string> = new Set(['Partial', 'Recovery', 'PartialSnapshot']);

/** Dead replicas on live peers, each from an Active replica on a live peer (lowest peer id: a stable choice). */
function recoveries(record: CollectionRecord, view: HealingView): TransferStart[] {
  const starts: TransferStart[] = [];
  for (const replica of record.shards) {
    if (replica.state !== 'Dead' || replica.peerId === undefined || !view.live.has(replica.peerId)) continue;
    if (inTransfer(record, replica.shardId, replica.peerId)) continue;
    const source = activeSource(record, replica.shardId, view);
    if (!source) continue;
    starts.push({
      shardId: replica.shardId,
      from: source,
      to: replica.peerId,
      sync: true,
      // The writes it missed, from the source's log; the run falls back to stream_records when the log no longer
      // reaches back that far.
      method: 'WalDelta',
      reason: 'recovery',
    });
  }
  return starts;
}

/**
 * Replicas a shard lacks, in two cases: the replication factor was raised (`growReplicas`), then every shard grows
 * to it; or a replica's peer has been gone longer than `autoReplicateAfterMs`, then that replica is replaced. A
 * replica counts while its peer is live or gone for less than that. A shard with fewer replicas for another reason
 * (the operator dropped one) is left alone. New replicas go to live peers without one, least loaded first.
 */
function topUps(
  record: CollectionRecord,
  view: HealingView,
  settings: HealingSettings,
  load: Map<string, number>,
): { starts: TransferStart[]; grown: boolean } {
  const starts: TransferStart[] = [];
  let grown = true;
  const longGone = (replica: ShardRecord) =>
    replica.peerId !== undefined &&
    settings.autoReplicateAfterMs !== undefined &&
    !view.live.has(replica.peerId) &&
    view.now - view.goneSince(replica.peerId) >= settings.autoReplicateAfterMs;
  for (const shardId of new Set(record.shards.map((replica) => replica.shardId))) {
    const replicas = record.shards.filter((replica) => replica.shardId === shardId);
    if (replicas.some((replica) => replica.peerId === undefined)) continue; // a standalone record: nothing to place
    const factor = replicationFactorOf(record, replicas[0]);
    const counted = replicas.filter((replica) => !longGone(replica)).length;
    const missing = Math.min(
      factor - counted,
      record.growReplicas ? Number.POSITIVE_INFINITY : replicas.filter(longGone).length,
    );
    if (counted < factor && record.growReplicas) grown = false;
    if (missing <= 0) continue;
    const source = activeSource(record, shardId, view);
    if (!source) continue;
    const holders = new Set(replicas.map((replica) => replica.peerId));
    const candidates = [...view.live]
      .filter((peerId) => !holders.has(peerId))
      .sort((a, b) => (load.get(a) ?? 0) - (load.get(b) ?? 0) || comparePeerIds(a, b))
      .slice(0, missing);
    for (const to of candidates) {
      load.set(to, (load.get(to) ?? 0) + 1);
      starts.push({ shardId, from: source, to, sync: true, method: 'StreamRecords', reason: 'replication' });
    }
  }
  return { starts, grown };
}

/** Keeps at most `limit` automatic transfers in and out of each peer of the collection, counting running ones. */
function withinLimit(record: CollectionRecord, starts: TransferStart[], limit: number): TransferStart[] {
  const incoming = new Map<string, number>();
  const outgoing = new Map<string, number>();
  const add = (map: Map<string, number>, peerId: string) => map.set(peerId, (map.get(peerId) ?? 0) + 1);
  for (const transfer of record.transfers ?? []) {
    if (transfer.reason === 'user') continue;
    add(incoming, transfer.to);
    add(outgoing, transfer.from);
  }
  const kept: TransferStart[] = [];
  const busyShards = new Set((record.transfers ?? []).map((transfer) => transfer.shardId));
  for (const start of starts) {
    if (busyShards.has(start.shardId)) continue;
    if ((incoming.get(start.to) ?? 0) >= limit || (outgoing.get(start.from) ?? 0) >= limit) continue;
    add(incoming, start.to);
    add(outgoing, start.from);
    busyShards.add(start.shardId);
    kept.push(start);
  }
  return kept;
}

function inTransfer(record: CollectionRecord, shardId: number, peerId: string): boolean {
  return (record.transfers ?? []).some(
    (transfer) =>
      (transfer.shardId === shardId && transfer.from === peerId) ||
      ((transfer.toShardId ?? transfer.shardId) === shardId && transfer.to === peerId),
  );
}

function activeSource(record: CollectionRecord, shardId: number, view: HealingView): string | undefined {
  return record.shards
    .filter(
      (replica) =>
        replica.shardId === shardId &&
        replica.state === 'Active' &&
        replica.peerId !== undefined &&
        view.live.has(replica.peerId),
    )
    .map((replica) => replica.peerId as string)
    .sort(comparePeerIds)[0];
}

function replicationFactorOf(record: CollectionRecord, replica: ShardRecord): number {
  const key = replica.shardKey;
  const ofKey = key && record.shardKeys.find((entry) => shardKeyEquals(entry.key, key))?.replicationFactor;
  return ofKey ?? record.config.params.replicationFactor ?? 1;
}

/** Replicas per peer over the whole catalog: new replicas go to the least loaded live peer. */
function replicaLoad(state: Readonly<CatalogState>): Map<string, number> {
  const load = new Map<string, number>();
  for (const record of state.collections.values())
    for (const replica of record.shards)
      if (replica.peerId !== undefined) load.set(replica.peerId, (load.get(replica.peerId) ?? 0) + 1);
  return load;
}
