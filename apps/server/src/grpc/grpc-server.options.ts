import type { Server } from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import type { PackageDefinition } from '@grpc/proto-loader';
import { GrpcOptions, Transport } from '@nestjs/microservices';
import { AppConfig } from '@vectorstore/config';
import { PROTO_INCLUDE_DIRS, protoLoaderOptions, SERVED_PACKAGES, SERVED_PROTO_FILES } from './proto-paths';

/**
 * The gRPC transport: every service under `vectorstore.*` and, by the same handlers, `qdrant.*`,
 * plus the standard health service and server reflection. grpc-js accepts gzip-compressed requests
 * (the Qdrant client gzips messages of 1 KiB or more) and answers uncompressed.
 */
/** Largest decompressed gRPC request accepted (RESOURCE_EXHAUSTED beyond). */
export const MAX_REQUEST_BYTES = 64 * 1024 * 1024;

export function grpcServerOptions(config: AppConfig): GrpcOptions {
  return {
    transport: Transport.GRPC,
    options: {
      url: `${config.grpc.host}:${config.grpc.port}`,
      package: SERVED_PACKAGES,
      protoPath: SERVED_PROTO_FILES,
      loader: { ...protoLoaderOptions(), includeDirs: PROTO_INCLUDE_DIRS },
      // Qdrant sets no limit, but an unlimited size lets a small gzip body expand to gigabytes before
      // auth runs. 64 MiB (decompressed) holds a 256-point batch of 65536-d vectors; more is refused.
      maxReceiveMessageLength: MAX_REQUEST_BYTES,
      maxSendMessageLength: -1,
      // No channelz service is served, so its per-call bookkeeping (counters, timestamps) is only cost.
      channelOptions: { 'grpc.enable_channelz': 0 },
      onLoadPackageDefinition: (definition: PackageDefinition, server: Pick<Server, 'addService'>) => {
        new ReflectionService(definition).addToServer(server);
      },
    },
  };
}
