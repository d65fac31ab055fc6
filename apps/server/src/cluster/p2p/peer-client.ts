// Calls to other peers' internal service, signed with the cluster secret; one channel per peer address.
import * as grpc from '@grpc/grpc-js';
import {
  ClusterNode,
  PEER_ID_HEADER,
  PEER_INCARNATION_HEADER,
  peerCredential,
  PeerInfo,
  PeerTransport,
} from '@vectorstore/cluster';
import { DomainError, type DomainErrorOptions, ErrorKind } from '@vectorstore/common';
import type { PeerClient } from '../../grpc/generated/vectorstore/internal/Peer';
import type { TransferApplyRequest } from '../../grpc/generated/vectorstore/internal/TransferApplyRequest';
import { loadPeerProto } from './peer-proto';
import { DOMAIN_ERROR_TRAILER, identityFromProto, PEER_CHANNEL_OPTIONS } from './peer-server';

/** A collection as a coordinator routes to it. */
export interface RoutedCollection {
  id: string;
  name: string;
}

export class GrpcPeerTransport implements PeerTransport {
  private readonly clients = new Map<string, PeerClient>();
  private readonly proto = loadPeerProto();

  constructor(
    private readonly node: ClusterNode,
    private readonly timeoutMs: number,
  ) {}

  async hello(peer: PeerInfo, timeoutMs = this.timeoutMs): ReturnType<PeerTransport['hello']> {
    const client = this.clientFor(peer.p2pUri);
    const reply = await new Promise<{ peer: ReturnType<typeof identityFromProto>; catalogRevision: number }>(
      (resolve, reject) =>
        client.Hello(
          { from: this.node.identity },
          this.metadata(),
          { deadline: Date.now() + timeoutMs },
          (error, response) =>
            error || !response
              ? reject(error ?? new Error('empty reply'))
              : resolve({
                  peer: identityFromProto(response.peer),
                  catalogRevision: Number(response.catalogRevision ?? 0),
                }),
        ),
    );
    return reply;
  }

  /**
   * `ShardUpdate`: one part of a write to a shard `uri`'s peer holds; its operation number, or the peer's newer
   * replica epoch when it refused the part as routed with a stale view.
   */
  async shardUpdate(
    uri: string,
    collection: RoutedCollection,
    shardId: number,
    operation: Uint8Array,
    timeoutMs: number,
    lead = false,
    epoch?: number,
    clock?: { peer: string; incarnation: string; seq: number },
  ): Promise<{ operationId: number; staleEpoch?: number }> {
    const client = this.clientFor(uri);
    const reply = await new Promise<{ operationId?: string; staleEpoch?: string }>((resolve, reject) =>
      client.ShardUpdate(
        {
          collection,
          shardId,
          operation,
          lead,
          ...(epoch !== undefined ? { epoch } : {}),
          ...(clock ? { clock } : {}),
        },
        this.metadata(),
        { deadline: Date.now() + timeoutMs },
        (error, response) => (error || !response ? reject(peerFailure(uri, error)) : resolve(response)),
      ),
    );
    return {
      operationId: Number(reply.operationId ?? 0),
      ...(reply.staleEpoch !== undefined && reply.staleEpoch !== null ? { staleEpoch: Number(reply.staleEpoch) } : {}),
    };
  }

  /** `TransferApply`: one numbered batch of a transfer's steps on its target `uri`. */
  async transferApply(uri: string, request: TransferApplyRequest, timeoutMs: number): Promise<void> {
    const client = this.clientFor(uri);
    await new Promise<void>((resolve, reject) =>
      client.TransferApply(request, this.metadata(), { deadline: Date.now() + timeoutMs }, (error) =>
        error ? reject(peerFailure(uri, error)) : resolve(),
      ),
    );
  }

