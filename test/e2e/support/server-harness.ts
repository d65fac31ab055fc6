import { ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const SERVER_ENTRY = path.join(REPO_ROOT, 'dist', 'apps', 'server', 'src', 'main.js');

export interface StartOptions {
  /** Extra or overriding environment variables. */
  env?: Record<string, string>;
  /** Reuse a data folder (for restart tests); a fresh temporary one otherwise. */
  dataDir?: string;
  /** Options for the server's node (e.g. `--cpu-prof`, which NODE_OPTIONS does not accept). */
  nodeArgs?: string[];
}

export interface RunningServer {
  /** Process id of the server. */
  pid: number;
  httpPort: number;
  grpcPort: number;
  httpUrl: string;
  grpcAddress: string;
  dataDir: string;
  apiKey: string;
  readOnlyApiKey: string;
  adminEmail: string;
  adminPassword: string;
  env: Record<string, string>;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM and wait for exit. */
  stop(): Promise<void>;
  /** SIGKILL and wait for exit: nothing gets a chance to flush. */
  kill(): Promise<void>;
  /** Start again on the same data folder, ports and credentials. */
  restart(): Promise<RunningServer>;
}

/** A free TCP port on loopback (bound then released; the server takes it right after). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Boots the built server (`npm run build` first) as a child process and waits until it is ready. */
export async function startServer(options: StartOptions = {}): Promise<RunningServer> {
  if (!existsSync(SERVER_ENTRY)) throw new Error(`${SERVER_ENTRY} is missing: run \`npm run build\` first`);
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'vectorstore-e2e-'));
  const env: Record<string, string> = {
    VECTORSTORE_HOST: '127.0.0.1',
    VECTORSTORE_HTTP_PORT: String(await freePort()),
    VECTORSTORE_GRPC_PORT: String(await freePort()),
    VECTORSTORE_DATA_DIR: dataDir,
    VECTORSTORE_LOG_LEVEL: 'warn',
    VECTORSTORE_API_KEY: `test-key-${randomBytes(16).toString('hex')}`,
    VECTORSTORE_READ_ONLY_API_KEY: `test-ro-key-${randomBytes(16).toString('hex')}`,
    VECTORSTORE_ADMIN_EMAIL: 'admin@example.com',
    VECTORSTORE_ADMIN_PASSWORD: `pw-${randomBytes(12).toString('hex')}`,
    ...options.env,
  };
  return launch(env, options.nodeArgs ?? []);
}

async function launch(env: Record<string, string>, nodeArgs: string[] = []): Promise<RunningServer> {
  const childEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH, TZ: 'UTC', NODE_ENV: 'test', ...env };
  const child = spawn(process.execPath, [...nodeArgs, SERVER_ENTRY], {
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const httpPort = Number(env.VECTORSTORE_HTTP_PORT);
  const grpcPort = Number(env.VECTORSTORE_GRPC_PORT);
  const httpUrl = `http://127.0.0.1:${httpPort}`;
  await waitUntilReady(child, httpUrl, () => output);
  const server: RunningServer = {
    pid: child.pid ?? -1,
    httpPort,
    grpcPort,
    httpUrl,
    grpcAddress: `127.0.0.1:${grpcPort}`,
    dataDir: env.VECTORSTORE_DATA_DIR,
    apiKey: env.VECTORSTORE_API_KEY ?? '',
    readOnlyApiKey: env.VECTORSTORE_READ_ONLY_API_KEY ?? '',
    adminEmail: env.VECTORSTORE_ADMIN_EMAIL ?? '',
    adminPassword: env.VECTORSTORE_ADMIN_PASSWORD ?? '',
    env,
    output: () => output,
    stop: () => terminate(child, 'SIGTERM'),
    kill: () => terminate(child, 'SIGKILL'),
    restart: async () => {
      await terminate(child, 'SIGTERM');
      return launch(env, nodeArgs);
    },
  };
  return server;
}

async function waitUntilReady(child: ChildProcess, httpUrl: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`server exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${output()}`);
    }
    try {
      const response = await fetch(`${httpUrl}/readyz`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server was not ready within 30 s:\n${output()}`);
}

function terminate(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}
