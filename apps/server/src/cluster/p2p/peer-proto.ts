// The internal peer service's definition, loaded with the same proto-loader options as the public API.
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType } from '../../grpc/generated/peer';
import { protoLoaderOptions } from '../../grpc/proto-paths';

export function loadPeerProto(): ProtoGrpcType {
  const definition = protoLoader.loadSync('internal/peer.proto', protoLoaderOptions());
  return grpc.loadPackageDefinition(definition) as unknown as ProtoGrpcType;
}
