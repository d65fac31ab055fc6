import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { RunningServer, SERVER_ENTRY, startServer } from './support/server-harness';

const LOCK_FILE = 'vectorstore.lock';
const RESTARTS = 50;

/** Scheduler state of a process from /proc (`Z` for a zombie), undefined once it is gone. */
function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/**
 * A server started the way a supervisor script might: in its own process group, by a parent (perl)
 * that does not reap it. Once the group is killed the server stays a zombie until `reap()`, whose
 * pid `kill(pid, 0)` still finds: exactly what fooled the pid-based lock.
 */
interface UnreapedServer {
  /** The server's pid, also its process group id. */
  pid: number;
  parent: ChildProcess;
  output(): string;
  /** Makes the parent reap the server and exit. */
  reap(): Promise<void>;
}

const UNREAPED_PARENT = [
  '$| = 1;',
  'my $child;',
  '$SIG{TERM} = sub { waitpid($child, 0) if $child; exit 0 };',
  'if ($child = fork) { sleep 3600 }',
  'else { setpgrp; print "server pid $$\\n"; exec @ARGV or die "exec: $!" }',
].join(' ');

async function launchUnreaped(env: Record<string, string>): Promise<UnreapedServer> {
  const parent = spawn('perl', ['-e', UNREAPED_PARENT, process.execPath, SERVER_ENTRY], {
    env: { PATH: process.env.PATH, TZ: 'UTC', NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  parent.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  parent.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => parent.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  let match: RegExpExecArray | null;
  while ((match = /server pid (\d+)/.exec(output)) === null) {
    if (Date.now() > deadline || parent.exitCode !== null) throw new Error(`no server pid:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return {
    pid: Number(match[1]),
    parent,
    output: () => output,
    reap: async () => {
      if (parent.exitCode === null && parent.signalCode === null) {
        parent.kill('SIGTERM');
        await exited;
      }
    },
  };
}

/** Polls /readyz until it answers; fails as soon as the server has died. */
async function waitReady(server: UnreapedServer, httpUrl: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const state = processState(server.pid);
    if (state === undefined || state === 'Z') {
      throw new Error(`server ${server.pid} died before it was ready:\n${server.output()}`);
    }
    try {
      if ((await fetch(`${httpUrl}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`server ${server.pid} was not ready within 30 s:\n${server.output()}`);
}

/** The server's descriptors on `file`, with their open flags (octal in /proc). */
function descriptorFlags(pid: number, file: string): number[] {
  return readdirSync(`/proc/${pid}/fd`)
    .filter((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === file;
      } catch {
        return false;
      }
    })
    .map((fd) => Number.parseInt(/^flags:\s+(\d+)$/m.exec(readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'))![1], 8));
}

const describeOnLinux = process.platform === 'linux' ? describe : describe.skip;

describeOnLinux('Data folder lock (e2e)', () => {
  const servers: RunningServer[] = [];
  const unreaped: UnreapedServer[] = [];
  const others: ChildProcess[] = [];
  const dirs: string[] = [];

  const tempDir = () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vectorstore-lock-e2e-'));
    dirs.push(dir);
    return dir;
  };

  afterAll(async () => {
    for (const server of unreaped) killQuietly(-server.pid, 'SIGKILL');
    await Promise.all(unreaped.map((server) => server.reap()));
    await Promise.all(servers.map((server) => server.kill()));
    for (const child of others) child.kill('SIGKILL');
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('should start on a folder whose lock file names a live process that does not hold the lock', async () => {
    const sleeper = spawn('sleep', ['60'], { stdio: 'ignore' });
    others.push(sleeper);
    await new Promise((resolve, reject) => sleeper.once('spawn', resolve).once('error', reject));
    for (const holder of [sleeper.pid!, 1]) {
      const dataDir = tempDir();
      const lockFile = path.join(dataDir, LOCK_FILE);
      writeFileSync(lockFile, String(holder));
      expect(processState(holder)).not.toBe('Z');

      const server = await startServer({ dataDir });
      servers.push(server);

      expect(readFileSync(lockFile, 'utf8')).toBe(String(server.pid));
      // Held through one descriptor, close-on-exec: nothing the server spawns inherits it.
      const flags = descriptorFlags(server.pid, realpathSync(lockFile));
      expect(flags).toHaveLength(1);
      expect(flags[0] & 0o2000000).toBe(0o2000000);
      await server.stop();
    }
  });

  it(`should restart at once after a SIGKILL of the server's process group, before the killed server is reaped (${RESTARTS} times)`, async () => {
    // A first start through the harness gives free ports and credentials to reuse on every restart.
    const template = await startServer({ dataDir: tempDir() });
    servers.push(template);
    await template.stop();
    const { env, httpUrl } = template;

    let current = await launchUnreaped(env);
    unreaped.push(current);
    await waitReady(current, httpUrl);
    const started = Date.now();
    const zombieAtRestart: boolean[] = [];
    for (let i = 0; i < RESTARTS; i++) {
      const killed = current;
      process.kill(-killed.pid, 'SIGKILL');
      current = await launchUnreaped(env);
      unreaped.push(current);
      await waitReady(current, httpUrl);
      // The new server holds the folder while the old one is still an unreaped zombie.
      zombieAtRestart.push(processState(killed.pid) === 'Z');
      expect(readFileSync(path.join(env.VECTORSTORE_DATA_DIR, LOCK_FILE), 'utf8')).toBe(String(current.pid));
      await killed.reap();
    }
    const elapsed = Date.now() - started;
    process.stdout.write(
      `${RESTARTS} restarts after SIGKILL in ${elapsed} ms (${Math.round(elapsed / RESTARTS)} ms each)\n`,
    );

    expect(zombieAtRestart).toEqual(Array.from({ length: RESTARTS }, () => true));
    process.kill(-current.pid, 'SIGKILL');
    await current.reap();
  }, 600_000); // 50 server starts: about 1.5–2.5 s each on 2 busy cores

  it('should run exactly one of two servers started at once on one folder, and refuse the other with a clear message', async () => {
    const dataDir = tempDir();
    const lockFile = path.join(dataDir, LOCK_FILE);

    const results = await Promise.allSettled([startServer({ dataDir }), startServer({ dataDir })]);

    const running = results.filter((r): r is PromiseFulfilledResult<RunningServer> => r.status === 'fulfilled');
    servers.push(...running.map((r) => r.value));
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(running).toHaveLength(1);
    expect(refused).toHaveLength(1);
    const message = (refused[0].reason as Error).message;
    expect(message).toContain('server exited (1) before it was ready');
    expect(message).toContain(
      `vectorstore failed to start: data folder ${dataDir} is in use by another vectorstore server (pid ${running[0].value.pid}; lock ${lockFile})`,
    );
    expect(message).not.toMatch(/^\s+at /m);
    expect(readFileSync(lockFile, 'utf8')).toBe(String(running[0].value.pid));
  });
});
