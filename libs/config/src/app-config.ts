/** Log levels accepted by VECTORSTORE_LOG_LEVEL (pino's names). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The server's whole configuration, validated once at start. */
export interface AppConfig {
  http: { host: string; port: number };
  grpc: { host: string; port: number };
  /** Folder holding all durable state (catalog, peer id, users, collection data). */
  dataDir: string;
  /** Where snapshots live: VECTORSTORE_SNAPSHOTS_DIR, else `<dataDir>/snapshots`. */
  snapshotsDir: string;
  logLevel: LogLevel;
  auth: AuthConfig;
}

export interface AuthConfig {
  /** First admin on a fresh data folder; a random password is generated and logged once when absent. */
  adminEmail?: string;
  adminPassword?: string;
  /** HMAC secret for access tokens; generated and kept in the data folder when absent. */
  jwtSecret?: string;
  /** Access token lifetime in seconds (spec: 15 minutes). */
  accessTtlSeconds: number;
  /** Refresh token lifetime in seconds (spec: 7 days). */
  refreshTtlSeconds: number;
  /** Static key with full access, as Qdrant's `service.api_key`. */
  apiKey?: string;
  /** Static key with read-only access, as Qdrant's `service.read_only_api_key`. */
  readOnlyApiKey?: string;
}
