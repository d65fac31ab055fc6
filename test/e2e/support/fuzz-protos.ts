import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as protobuf from 'protobufjs';
import { REPO_ROOT } from './server-harness';
import type { ProtoPackage } from './grpc-clients';

/** The services whose every method the gRPC fuzz calls, in both packages. */
export const FUZZED_SERVICES = ['Collections', 'Points', 'Snapshots'] as const;

const INCLUDE_DIRS = [path.join(REPO_ROOT, 'proto'), path.join(REPO_ROOT, 'build', 'proto')];

/**
 * The served protos of a package as a protobufjs root, resolved. keepCase false matches what grpc-js clients take
 * (proto/loader-options.json); keepCase true gives the snake_case names of REST bodies.
 */
export function loadProtoRoot(pkg: ProtoPackage, keepCase: boolean): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => {
    for (const dir of INCLUDE_DIRS) if (existsSync(path.join(dir, target))) return path.join(dir, target);
    return target; // google/protobuf/*: protobufjs has them built in
  };
  root.loadSync(
    ['collections_service.proto', 'points_service.proto', 'snapshots_service.proto'].map((file) => `${pkg}/${file}`),
    { keepCase },
  );
  root.resolveAll();
  return root;
}

export interface FuzzedMethod {
  pkg: ProtoPackage;
  service: string;
  method: string;
  requestType: protobuf.Type;
}

/** Every unary method of the fuzzed services, read from the protos. */
export function fuzzedMethods(pkg: ProtoPackage, root: protobuf.Root): FuzzedMethod[] {
  return FUZZED_SERVICES.flatMap((service) =>
    Object.values(root.lookupService(`${pkg}.${service}`).methods).map((method) => ({
      pkg,
      service,
      method: method.name,
      requestType: method.resolvedRequestType as protobuf.Type,
    })),
  );
}
