/** Log levels accepted by VECTORSTORE_LOG_LEVEL (pino's names). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * VECTORSTORE_COOKIE_SECURE: when the dashboard's refresh cookie is marked `Secure`. `auto` (the default): when the
 * request itself came over TLS (this server has none, so only when a TLS server is put in front by Node options);
 * `always`: behind a TLS-terminating proxy, where the server sees plain HTTP but browsers see HTTPS.
 */
export const COOKIE_SECURE_MODES = ['auto', 'always'] as const;
export type CookieSecureMode = (typeof COOKIE_SECURE_MODES)[number];

/** The server's whole configuration, validated once at start. */
export interface AppConfig {
  http: { host: string; port: number };
  grpc: { host: string; port: number };
  /** Folder holding all durable state (catalog, peer id, users, collection data). */
  dataDir: string;
  /** Where snapshots live: VECTORSTORE_SNAPSHOTS_DIR, else `<dataDir>/snapshots`. */
  snapshotsDir: string;
  logLevel: LogLevel;
  /** The background scrub of segment files (docs/reliability.md): seconds between passes (0: off), read pace. */
  scrub: { intervalSeconds: number; mbPerSecond: number };
  auth: AuthConfig;
  /** Cluster mode (VECTORSTORE_CLUSTER_ENABLED=true); absent in the default standalone mode. */
  cluster?: ClusterConfig;
}

/** Cluster mode: metadata in etcd, peers found through it (docs/cluster.md). */
export interface ClusterConfig {
  etcd: {
    endpoints: string[];
    username?: string;
    password?: string;
    /** PEM file of the CA that signed etcd's certificate (https endpoints). */
    tlsCaFile?: string;
    /** Milliseconds one etcd call may take before it fails. */
    timeoutMs: number;
  };
  /** Key prefix: several clusters can share one etcd. */
  name: string;
  /** The internal peer service (not the public API). */
  p2p: { host: string; port: number };
  /** The host other peers dial to reach this one. */
  advertiseHost: string;
  /** Peers authenticate each other with an HMAC of this. */
  secret: string;
  /** Seconds of the peer lease: a peer that cannot renew it for this long is fenced. */
  leaseTtlSeconds: number;
  /** Seconds a peer may be gone before its replicas are marked Dead. */
  deadGraceSeconds: number;
  /** Automatic transfers (recovery, missing replicas) in and out per peer and collection at once (Qdrant's 1). */
  transferLimit: number;
  /** Seconds a peer may be gone before its shards are replicated onto live peers; absent: never. */
  autoReplicateAfterSeconds?: number;
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
  /** Seconds a used refresh token may come back and get its first successor again; 0 = strict rotation. */
  refreshReuseGraceSeconds: number;
  /** Static key with full access, as Qdrant's `service.api_key`. */
  apiKey?: string;
  /** Static key with read-only access, as Qdrant's `service.read_only_api_key`. */
  readOnlyApiKey?: string;
  /** When the refresh cookie is `Secure` (VECTORSTORE_COOKIE_SECURE, default `auto`). */
  cookieSecure: CookieSecureMode;
}
