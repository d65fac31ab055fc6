import { loadSync } from '@grpc/proto-loader';
import type { ClusterSetupOperation } from '@vectorstore/collections';
import type { UpdateCollectionClusterSetupRequest__Output } from '../../grpc/generated/vectorstore/UpdateCollectionClusterSetupRequest';
import { protoLoaderOptions } from '../../grpc/proto-paths';
import { clusterSetupFromProto } from './cluster-setup.mapper';

interface MethodCodec {
  requestSerialize(value: unknown): Buffer;
  requestDeserialize(bytes: Buffer): unknown;
}

/** Encodes `request` with the real Collections service definition and decodes it as the server does. */
function overTheWire(request: object): UpdateCollectionClusterSetupRequest__Output {
  const service = loadSync('vectorstore/collections_service.proto', protoLoaderOptions())[
    'vectorstore.Collections'
  ] as unknown as Record<string, MethodCodec>;
  const codec = service.UpdateCollectionClusterSetup;
  return codec.requestDeserialize(codec.requestSerialize(request)) as UpdateCollectionClusterSetupRequest__Output;
}

const transferOf = (operation: ClusterSetupOperation) => ('transfer' in operation ? operation.transfer : undefined);

describe('clusterSetupFromProto', () => {
  // D7 of the transfer review: RestartTransfer's method is a plain proto3 enum, so StreamRecords (0) is not on the
  // wire: what prost and grpcio send for it decodes without a method, and was refused as missing.
  it('D7: decodes a RestartTransfer without a method (StreamRecords, not on the wire) as StreamRecords', () => {
    const decoded = overTheWire({
      collectionName: 'books',
      restartTransfer: { shardId: 0, fromPeerId: '1', toPeerId: '2' },
    });
    expect(decoded.restartTransfer?.method).toBeUndefined();
    const { operation } = clusterSetupFromProto(decoded);
    expect(operation).toEqual({
      peerOperation: 'restartTransfer',
      transfer: { shardId: 0, fromPeerId: '1', toPeerId: '2', method: 'StreamRecords' },
    });
  });

  it('keeps a method that is on the wire, and leaves the optional method of other transfers unset', () => {
    const restart = clusterSetupFromProto(
      overTheWire({
        collectionName: 'books',
        restartTransfer: { shardId: 3, fromPeerId: '1', toPeerId: '2', method: 'WalDelta' },
      }),
    );
    expect(transferOf(restart.operation)?.method).toBe('WalDelta');
    const move = clusterSetupFromProto(
      overTheWire({ collectionName: 'books', moveShard: { shardId: 0, fromPeerId: '1', toPeerId: '2' } }),
    );
    expect(move.operation).toEqual({
      peerOperation: 'moveShard',
      transfer: { shardId: 0, fromPeerId: '1', toPeerId: '2' },
    });
  });
});
