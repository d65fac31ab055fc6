import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { ProgressListener, SnapshotClient } from './snapshot-client';

export const SNAPSHOT_USAGE = `Back up and restore through a running vectorstore server (its REST API).

Usage: npm run snapshot -- <command> [arguments] [options]

  create <collection> | --full            make a snapshot on the server; prints its name
  list <collection> | --full              the snapshots on the server
  download <collection> <name> [--out FILE] | --full <name> [--out FILE]
                                          fetch a snapshot into FILE (default: ./<name>)
  restore <collection> <file> [--priority snapshot|replica|no_sync] | --full <file>
                                          upload a snapshot file and restore the collection from it
                                          (made when absent, replaced when present); --full restores
                                          every collection of a full snapshot and its aliases
  delete <collection> <name> | --full <name>

  create --cluster [collection...]        back up every shard of the cluster once (or of the named
                                          collections) into one archive on the server
  list | download | restore | delete --cluster ...
                                          as with --full, for cluster backups: a restore makes the
                                          collections again on this cluster, whatever its size

Options:
  --shard N         the snapshots of shard N of the collection (create, list, download, restore, delete)
  --url URL         the server's REST address (default http://127.0.0.1:$VECTORSTORE_HTTP_PORT, else :6333)
  --api-key KEY     the API key (default $VECTORSTORE_API_KEY); prefer the variable, arguments are
                    visible to other local users

Downloads and uploads show a progress bar on a terminal (a line every few seconds otherwise).
A restore first hashes the file and sends the sha256, so a file damaged on the way is refused.`;

export class SnapshotUsageError extends Error {}

/** Creates a progress display for a transfer; `finish` ends it. */
export type ProgressFactory = (label: string) => { update: ProgressListener; finish(): void };

export interface SnapshotCliContext {
  client: SnapshotClient;
  progress: ProgressFactory;
  cwd: string;
}

interface Description {
  name: string;
  creation_time?: string | null;
  size: number;
  checksum?: string;
}

