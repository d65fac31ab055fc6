import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Options } from '@grpc/proto-loader';

/** The repository root: the nearest folder above this file that holds `proto/vectorstore`. */
export function findRepoRoot(start: string = __dirname): string {
  let dir = start;
  for (;;) {
    if (existsSync(path.join(dir, 'proto', 'vectorstore'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`cannot find proto/vectorstore above ${start}`);
    dir = parent;
  }
}

const root = findRepoRoot();

/** Where protos are found: ours, and the `qdrant`-package copies built from them. */
export const PROTO_INCLUDE_DIRS = [path.join(root, 'proto'), path.join(root, 'build', 'proto')];

/** The services this server mounts, each under both packages. */
export const SERVED_PROTO_FILES = [
  'vectorstore/collections_service.proto',
  'vectorstore/points_service.proto',
  'vectorstore/qdrant.proto',
  'vectorstore/snapshots_service.proto',
  'qdrant/collections_service.proto',
  'qdrant/points_service.proto',
  'qdrant/qdrant.proto',
  'qdrant/snapshots_service.proto',
  'grpc/health/v1/health.proto',
];

export const SERVED_PACKAGES = ['vectorstore', 'qdrant', 'grpc.health.v1'];

/**
 * proto-loader options shared by the server, the type generator and test clients
 * (`proto/loader-options.json` is the single source).
 */
export function protoLoaderOptions(): Options {
  const raw = JSON.parse(readFileSync(path.join(root, 'proto', 'loader-options.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  return {
    ...raw,
    longs: raw.longs === 'String' ? String : Number,
    enums: raw.enums === 'String' ? String : undefined,
    includeDirs: PROTO_INCLUDE_DIRS,
  } as Options;
}
