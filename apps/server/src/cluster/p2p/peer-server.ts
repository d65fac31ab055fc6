// The internal peer service on VECTORSTORE_P2P_PORT: a plain grpc-js server apart from the public one,
// so nothing of the public API is reachable here and no client credential is accepted: every call must
// carry a peer signature made with the cluster secret (libs/cluster peer-auth).
import * as grpc from '@grpc/grpc-js';
import {
  ClusterNode,
  PEER_ID_HEADER,
  PEER_INCARNATION_HEADER,
  PeerIdentity,
  verifyPeerCredential,
} from '@vectorstore/cluster';
import { isDomainError, toGrpcCode } from '@vectorstore/common';
import type { ClusterConfig } from '@vectorstore/config';
import { decodeOperation } from '@vectorstore/points';
import { ShardEndpoint, StaleRouting, type ShardRead, type TransferStep } from '@vectorstore/replication';
import { deserialize, serialize } from 'node:v8';
import type { HelloReply } from '../../grpc/generated/vectorstore/internal/HelloReply';
import type { HelloRequest__Output } from '../../grpc/generated/vectorstore/internal/HelloRequest';
import type { PeerIdentity__Output } from '../../grpc/generated/vectorstore/internal/PeerIdentity';
import type { RoutedCollection__Output } from '../../grpc/generated/vectorstore/internal/RoutedCollection';
import type { ShardReadReply } from '../../grpc/generated/vectorstore/internal/ShardReadReply';
import type { ShardReadRequest__Output } from '../../grpc/generated/vectorstore/internal/ShardReadRequest';
import type { ShardUpdateReply } from '../../grpc/generated/vectorstore/internal/ShardUpdateReply';
import type { ShardUpdateRequest__Output } from '../../grpc/generated/vectorstore/internal/ShardUpdateRequest';
import type { TransferApplyReply } from '../../grpc/generated/vectorstore/internal/TransferApplyReply';
import type { TransferApplyRequest__Output } from '../../grpc/generated/vectorstore/internal/TransferApplyRequest';
import type { ShardChecksumReply } from '../../grpc/generated/vectorstore/internal/ShardChecksumReply';
import type { RecoveryPointReply } from '../../grpc/generated/vectorstore/internal/RecoveryPointReply';
import type { ShardChecksumRequest__Output } from '../../grpc/generated/vectorstore/internal/ShardChecksumRequest';
import { loadPeerProto } from './peer-proto';

/**
 * Carries a domain failure across the peer service whole (kind, message, validation issues), as UTF-8
 * JSON in a binary trailer: messages may quote payload keys or names in any script.
 */
export const DOMAIN_ERROR_TRAILER = 'x-vs-domain-error-bin';

/**
 * Messages between peers carry whole shard parts (a large upsert, a page of vectors): far beyond
 * gRPC's 4 MB default, so both ends allow up to 512 MB.
 */
export const PEER_CHANNEL_OPTIONS = {
  'grpc.max_receive_message_length': 512 * 1024 * 1024,
  'grpc.max_send_message_length': 512 * 1024 * 1024,
};

