import {
  ClusterSetupOperation,
  ClusterStatusView,
  CollectionClusterInfo,
  CreateShardKeyRequest,
  PeerTransferOperation,
  REPLICA_STATES,
  ReplicaState,
  ReplicatePointsRequest,
  ShardKey,
  ShardTransfer,
  StartResharding,
  TransferMethod,
} from '@vectorstore/collections';
import { filterFromRest } from '../../points/rest/filter.rest-mapper';
import { bodyFormatError } from '../../core/rest/rest-format.error';
import {
  array,
  Decoder,
  decodeBody,
  describeJson,
  enumOf,
  object,
  objectValue,
  u32,
  u64Text,
} from '../../core/rest/rest-decoders';
import { defined } from '../../core/scalars';

const REPLICA_STATE_NAMES: Record<string, ReplicaState> = Object.fromEntries(
  REPLICA_STATES.map((state) => [state, state]),
);

/** A keyword (string) or a u64. */
export const shardKeyDecoder: Decoder<ShardKey> = (value, path) => {
  if (typeof value === 'string') return { keyword: value };
  if (typeof value === 'bigint') return { number: u64Text(value, path) };
  throw bodyFormatError(path, `invalid type: ${describeJson(value)}, expected a string or an unsigned integer`);
};

export const createShardKeyDecoder: Decoder<CreateShardKeyRequest> = object(
  {
    shard_key: shardKeyDecoder,
    shards_number: u32,
    replication_factor: u32,
    placement: array(u64Text),
    initial_state: enumOf(REPLICA_STATE_NAMES),
  },
  ['shard_key'],
  { shard_number: 'shards_number' },
);

const dropShardKeyDecoder = object<{ shardKey: ShardKey }>({ shard_key: shardKeyDecoder }, ['shard_key']);

export function createShardKeyFromRest(body: unknown): CreateShardKeyRequest {
  return decodeBody(body, createShardKeyDecoder);
}

export function dropShardKeyFromRest(body: unknown): ShardKey {
  return decodeBody(body, dropShardKeyDecoder).shardKey;
}

/** `method` in Qdrant's REST spelling. */
const transferMethod = enumOf<TransferMethod>({
  stream_records: 'StreamRecords',
  snapshot: 'Snapshot',
  wal_delta: 'WalDelta',
  resharding_stream_records: 'ReshardingStreamRecords',
});
const TRANSFER_FIELDS = {
  shard_id: u32,
  from_peer_id: u64Text,
  to_peer_id: u64Text,
  to_shard_id: u32,
  method: transferMethod,
};
const transfer = object<ShardTransfer>(TRANSFER_FIELDS, ['shard_id', 'from_peer_id', 'to_peer_id']);
/** Restarting needs the method to run it with, as Qdrant's `RestartTransfer`. */
const restartTransfer = object<ShardTransfer>(TRANSFER_FIELDS, ['shard_id', 'from_peer_id', 'to_peer_id', 'method']);
const replicatePoints = object<ReplicatePointsRequest>(
  { from_shard_key: shardKeyDecoder, to_shard_key: shardKeyDecoder, filter: filterFromRest },
  ['from_shard_key', 'to_shard_key'],
);
/** Peer operations; a transfer's shard and peers go to the domain, which checks them. */
const PEER_OPERATIONS: Record<string, [PeerTransferOperation, Decoder<unknown>]> = {
  move_shard: ['moveShard', transfer],
  replicate_shard: ['replicateShard', transfer],
  abort_transfer: ['abortTransfer', transfer],
  restart_transfer: ['restartTransfer', restartTransfer],
  start_resharding: [
    'startResharding',
    object<StartResharding>(
      {
        direction: enumOf<StartResharding['direction']>({ up: 'Up', down: 'Down' }),
        peer_id: u64Text,
        shard_key: shardKeyDecoder,
      },
      ['direction'],
    ),
  ],
  abort_resharding: ['abortResharding', objectValue],
};
const dropReplicaDecoder = object<{ shardId: number; peerId: string }>({ shard_id: u32, peer_id: u64Text }, [
  'shard_id',
  'peer_id',
]);
const TRANSFERS = new Set<string>(['move_shard', 'replicate_shard', 'abort_transfer', 'restart_transfer']);

