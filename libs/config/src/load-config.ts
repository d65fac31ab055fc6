import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import * as path from 'node:path';
import { AppConfig, ClusterConfig, CookieSecureMode, LogLevel } from './app-config';
import { EnvironmentVariables } from './environment.schema';

export const DEFAULTS = {
  host: '0.0.0.0',
  httpPort: 6333,
  grpcPort: 6334,
  dataDir: './storage',
  logLevel: 'info' as LogLevel,
  accessTtlSeconds: 15 * 60,
  refreshTtlSeconds: 7 * 24 * 60 * 60,
  refreshReuseGraceSeconds: 10,
  cookieSecure: 'auto' as CookieSecureMode,
  clusterName: 'default',
  p2pPort: 6335,
  leaseTtlSeconds: 10,
  etcdTimeoutMs: 5000,
  transferLimit: 1,
  scrubIntervalSeconds: 24 * 60 * 60,
  scrubMbPerSecond: 64,
} as const;

/** Every variable the server reads; anything else starting with VECTORSTORE_ is a typo. */
const KNOWN_VARIABLES = new Set([
  'VECTORSTORE_HTTP_PORT',
  'VECTORSTORE_GRPC_PORT',
  'VECTORSTORE_HOST',
  'VECTORSTORE_DATA_DIR',
  'VECTORSTORE_SNAPSHOTS_DIR',
  'VECTORSTORE_LOG_LEVEL',
  'VECTORSTORE_SCRUB_INTERVAL',
  'VECTORSTORE_SCRUB_MB_PER_SEC',
  'VECTORSTORE_ADMIN_EMAIL',
  'VECTORSTORE_ADMIN_PASSWORD',
  'VECTORSTORE_JWT_SECRET',
  'VECTORSTORE_ACCESS_TTL',
  'VECTORSTORE_REFRESH_TTL',
  'VECTORSTORE_REFRESH_REUSE_GRACE',
  'VECTORSTORE_API_KEY',
  'VECTORSTORE_READ_ONLY_API_KEY',
  'VECTORSTORE_COOKIE_SECURE',
  'VECTORSTORE_CLUSTER_ENABLED',
  'VECTORSTORE_ETCD_ENDPOINTS',
  'VECTORSTORE_ETCD_USERNAME',
  'VECTORSTORE_ETCD_PASSWORD',
  'VECTORSTORE_ETCD_TLS_CA',
  'VECTORSTORE_CLUSTER_NAME',
  'VECTORSTORE_P2P_PORT',
  'VECTORSTORE_P2P_HOST',
  'VECTORSTORE_ADVERTISE_HOST',
  'VECTORSTORE_CLUSTER_SECRET',
  'VECTORSTORE_LEASE_TTL',
  'VECTORSTORE_DEAD_GRACE',
  'VECTORSTORE_ETCD_TIMEOUT_MS',
  'VECTORSTORE_TRANSFER_LIMIT',
  'VECTORSTORE_AUTO_REPLICATE_AFTER',
]);

/** Names the test tooling reads (e.g. VECTORSTORE_TEST_CHROMIUM for the browser tests); the server ignores them. */
const TEST_TOOLING_PREFIX = 'VECTORSTORE_TEST_';

/** Variables that mean something only in cluster mode: set without it, they are a mistake. */
const CLUSTER_ONLY = [...KNOWN_VARIABLES].filter(
  (name) =>
    name.startsWith('VECTORSTORE_ETCD_') ||
    name.startsWith('VECTORSTORE_P2P_') ||
    ['VECTORSTORE_CLUSTER_NAME', 'VECTORSTORE_ADVERTISE_HOST', 'VECTORSTORE_CLUSTER_SECRET'].includes(name) ||
    [
      'VECTORSTORE_LEASE_TTL',
      'VECTORSTORE_DEAD_GRACE',
      'VECTORSTORE_TRANSFER_LIMIT',
      'VECTORSTORE_AUTO_REPLICATE_AFTER',
    ].includes(name),
);

