// A throwaway PostgreSQL cluster for benches: initdb in a temporary folder, its unix socket there too, started
// with pg_ctl on a free port and removed on stop; and the CPU all its processes used, from /proc.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  appendFileSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../test/e2e/support/server-harness';

export interface PgCluster {
  /** The temporary folder: data/, the log, the socket. Readable by the server (COPY from a file here). */
  dir: string;
  /** Where clients connect: the socket folder, or 127.0.0.1 over TCP. */
  host: string;
  /** The superuser's password: TCP connections need it (the socket, in a folder only its owner reads, does not). */
  password: string;
  port: number;
  postmaster: number;
  /** Immediate shutdown (nothing to keep), then the folder is removed. Synchronous, so an exit handler may call it. */
  stop(): void;
}

/** Why a cluster with `extension` cannot be started from `bin`, or undefined when it can. */
export function postgresMissing(bin: string, extension: string): string | undefined {
  if (!existsSync(join(bin, 'initdb')) || !existsSync(join(bin, 'pg_config'))) return `no PostgreSQL in ${bin}`;
  const sharedir = execFileSync(join(bin, 'pg_config'), ['--sharedir'], { encoding: 'utf8' }).trim();
  const control = join(sharedir, 'extension', `${extension}.control`);
  return existsSync(control) ? undefined : `the ${extension} extension is not installed (no ${control})`;
}

/** initdb and postgres refuse to run as root: then the cluster runs as the `postgres` user. */
function clusterUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * A fresh cluster, superuser `postgres`, `settings` appended to postgresql.conf. Trust on the unix socket only
 * (its folder is 0700); over TCP any local user could connect, so there a random password is asked for.
 */
export async function startCluster(bin: string, settings: string[], tcp = false): Promise<PgCluster> {
  const user = clusterUser();
  const dir = mkdtempSync(join(tmpdir(), 'vectorstore-pg-'));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, 'data');
  const pg = (tool: string, args: string[]) =>
    execFileSync(join(bin, tool), args, { cwd: dir, stdio: 'pipe', ...user });
  try {
    const password = randomBytes(18).toString('base64url');
    const pwfile = join(dir, 'pwfile');
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600, flag: 'wx' });
    if (user) chownSync(pwfile, user.uid, user.gid);
    pg('initdb', [
      ...['-D', data, '-U', 'postgres', '--pwfile', pwfile, '--auth-local=trust', '--auth-host=scram-sha-256'],
      ...['-E', 'UTF8', '--locale=C', '--no-sync'],
    ]);
    rmSync(pwfile);
    const port = await freePort();
    const listen = [`port = ${port}`, `listen_addresses = '${tcp ? '127.0.0.1' : ''}'`];
    appendFileSync(
      join(data, 'postgresql.conf'),
      [...listen, `unix_socket_directories = '${dir}'`, ...settings, ''].join('\n'),
    );
    pg('pg_ctl', ['-D', data, '-l', join(dir, 'postgres.log'), '-w', 'start']);
    const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    let stopped = false;
    return {
      dir,
      host: tcp ? '127.0.0.1' : dir,
      password,
      port,
      postmaster,
      stop() {
        if (stopped) return;
        stopped = true;
        try {
          pg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    const log = join(dir, 'postgres.log');
    if (existsSync(log)) process.stderr.write(`\npostgres log (tail):\n${readFileSync(log, 'utf8').slice(-2000)}\n`);
    try {
      // a start that timed out may have left a postmaster behind
      if (existsSync(join(data, 'postmaster.pid'))) pg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
    } catch {
      // not running
    }
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

const TICK_MS = 10; // /proc reports CPU in 1/100 s

/** CPU ms of the postmaster, its live children (backends, workers) and its exited children (cutime, cstime). */
export function postgresCpuMs(postmaster: number): number {
  let ticks = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // fields after "pid (comm) ": ppid is field 4, utime 14, stime 15, cutime 16, cstime 17
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(entry) === postmaster) ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    else if (Number(f[1]) === postmaster) ticks += Number(f[11]) + Number(f[12]);
  }
  return ticks * TICK_MS;
}