/** Runs one CLI command; returns what to print on stdout. */
export async function runSnapshotCommand(argv: readonly string[], context: SnapshotCliContext): Promise<string> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      full: { type: 'boolean' },
      cluster: { type: 'boolean' },
      shard: { type: 'string' },
      out: { type: 'string' },
      priority: { type: 'string' },
      url: { type: 'string' },
      'api-key': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || command === undefined || command === 'help') return SNAPSHOT_USAGE;
  const cluster = values.cluster === true;
  if (cluster && (values.full === true || values.shard !== undefined))
    throw new SnapshotUsageError('--cluster goes with neither --full nor --shard');
  // A cluster backup is used as a full snapshot is, at its own route.
  const full = values.full === true || cluster;
  if (full && values.shard !== undefined) throw new SnapshotUsageError('--full and --shard do not go together');
  const shard = values.shard === undefined ? undefined : parseShard(values.shard);
  /** The snapshots route of the scope: `/snapshots`, `/collections/c/snapshots` or `/collections/c/shards/s/snapshots`. */
  const routeOf = (collection: string | undefined): string => {
    if (cluster) return '/backups';
    if (full) return '/snapshots';
    const base = `/collections/${encodeURIComponent(collection!)}`;
    return shard === undefined ? `${base}/snapshots` : `${base}/shards/${shard}/snapshots`;
  };
  const { client } = context;
  switch (command) {
    case 'create': {
      if (cluster) {
        const made = await client.call<Description>(
          'POST',
          '/backups?wait=true',
          rest.length ? { collections: rest } : {},
        );
        return `Created ${describeSnapshot(made)}`;
      }
      const [collection] = full
        ? expectArgs(rest, 0, 0, 'create --full')
        : expectArgs(rest, 1, 1, 'create <collection>');
      const made = await client.call<Description>('POST', `${routeOf(collection)}?wait=true`);
      return `Created ${describeSnapshot(made)}`;
    }
    case 'list': {
      const [collection] = full ? expectArgs(rest, 0, 0, 'list --full') : expectArgs(rest, 1, 1, 'list <collection>');
      const listed = await client.call<Description[]>('GET', routeOf(collection));
      return listed.length === 0 ? 'No snapshots' : listed.map(describeSnapshot).join('\n');
    }
    case 'download': {
      const [collection, name] = full
        ? [undefined, expectArgs(rest, 1, 1, 'download --full <name>')[0]]
        : expectArgs(rest, 2, 2, 'download <collection> <name>');
      const file = path.resolve(context.cwd, values.out ?? path.basename(name));
      const bar = context.progress(`download ${name}`);
      let bytes: number;
      try {
        bytes = await client.download(`${routeOf(collection)}/${encodeURIComponent(name)}`, file, bar.update);
      } finally {
        bar.finish();
      }
      return `Downloaded ${name} (${formatBytes(bytes)}) to ${file}`;
    }
    case 'restore': {
      const [collection, file] = full
        ? [undefined, expectArgs(rest, 1, 1, 'restore --full <file>')[0]]
        : expectArgs(rest, 2, 2, 'restore <collection> <file>');
      const source = path.resolve(context.cwd, file);
      const hashing = context.progress(`check ${path.basename(source)}`);
      let checksum: string;
      try {
        checksum = await sha256OfFile(source, hashing.update);
      } finally {
        hashing.finish();
      }
      const query = new URLSearchParams({ wait: 'true', checksum });
      if (values.priority !== undefined) query.set('priority', values.priority);
      const sending = context.progress(`upload ${path.basename(source)}`);
      try {
        await client.upload(`${routeOf(collection)}/upload?${query}`, source, sending.update);
      } finally {
        sending.finish();
      }
      const what = cluster
        ? 'the cluster backup'
        : full
          ? 'the full snapshot'
          : shard === undefined
            ? `collection ${collection}`
            : `shard ${shard} of collection ${collection}`;
      return `Restored ${what} from ${source}`;
    }
    case 'delete': {
      const [collection, name] = full
        ? [undefined, expectArgs(rest, 1, 1, 'delete --full <name>')[0]]
        : expectArgs(rest, 2, 2, 'delete <collection> <name>');
      await client.call('DELETE', `${routeOf(collection)}/${encodeURIComponent(name)}?wait=true`);
      return `Deleted ${name}`;
    }
    default:
      throw new SnapshotUsageError(`unknown command \`${command}\`\n\n${SNAPSHOT_USAGE}`);
  }
}

function parseShard(text: string): number {
  if (!/^\d{1,10}$/.test(text) || Number(text) > 0xffff_ffff) {
    throw new SnapshotUsageError(`--shard must be a shard id (0 to 4294967295), got \`${text}\``);
  }
  return Number(text);
}

function expectArgs(args: string[], min: number, max: number, usage: string): string[] {
  if (args.length < min || args.length > max) throw new SnapshotUsageError(`usage: npm run snapshot -- ${usage}`);
  return args;
}

function describeSnapshot(snapshot: Description): string {
  const parts = [snapshot.name, formatBytes(snapshot.size), snapshot.creation_time ?? 'unknown time'];
  if (snapshot.checksum) parts.push(`sha256 ${snapshot.checksum}`);
  return parts.join('  ');
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

async function sha256OfFile(file: string, progress: ProgressListener): Promise<string> {
  const { size } = await fs.stat(file).catch(() => {
    throw new SnapshotUsageError(`no such file: ${file}`);
  });
  const hash = createHash('sha256');
  const handle = await fs.open(file, 'r');
  try {
    let done = 0;
    for await (const chunk of handle.createReadStream({ highWaterMark: 1 << 20 })) {
      hash.update(chunk as Buffer);
      done += (chunk as Buffer).length;
      progress(done, size);
    }
  } finally {
    await handle.close();
  }
  return hash.digest('hex');
}