/** Thrown at start when the environment is invalid; the message lists every bad variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Validates the environment and merges it over the defaults. Unknown VECTORSTORE_* names are
 * reported too, because a typo there silently changing nothing is worse than refusing to start.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const relevant: Record<string, string> = {};
  const problems: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('VECTORSTORE_') || name.startsWith(TEST_TOOLING_PREFIX) || value === undefined) continue;
    if (!KNOWN_VARIABLES.has(name)) {
      problems.push(`${name}: unknown setting`);
      continue;
    }
    relevant[name] = value;
  }
  const vars = plainToInstance(EnvironmentVariables, relevant);
  for (const error of validateSync(vars, { forbidUnknownValues: false, stopAtFirstError: true })) {
    problems.push(...describe(error));
  }
  const host = vars.VECTORSTORE_HOST ?? DEFAULTS.host;
  const cluster = clusterConfig(vars, host, problems);
  if (problems.length > 0) throw new ConfigError(problems);

  const dataDir = path.resolve(vars.VECTORSTORE_DATA_DIR ?? DEFAULTS.dataDir);
  return {
    http: { host, port: vars.VECTORSTORE_HTTP_PORT ?? DEFAULTS.httpPort },
    grpc: { host, port: vars.VECTORSTORE_GRPC_PORT ?? DEFAULTS.grpcPort },
    dataDir,
    snapshotsDir: path.resolve(vars.VECTORSTORE_SNAPSHOTS_DIR ?? path.join(dataDir, 'snapshots')),
    logLevel: (vars.VECTORSTORE_LOG_LEVEL as LogLevel | undefined) ?? DEFAULTS.logLevel,
    scrub: {
      intervalSeconds: vars.VECTORSTORE_SCRUB_INTERVAL ?? DEFAULTS.scrubIntervalSeconds,
      mbPerSecond: vars.VECTORSTORE_SCRUB_MB_PER_SEC ?? DEFAULTS.scrubMbPerSecond,
    },
    auth: {
      adminEmail: vars.VECTORSTORE_ADMIN_EMAIL,
      adminPassword: vars.VECTORSTORE_ADMIN_PASSWORD,
      jwtSecret: vars.VECTORSTORE_JWT_SECRET,
      accessTtlSeconds: vars.VECTORSTORE_ACCESS_TTL ?? DEFAULTS.accessTtlSeconds,
      refreshTtlSeconds: vars.VECTORSTORE_REFRESH_TTL ?? DEFAULTS.refreshTtlSeconds,
      refreshReuseGraceSeconds: vars.VECTORSTORE_REFRESH_REUSE_GRACE ?? DEFAULTS.refreshReuseGraceSeconds,
      apiKey: emptyToUndefined(vars.VECTORSTORE_API_KEY),
      readOnlyApiKey: emptyToUndefined(vars.VECTORSTORE_READ_ONLY_API_KEY),
      cookieSecure: (vars.VECTORSTORE_COOKIE_SECURE as CookieSecureMode | undefined) ?? DEFAULTS.cookieSecure,
    },
    ...(cluster ? { cluster } : {}),
  };
}

/** The cluster settings when cluster mode is on; their cross-variable rules go to `problems`. */
function clusterConfig(vars: EnvironmentVariables, host: string, problems: string[]): ClusterConfig | undefined {
  if (vars.VECTORSTORE_CLUSTER_ENABLED !== 'true') {
    for (const name of CLUSTER_ONLY) {
      if (vars[name as keyof EnvironmentVariables] !== undefined)
        problems.push(`${name}: only used in cluster mode (set VECTORSTORE_CLUSTER_ENABLED=true)`);
    }
    return undefined;
  }
  const required = (name: keyof EnvironmentVariables, why: string) => {
    if (vars[name] === undefined) problems.push(`${name}: required in cluster mode (${why})`);
  };
  required('VECTORSTORE_ETCD_ENDPOINTS', 'where the cluster metadata lives');
  required('VECTORSTORE_CLUSTER_SECRET', 'peers authenticate each other with it');
  required('VECTORSTORE_JWT_SECRET', 'every peer must accept the same access tokens');
  required('VECTORSTORE_API_KEY', 'every peer must accept the same API key');
  if (
    vars.VECTORSTORE_ETCD_TLS_CA !== undefined &&
    vars.VECTORSTORE_ETCD_ENDPOINTS !== undefined &&
    !vars.VECTORSTORE_ETCD_ENDPOINTS.split(',').every((endpoint) => endpoint.startsWith('https://'))
  )
    problems.push('VECTORSTORE_ETCD_TLS_CA: only used with https:// endpoints (VECTORSTORE_ETCD_ENDPOINTS)');
  if ((vars.VECTORSTORE_ETCD_PASSWORD === undefined) !== (vars.VECTORSTORE_ETCD_USERNAME === undefined))
    problems.push('VECTORSTORE_ETCD_USERNAME and VECTORSTORE_ETCD_PASSWORD: set both or neither');
  const p2pHost = vars.VECTORSTORE_P2P_HOST ?? host;
  const advertiseHost = vars.VECTORSTORE_ADVERTISE_HOST ?? (isWildcard(p2pHost) ? undefined : p2pHost);
  if (advertiseHost === undefined)
    problems.push(
      `VECTORSTORE_ADVERTISE_HOST: required in cluster mode when the peer service listens on ${p2pHost} (the address other peers dial)`,
    );
  const leaseTtlSeconds = vars.VECTORSTORE_LEASE_TTL ?? DEFAULTS.leaseTtlSeconds;
  if (problems.length > 0 || advertiseHost === undefined) return undefined;
  return {
    etcd: {
      endpoints: (vars.VECTORSTORE_ETCD_ENDPOINTS ?? '').split(','),
      username: vars.VECTORSTORE_ETCD_USERNAME,
      password: vars.VECTORSTORE_ETCD_PASSWORD,
      tlsCaFile: vars.VECTORSTORE_ETCD_TLS_CA,
      timeoutMs: vars.VECTORSTORE_ETCD_TIMEOUT_MS ?? DEFAULTS.etcdTimeoutMs,
    },
    name: vars.VECTORSTORE_CLUSTER_NAME ?? DEFAULTS.clusterName,
    p2p: { host: p2pHost, port: vars.VECTORSTORE_P2P_PORT ?? DEFAULTS.p2pPort },
    advertiseHost,
    secret: vars.VECTORSTORE_CLUSTER_SECRET ?? '',
    leaseTtlSeconds,
    deadGraceSeconds: vars.VECTORSTORE_DEAD_GRACE ?? leaseTtlSeconds,
    transferLimit: vars.VECTORSTORE_TRANSFER_LIMIT ?? DEFAULTS.transferLimit,
    ...(vars.VECTORSTORE_AUTO_REPLICATE_AFTER !== undefined
      ? { autoReplicateAfterSeconds: vars.VECTORSTORE_AUTO_REPLICATE_AFTER }
      : {}),
  };
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

function emptyToUndefined(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

function describe(error: ValidationError): string[] {
  const value =
    error.property.includes('PASSWORD') || error.property.includes('SECRET') || error.property.includes('KEY')
      ? '(hidden)'
      : JSON.stringify(error.value);
  return Object.values(error.constraints ?? {}).map((rule) => `${error.property}=${value}: ${rule}`);
}
