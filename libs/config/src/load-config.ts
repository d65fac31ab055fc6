import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync, ValidationError } from 'class-validator';
import * as path from 'node:path';
import { AppConfig, LogLevel } from './app-config';
import { EnvironmentVariables } from './environment.schema';

export const DEFAULTS = {
  host: '0.0.0.0',
  httpPort: 6333,
  grpcPort: 6334,
  dataDir: './storage',
  logLevel: 'info' as LogLevel,
  accessTtlSeconds: 15 * 60,
  refreshTtlSeconds: 7 * 24 * 60 * 60,
} as const;

/** Every variable the server reads; anything else starting with VECTORSTORE_ is a typo. */
const KNOWN_VARIABLES = new Set([
  'VECTORSTORE_HTTP_PORT',
  'VECTORSTORE_GRPC_PORT',
  'VECTORSTORE_HOST',
  'VECTORSTORE_DATA_DIR',
  'VECTORSTORE_SNAPSHOTS_DIR',
  'VECTORSTORE_LOG_LEVEL',
  'VECTORSTORE_ADMIN_EMAIL',
  'VECTORSTORE_ADMIN_PASSWORD',
  'VECTORSTORE_JWT_SECRET',
  'VECTORSTORE_ACCESS_TTL',
  'VECTORSTORE_REFRESH_TTL',
  'VECTORSTORE_API_KEY',
  'VECTORSTORE_READ_ONLY_API_KEY',
]);

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
    if (!name.startsWith('VECTORSTORE_') || value === undefined) continue;
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
  if (problems.length > 0) throw new ConfigError(problems);

  const host = vars.VECTORSTORE_HOST ?? DEFAULTS.host;
  const dataDir = path.resolve(vars.VECTORSTORE_DATA_DIR ?? DEFAULTS.dataDir);
  return {
    http: { host, port: vars.VECTORSTORE_HTTP_PORT ?? DEFAULTS.httpPort },
    grpc: { host, port: vars.VECTORSTORE_GRPC_PORT ?? DEFAULTS.grpcPort },
    dataDir,
    snapshotsDir: path.resolve(vars.VECTORSTORE_SNAPSHOTS_DIR ?? path.join(dataDir, 'snapshots')),
    logLevel: (vars.VECTORSTORE_LOG_LEVEL as LogLevel | undefined) ?? DEFAULTS.logLevel,
    auth: {
      adminEmail: vars.VECTORSTORE_ADMIN_EMAIL,
      adminPassword: vars.VECTORSTORE_ADMIN_PASSWORD,
      jwtSecret: vars.VECTORSTORE_JWT_SECRET,
      accessTtlSeconds: vars.VECTORSTORE_ACCESS_TTL ?? DEFAULTS.accessTtlSeconds,
      refreshTtlSeconds: vars.VECTORSTORE_REFRESH_TTL ?? DEFAULTS.refreshTtlSeconds,
      apiKey: emptyToUndefined(vars.VECTORSTORE_API_KEY),
      readOnlyApiKey: emptyToUndefined(vars.VECTORSTORE_READ_ONLY_API_KEY),
    },
  };
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
