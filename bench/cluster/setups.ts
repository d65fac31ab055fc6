// The servers bench:cluster measures: a standalone server, or etcd plus N cluster peers, each on free loopback
// ports with a temporary data folder. Everything started is registered for cleanup, which runs when a setup
// stops, when the bench fails, and on SIGINT/SIGTERM (stopAll).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { findEtcd, RunningEtcd, startEtcd } from '../../test/e2e/support/etcd-harness';
import { freePort, RunningServer, startServer } from '../../test/e2e/support/server-harness';

export interface Setup {
  /** Row label, e.g. "3 peers". */
  name: string;
  peers: RunningServer[];
  /** Stops the servers and etcd and removes their data folders. */
  stop(): Promise<void>;
}

/** Cleanup actions of everything still running, newest last. */
const cleanups = new Set<() => Promise<void>>();

function register(cleanup: () => Promise<void>): () => Promise<void> {
  let done: Promise<void> | undefined;
  const once = () => {
    cleanups.delete(once);
    done ??= cleanup();
    return done;
  };
  cleanups.add(once);
  return once;
}

/** Stops everything still running, newest first (servers before their etcd). Errors are reported, not thrown. */
export async function stopAll(): Promise<void> {
  for (const cleanup of [...cleanups].reverse()) {
    await cleanup().catch((error: unknown) => process.stderr.write(`cleanup failed: ${String(error)}\n`));
  }
}

const serverEnv = { VECTORSTORE_LOG_LEVEL: 'error' };
// BENCH_SERVER_NODE_ARGS go to every server's node, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" for profiles.
const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');

/** One server on a fresh temporary data folder, removed when it stops. */
async function server(env: Record<string, string>): Promise<{ server: RunningServer; stop: () => Promise<void> }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'vectorstore-bench-cluster-'));
  let running: RunningServer | undefined;
  // Registered before the start, so that a server that fails to come up still has its folder removed.
  const stop = register(async () => {
    await running?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  try {
    running = await startServer({ dataDir, env: { ...serverEnv, ...env }, nodeArgs });
  } catch (error) {
    await stop();
    throw error;
  }
  return { server: running, stop };
}

export async function startStandalone(): Promise<Setup> {
  const { server: peer, stop } = await server({});
  return { name: 'standalone', peers: [peer], stop };
}

/** etcd plus `count` peers; resolves once every peer lists all of them as live. */
export async function startCluster(count: number): Promise<Setup> {
  const bin = findEtcd();
  if (!bin) {
    throw new Error(
      'no etcd binary: run `bash scripts/fetch-etcd.sh` (Debian etcd-server into .cache/etcd) or set VECTORSTORE_TEST_ETCD_BIN',
    );
  }
  let etcd: RunningEtcd | undefined;
  const stopEtcd = register(async () => etcd?.stop());
  const stops: (() => Promise<void>)[] = [];
  const stopSetup = async () => {
    for (const stop of [...stops].reverse()) await stop();
    await stopEtcd();
  };
  try {
    etcd = await startEtcd(bin);
    const shared = {
      VECTORSTORE_CLUSTER_ENABLED: 'true',
      VECTORSTORE_ETCD_ENDPOINTS: etcd.endpoint,
      VECTORSTORE_CLUSTER_SECRET: randomBytes(24).toString('hex'),
      VECTORSTORE_JWT_SECRET: randomBytes(24).toString('hex'),
      VECTORSTORE_API_KEY: `bench-key-${randomBytes(16).toString('hex')}`,
      VECTORSTORE_READ_ONLY_API_KEY: `bench-ro-key-${randomBytes(16).toString('hex')}`,
    };
    const peers: RunningServer[] = [];
    // One at a time, as the e2e suite does: a starting peer blocks its event loop for a while.
    for (let i = 0; i < count; i++) {
      const started = await server({ ...shared, VECTORSTORE_P2P_PORT: String(await freePort()) });
      peers.push(started.server);
      stops.push(started.stop);
    }
    await waitForPeers(peers);
    return { name: count === 1 ? '1 peer' : `${count} peers`, peers, stop: stopSetup };
  } catch (error) {
    await stopSetup();
    throw error;
  }
}

/** Until every peer's GET /cluster lists all peers (a peer joins once its app listens), for at most 30 s. */
async function waitForPeers(peers: RunningServer[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const seen = await Promise.all(
      peers.map(async (peer) => {
        try {
          const response = await fetch(`${peer.httpUrl}/cluster`, { headers: { 'api-key': peer.apiKey } });
          const body = (await response.json()) as { result?: { peers?: Record<string, unknown> } };
          return Object.keys(body.result?.peers ?? {}).length;
        } catch {
          return 0;
        }
      }),
    );
    if (seen.every((n) => n === peers.length)) return;
    if (Date.now() > deadline) throw new Error(`peers did not all see each other within 30 s (saw ${seen.join(', ')})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
