import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import * as path from 'node:path';
import type { ProtoGrpcType as CollectionsProto } from '../../../apps/server/src/grpc/generated/collections_service';
import type { CollectionsClient } from '../../../apps/server/src/grpc/generated/vectorstore/Collections';
import { protoLoaderOptions } from '../../../apps/server/src/grpc/proto-paths';

export type { CollectionsClient };

const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

/** The proto package a client calls: ours, or the `qdrant` copy Qdrant's clients use. */
export type ProtoPackage = 'vectorstore' | 'qdrant';

/** The service definitions of one package, loaded with the same options the server uses. */
export function loadServiceDefinitions(pkg: ProtoPackage = 'vectorstore'): protoLoader.PackageDefinition {
  return protoLoader.loadSync(
    [
      `${pkg}/collections_service.proto`,
      `${pkg}/points_service.proto`,
      `${pkg}/qdrant.proto`,
      `${pkg}/snapshots_service.proto`,
      'grpc/health/v1/health.proto',
    ],
    { ...protoLoaderOptions(), includeDirs: [path.join(REPO_ROOT, 'proto'), path.join(REPO_ROOT, 'build', 'proto')] },
  );
}

/** Metadata carrying a credential the way Qdrant's clients send it. */
export function credentials(apiKey?: string, bearer?: string): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (apiKey !== undefined) metadata.set('api-key', apiKey);
  if (bearer !== undefined) metadata.set('authorization', `Bearer ${bearer}`);
  return metadata;
}

/** A Collections client on /<pkg>.Collections/*; every call carries `metadata`. */
export function createCollectionsClient(
  address: string,
  metadata: grpc.Metadata = new grpc.Metadata(),
  pkg: ProtoPackage = 'vectorstore',
): CollectionsClient {
  const loaded = grpc.loadPackageDefinition(loadServiceDefinitions(pkg)) as unknown as Record<
    ProtoPackage,
    CollectionsProto['vectorstore']
  >;
  return new loaded[pkg].Collections(address, grpc.credentials.createInsecure(), {
    interceptors: [withMetadata(metadata)],
  });
}

/** A client interceptor that adds `metadata` to every call (grpc-js refuses call credentials on plaintext). */
export function withMetadata(metadata: grpc.Metadata): grpc.Interceptor {
  return (options, nextCall) =>
    new grpc.InterceptingCall(nextCall(options), {
      start: (callMetadata, listener, next) => {
        callMetadata.merge(metadata);
        next(callMetadata, listener);
      },
    });
}

/** A Points client on /<pkg>.Points/*; every call carries `metadata`. */
export function createPointsClient(
  address: string,
  metadata: grpc.Metadata = new grpc.Metadata(),
  pkg: ProtoPackage = 'vectorstore',
): grpc.Client {
  return createClient(address, `${pkg}.Points`, metadata, pkg);
}

/** A client for any service of the loaded definitions, e.g. `grpc.health.v1.Health` or `qdrant.Qdrant`. */
export function createClient(
  address: string,
  serviceName: string,
  metadata: grpc.Metadata = new grpc.Metadata(),
  pkg: ProtoPackage = 'vectorstore',
): grpc.Client {
  const definition = loadServiceDefinitions(pkg)[serviceName] as grpc.ServiceDefinition;
  if (!definition) throw new Error(`no service ${serviceName}`);
  const Client = grpc.makeGenericClientConstructor(definition, serviceName);
  return new Client(address, grpc.credentials.createInsecure(), { interceptors: [withMetadata(metadata)] });
}

/** Calls a unary method as a promise; rejects with the grpc-js ServiceError (with `.code`). */
export function unary<Req, Res>(client: grpc.Client, method: string, request: Req): Promise<Res> {
  return new Promise((resolve, reject) => {
    const fn = (
      client as unknown as Record<string, (req: Req, cb: (err: grpc.ServiceError | null, res?: Res) => void) => void>
    )[method];
    if (typeof fn !== 'function') throw new Error(`no method ${method} on client`);
    fn.call(client, request, (error, response) => (error ? reject(error) : resolve(response as Res)));
  });
}
