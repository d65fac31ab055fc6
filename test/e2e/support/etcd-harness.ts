// A throwaway etcd for cluster e2e tests: the Debian binary that .ci/run fetches into .cache/etcd (or
// VECTORSTORE_TEST_ETCD_BIN, or etcd on PATH), on loopback ports with a temporary data folder.
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { freePort, REPO_ROOT } from './server-harness';

export interface RunningEtcd {
  endpoint: string;
  /** SIGSTOP: etcd holds connections but answers nothing (a hung or partitioned etcd). */
  pause(): void;
  /** SIGCONT after pause. */
  resume(): void;
  stop(): Promise<void>;
}

/** Where an etcd binary is, or undefined when none can be found. */
export function findEtcd(): string | undefined {
  const candidates = [
    process.env.VECTORSTORE_TEST_ETCD_BIN,
    path.join(REPO_ROOT, '.cache', 'etcd', 'usr', 'bin', 'etcd'),
  ].filter((p): p is string => !!p);
  for (const candidate of candidates) if (existsSync(candidate)) return candidate;
  const onPath = spawnSync('sh', ['-c', 'command -v etcd'], { encoding: 'utf8' });
  return onPath.status === 0 && onPath.stdout.trim() ? onPath.stdout.trim() : undefined;
}

/**
 * Says whether cluster suites can run. Under CI an absent etcd is a failure (CI must fetch it);
 * elsewhere the suite is skipped with a warning that names the fix.
 */
export function etcdOrSkip(): string | undefined {
  const bin = findEtcd();
  if (bin) return bin;
  const fix = 'run `bash scripts/fetch-etcd.sh` (Debian etcd-server into .cache/etcd) or set VECTORSTORE_TEST_ETCD_BIN';
  if (process.env.CI === 'true') throw new Error(`etcd is required for the cluster tests under CI: ${fix}`);
  console.warn(`SKIPPING cluster e2e tests: no etcd binary found; ${fix}`);
  return undefined;
}

export async function startEtcd(bin: string): Promise<RunningEtcd> {
  const dir = mkdtempSync(path.join(tmpdir(), 'vectorstore-etcd-'));
  const clientPort = await freePort();
  const peerPort = await freePort();
  const endpoint = `http://127.0.0.1:${clientPort}`;
  const child: ChildProcess = spawn(
    bin,
    [
      '--name=e2e',
      `--data-dir=${path.join(dir, 'data')}`,
      `--listen-client-urls=${endpoint}`,
      `--advertise-client-urls=${endpoint}`,
      `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-cluster=e2e=http://127.0.0.1:${peerPort}`,
      `--initial-cluster-token=e2e-${clientPort}`,
      // Two busy cores: a slow heartbeat must not look like a dead leader.
      '--heartbeat-interval=250',
      '--election-timeout=1500',
      '--unsafe-no-fsync',
      '--log-level=error',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`etcd exited (${child.exitCode}):\n${output}`);
    try {
      const response = await fetch(`${endpoint}/health`);
      if (response.ok) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`etcd was not healthy within 15 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    endpoint,
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGCONT');
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