/** `POST /collections/{c}/cluster`: exactly one operation. */
export function clusterOperationFromRest(body: unknown): ClusterSetupOperation {
  const input = decodeBody(body, objectValue);
  if (input.create_sharding_key !== undefined) {
    return { createShardKey: createShardKeyDecoder(input.create_sharding_key, 'create_sharding_key') };
  }
  if (input.drop_sharding_key !== undefined) {
    return { deleteShardKey: dropShardKeyDecoder(input.drop_sharding_key, 'drop_sharding_key').shardKey };
  }
  if (input.replicate_points !== undefined) {
    return { replicatePoints: replicatePoints(input.replicate_points, 'replicate_points') };
  }
  if (input.drop_replica !== undefined) {
    const replica = dropReplicaDecoder(input.drop_replica, 'drop_replica');
    return { dropReplica: { shardId: replica.shardId, peerId: replica.peerId } };
  }
  for (const [name, [peerOperation, decode]] of Object.entries(PEER_OPERATIONS)) {
    if (input[name] !== undefined) {
      const decoded = decode(input[name], name);
      if (TRANSFERS.has(name)) return { peerOperation, transfer: decoded as ShardTransfer };
      return peerOperation === 'startResharding'
        ? { peerOperation, resharding: decoded as StartResharding }
        : { peerOperation };
    }
  }
  throw bodyFormatError('', 'data did not match any variant of untagged enum ClusterOperations');
}

export function shardKeyToRest(key: ShardKey): string | bigint {
  return 'keyword' in key ? key.keyword : BigInt(key.number);
}

/**
 * `GET /cluster` as Qdrant shapes it: `{status: "disabled"}` standalone; in cluster mode the peers and
 * the leader. Our consensus is etcd's, so `raft_info` reports the leader we follow, not a Raft log.
 */
export function clusterStatusToRest(status: ClusterStatusView | undefined): unknown {
  if (!status) return { status: 'disabled' };
  const isLeader = status.leaderId === status.peerId;
  return {
    status: 'enabled',
    peer_id: BigInt(status.peerId),
    peers: Object.fromEntries(status.peers.map((peer) => [peer.peerId, { uri: `${peer.uri}/` }])),
    raft_info: defined({
      term: 0,
      commit: 0,
      pending_operations: 0,
      leader: status.leaderId === undefined ? undefined : BigInt(status.leaderId),
      role: isLeader ? 'Leader' : 'Follower',
      is_voter: true,
    }),
    consensus_thread_status: status.fenced
      ? { consensus_thread_status: 'stopped_with_err', err: 'lease expired: cannot reach the cluster metadata store' }
      : { consensus_thread_status: 'working', last_update: new Date().toISOString() },
    message_send_failures: Object.fromEntries(
      Object.entries(status.sendFailures).map(([uri, failure]) => [
        uri,
        {
          count: failure.count,
          latest_error: failure.latestError,
          latest_error_timestamp: failure.latestErrorTimestamp,
        },
      ]),
    ),
  };
}

const TRANSFER_METHOD_NAMES: Record<TransferMethod, string> = {
  StreamRecords: 'stream_records',
  Snapshot: 'snapshot',
  WalDelta: 'wal_delta',
  ReshardingStreamRecords: 'resharding_stream_records',
};

/** `GET /collections/{c}/cluster`; `checksums` (by shard id) when asked for with `?checksum=true`. */
export function clusterInfoToRest(
  info: CollectionClusterInfo,
  checksums?: ReadonlyMap<number, { points: number; digest: string }>,
): unknown {
  return {
    peer_id: BigInt(info.peerId),
    shard_count: info.shardCount,
    local_shards: info.localShards.map((shard) =>
      defined({
        shard_id: shard.shardId,
        shard_key: shard.shardKey && shardKeyToRest(shard.shardKey),
        points_count: shard.pointsCount,
        state: shard.state,
        checksum: checksums?.get(shard.shardId),
      }),
    ),
    remote_shards: info.remoteShards.map((shard) =>
      defined({
        shard_id: shard.shardId,
        shard_key: shard.shardKey && shardKeyToRest(shard.shardKey),
        peer_id: BigInt(shard.peerId),
        state: shard.state,
      }),
    ),
    shard_transfers: info.shardTransfers.map((transfer) =>
      defined({
        shard_id: transfer.shardId,
        to_shard_id: transfer.toShardId,
        from: BigInt(transfer.from),
        to: BigInt(transfer.to),
        sync: transfer.sync,
        method: TRANSFER_METHOD_NAMES[transfer.method],
        comment: transfer.comment,
      }),
    ),
    // Qdrant leaves the list out when nothing reshards.
    resharding_operations:
      info.reshardingOperations.length === 0
        ? undefined
        : info.reshardingOperations.map((operation) =>
            defined({
              direction: operation.direction === 'Up' ? 'up' : 'down',
              shard_id: operation.shardId,
              peer_id: BigInt(operation.peerId),
              shard_key: operation.shardKey && shardKeyToRest(operation.shardKey),
            }),
          ),
  };
}