export async function startPeerServer(
  config: ClusterConfig,
  node: ClusterNode,
  shards: ShardEndpoint,
): Promise<grpc.Server> {
  const server = new grpc.Server(PEER_CHANNEL_OPTIONS);
  const proto = loadPeerProto();
  server.addService(proto.vectorstore.internal.Peer.service, {
    Hello: unary<HelloRequest__Output, HelloReply>(config.secret, (request) => {
      const reply = node.hello(identityFromProto(request.from));
      return { peer: reply.peer, catalogRevision: reply.catalogRevision };
    }),
    ShardUpdate: unary<ShardUpdateRequest__Output, ShardUpdateReply>(config.secret, async (request) => {
      try {
        const operationId = await shards.update(
          routedCollection(request.collection),
          request.shardId ?? 0,
          decodeOperation(request.operation ?? Buffer.alloc(0)),
          request.lead ?? false,
          request.epoch === undefined || request.epoch === null ? undefined : Number(request.epoch),
          request.clock
            ? {
                peer: request.clock.peer ?? '',
                incarnation: request.clock.incarnation ?? '',
                seq: Number(request.clock.seq ?? 0),
              }
            : undefined,
        );
        return { operationId };
      } catch (error) {
        // Not a failure: the coordinator routes again with this peer's newer view.
        if (error instanceof StaleRouting) return { operationId: 0, staleEpoch: error.epoch };
        throw error;
      }
    }),
    TransferApply: unary<TransferApplyRequest__Output, TransferApplyReply>(config.secret, async (request) => {
      await shards.transferApply({
        collection: routedCollection(request.collection),
        transfer: {
          shardId: request.shardId ?? 0,
          ...(request.toShardId !== undefined && request.toShardId !== request.shardId
            ? { toShardId: request.toShardId }
            : {}),
          from: request.fromPeerId ?? '',
          to: request.toPeerId ?? '',
        },
        startedAt: request.startedAt ?? '',
        runId: request.runId ?? '',
        seq: Number(request.seq ?? 0),
        steps: deserialize(request.steps ?? Buffer.alloc(0)) as TransferStep[],
      });
      return {};
    }),
    RecoveryPoint: unary<ShardChecksumRequest__Output, RecoveryPointReply>(config.secret, async (request) => {
      const point = await shards.recoveryPoint(routedCollection(request.collection), request.shardId ?? 0);
      return { point: serialize(point) };
    }),
    ShardChecksum: unary<ShardChecksumRequest__Output, ShardChecksumReply>(config.secret, async (request) => {
      const checksum = await shards.checksum(routedCollection(request.collection), request.shardId ?? 0);
      return { points: checksum.points, digest: checksum.digest };
    }),
    ShardRead: unary<ShardReadRequest__Output, ShardReadReply>(config.secret, async (request) => {
      const { shardIds, read } = deserialize(request.read ?? Buffer.alloc(0)) as {
        shardIds: number[];
        read: ShardRead;
      };
      const result = await shards.read(routedCollection(request.collection), shardIds, read);
      return { result: serialize(result) };
    }),
  });
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`${config.p2p.host}:${config.p2p.port}`, grpc.ServerCredentials.createInsecure(), (error) =>
      error ? reject(error) : resolve(),
    ),
  );
  return server;
}

export function stopPeerServer(server: grpc.Server): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      resolve();
    }, 5000);
    server.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** A unary handler that first checks the caller's peer signature, then maps domain errors to statuses. */
function unary<Req, Res>(secret: string, handle: (request: Req) => Res | Promise<Res>): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const header = (name: string) => {
      const value = call.metadata.get(name)[0];
      return typeof value === 'string' ? value : undefined;
    };
    const signed = verifyPeerCredential(secret, {
      peerId: header(PEER_ID_HEADER),
      incarnation: header(PEER_INCARNATION_HEADER),
      authorization: header('authorization'),
    });
    if (!signed) {
      callback({ code: grpc.status.UNAUTHENTICATED, details: 'peer service: only peers of this cluster may call it' });
      return;
    }
    Promise.resolve()
      .then(() => handle(call.request))
      .then(
        (reply) => callback(null, reply),
        (error: unknown) => callback(failureStatus(error)),
      );
  };
}

export function identityFromProto(identity: PeerIdentity__Output | null | undefined): PeerIdentity {
  return {
    clusterName: identity?.clusterName ?? '',
    peerId: identity?.peerId ?? '',
    incarnation: identity?.incarnation ?? '',
    version: identity?.version ?? '',
    nodeMajor: identity?.nodeMajor ?? 0,
  };
}

function routedCollection(collection: RoutedCollection__Output | null | undefined): { id: string; name: string } {
  return { id: collection?.id ?? '', name: collection?.name ?? '' };
}

/** The status a failed call answers with; never throws (a throw here would take the process down). */
function failureStatus(error: unknown): Partial<grpc.StatusObject> {
  if (!isDomainError(error)) return { code: grpc.status.INTERNAL, details: 'peer service: internal error' };
  try {
    const metadata = new grpc.Metadata();
    const fields = {
      kind: error.kind,
      message: error.message,
      retryAfterSeconds: error.retryAfterSeconds,
      validationIssues: error.validationIssues,
      validationLocation: error.validationLocation,
    };
    metadata.set(DOMAIN_ERROR_TRAILER, Buffer.from(JSON.stringify(fields), 'utf8'));
    // `details` travels as a header too: ASCII only there; the trailer keeps the exact message.
    return { code: toGrpcCode(error.kind), details: error.message.replace(/[^\x20-\x7e]/g, '?'), metadata };
  } catch {
    return { code: grpc.status.INTERNAL, details: 'peer service: internal error' };
  }
}