  /** `RecoveryPoint`: the encoded recovery point of `uri`'s replica of a shard. */
  async recoveryPoint(uri: string, collection: RoutedCollection, shardId: number, timeoutMs: number): Promise<Buffer> {
    const client = this.clientFor(uri);
    const reply = await new Promise<{ point?: Buffer }>((resolve, reject) =>
      client.RecoveryPoint(
        { collection, shardId },
        this.metadata(),
        { deadline: Date.now() + timeoutMs },
        (error, response) => (error || !response ? reject(peerFailure(uri, error)) : resolve(response)),
      ),
    );
    return reply.point ?? Buffer.alloc(0);
  }

  /** `ShardChecksum`: the live points and digest of `uri`'s replica of a shard. */
  async shardChecksum(
    uri: string,
    collection: RoutedCollection,
    shardId: number,
    timeoutMs: number,
  ): Promise<{ points: number; digest: string }> {
    const client = this.clientFor(uri);
    const reply = await new Promise<{ points?: string; digest?: string }>((resolve, reject) =>
      client.ShardChecksum(
        { collection, shardId },
        this.metadata(),
        { deadline: Date.now() + timeoutMs },
        (error, response) => (error || !response ? reject(peerFailure(uri, error)) : resolve(response)),
      ),
    );
    return { points: Number(reply.points ?? 0), digest: reply.digest ?? '' };
  }

  /** `ShardRead`: a read over the shards `uri`'s peer holds; the encoded answer. */
  async shardRead(uri: string, collection: RoutedCollection, read: Uint8Array, timeoutMs: number): Promise<Buffer> {
    const client = this.clientFor(uri);
    const reply = await new Promise<{ result?: Buffer }>((resolve, reject) =>
      client.ShardRead(
        { collection, read },
        this.metadata(),
        { deadline: Date.now() + timeoutMs },
        (error, response) => (error || !response ? reject(peerFailure(uri, error)) : resolve(response)),
      ),
    );
    return reply.result ?? Buffer.alloc(0);
  }

  close(): void {
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }

  private metadata(): grpc.Metadata {
    const { peerId, incarnation } = this.node.identity;
    const credential = peerCredential(this.node.secret, peerId, incarnation);
    const metadata = new grpc.Metadata();
    metadata.set(PEER_ID_HEADER, credential.peerId);
    metadata.set(PEER_INCARNATION_HEADER, credential.incarnation);
    metadata.set('authorization', credential.authorization);
    return metadata;
  }

  private clientFor(uri: string): PeerClient {
    let client = this.clients.get(uri);
    if (!client) {
      const address = new URL(uri).host;
      client = new this.proto.vectorstore.internal.Peer(
        address,
        grpc.credentials.createInsecure(),
        PEER_CHANNEL_OPTIONS,
      );
      this.clients.set(uri, client);
    }
    return client;
  }
}

/**
 * The error a peer call failed with, as a domain failure: the peer's own domain failure as it was
 * raised there (carried in a trailer), else UNAVAILABLE / DEADLINE_EXCEEDED naming the peer.
 */
function peerFailure(uri: string, error: grpc.ServiceError | null): DomainError {
  const carried = error?.metadata?.get(DOMAIN_ERROR_TRAILER)[0];
  if (Buffer.isBuffer(carried)) {
    const fields = JSON.parse(carried.toString('utf8')) as DomainErrorOptions & { kind: ErrorKind; message: string };
    return new DomainError(fields.kind, fields.message, {
      retryAfterSeconds: fields.retryAfterSeconds,
      validationIssues: fields.validationIssues,
      validationLocation: fields.validationLocation,
    });
  }
  const reason = error?.details || 'no answer';
  if (error?.code === grpc.status.DEADLINE_EXCEEDED)
    return DomainError.deadlineExceeded(`Timeout error: peer ${uri} did not answer in time (${reason})`, error);
  if (error?.code === grpc.status.RESOURCE_EXHAUSTED)
    return DomainError.resourceExhausted(`Resource exhausted: the exchange with peer ${uri} is too large (${reason})`);
  if (error?.code === grpc.status.INTERNAL)
    return DomainError.internal(`Service internal error: peer ${uri} failed: ${reason}`, error);
  return DomainError.unavailable(`Service unavailable: peer ${uri} cannot be reached: ${reason}`, error ?? undefined);
}
