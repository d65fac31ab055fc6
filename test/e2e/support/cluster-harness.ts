// What the cluster e2e files share: the secrets every peer of one cluster gets, a peer started against etcd
// through its own TCP proxy (so that one peer alone can be cut off), and polling for what settles later.
import { randomBytes } from 'node:crypto';
import type { RunningEtcd } from './etcd-harness';
import { freePort, RunningServer, startServer } from './server-harness';
import { startTcpProxy, TcpProxy } from './tcp-proxy';

/** Secrets and API keys, equal on every peer of one cluster (fresh per test file). */
export function clusterSecrets(): Record<string, string> {
  return {
    VECTORSTORE_CLUSTER_SECRET: randomBytes(24).toString('hex'),
    VECTORSTORE_JWT_SECRET: randomBytes(24).toString('hex'),
    VECTORSTORE_API_KEY: `test-key-${randomBytes(16).toString('hex')}`,
    VECTORSTORE_READ_ONLY_API_KEY: `test-ro-key-${randomBytes(16).toString('hex')}`,
    // One cluster, one first admin: whichever peer makes it, every peer's credentials in the harness are right.
    VECTORSTORE_ADMIN_PASSWORD: `pw-${randomBytes(12).toString('hex')}`,
  };
}

/** A server in cluster mode, reaching etcd through a proxy of its own. */
export async function startClusterPeer(
  etcd: RunningEtcd,
  secrets: Record<string, string>,
  timing: { leaseTtlS: number; etcdTimeoutMs: number },
  /** More variables for the peer (e.g. VECTORSTORE_DEAD_GRACE). */
  env: Record<string, string> = {},
): Promise<{ server: RunningServer; proxy: TcpProxy }> {
  const proxy = await startTcpProxy('127.0.0.1', Number(new URL(etcd.endpoint).port));
  const server = await startServer({
    env: {
      ...secrets,
      VECTORSTORE_CLUSTER_ENABLED: 'true',
      VECTORSTORE_ETCD_ENDPOINTS: proxy.url,
      VECTORSTORE_P2P_PORT: String(await freePort()),
      VECTORSTORE_LEASE_TTL: String(timing.leaseTtlS),
      VECTORSTORE_ETCD_TIMEOUT_MS: String(timing.etcdTimeoutMs),
      ...env,
    },
  });
  return { server, proxy };
}

/** Polls `check` until it returns without throwing, for at most `ms`. */
export async function eventually<T>(ms: number, check: () => Promise<T>, every = 50): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, every));
    }
  }
}
