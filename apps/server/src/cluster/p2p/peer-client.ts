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
import type { PeerClient } from '../../grpc/generated/vectorstore/internal/Peer';
import { loadPeerProto } from './peer-proto';
import { identityFromProto } from './peer-server';

export class GrpcPeerTransport implements PeerTransport {
  private readonly clients = new Map<string, PeerClient>();
  private readonly proto = loadPeerProto();

  constructor(
    private readonly node: ClusterNode,
    private readonly timeoutMs: number,
  ) {}

  async hello(peer: PeerInfo): ReturnType<PeerTransport['hello']> {
    const client = this.clientFor(peer.p2pUri);
    const reply = await new Promise<{ peer: ReturnType<typeof identityFromProto>; catalogRevision: number }>(
      (resolve, reject) =>
        client.Hello(
          { from: this.node.identity },
          this.metadata(),
          { deadline: Date.now() + this.timeoutMs },
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
      client = new this.proto.vectorstore.internal.Peer(address, grpc.credentials.createInsecure());
      this.clients.set(uri, client);
    }
    return client;
  }
}
