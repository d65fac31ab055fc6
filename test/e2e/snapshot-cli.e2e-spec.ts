import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, promises as fs, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT, RunningServer, startServer } from './support/server-harness';

jest.setTimeout(120_000);

const CLI = path.join(REPO_ROOT, 'dist', 'apps', 'server', 'src', 'cli', 'snapshot.cli.js');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI as an operator would, with only the server's URL and key from the environment. */
function cli(server: RunningServer, args: string[], apiKey = server.apiKey, cwd?: string): Promise<Run> {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, VECTORSTORE_API_KEY: apiKey };
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args, '--url', server.httpUrl], { env, cwd }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

async function rest(server: RunningServer, method: string, route: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${server.httpUrl}${route}`, {
    method,
    headers: { 'api-key': server.apiKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: unknown }).result;
}

async function payloads(server: RunningServer, name: string): Promise<Record<string, unknown>> {
  const result = (await rest(server, 'POST', `/collections/${name}/points/scroll`, { limit: 1000 })) as {
    points: Array<{ id: number; payload: unknown }>;
  };
  return Object.fromEntries(result.points.map((p) => [p.id, p.payload]));
}

describe('npm run snapshot (e2e)', () => {
  let server: RunningServer;
  let work: string;

  beforeAll(async () => {
    server = await startServer();
    work = mkdtempSync(path.join(tmpdir(), 'vectorstore-snapshot-cli-'));
    await rest(server, 'PUT', '/collections/books', { vectors: { size: 4, distance: 'Cosine' } });
    await rest(server, 'PUT', '/collections/books/points?wait=true', {
      points: Array.from({ length: 200 }, (_, i) => ({ id: i + 1, vector: [1, i, 2, 3], payload: { n: i } })),
    });
  });

  afterAll(async () => {
    await server?.stop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('should create, list, download, restore (in place and into a new collection) and delete', async () => {
    const created = await cli(server, ['create', 'books']);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const name = /^Created (\S+\.snapshot)\s/.exec(created.stdout)?.[1];
    expect(name).toBeDefined();

    const listed = await cli(server, ['list', 'books']);
    expect(listed.code).toBe(0);
    const checksum = /sha256 ([0-9a-f]{64})/.exec(listed.stdout)?.[1];
    expect(listed.stdout).toContain(name!);

    const downloaded = await cli(server, ['download', 'books', name!, '--out', 'books.snapshot'], undefined, work);
    expect(downloaded.code).toBe(0);
    const file = path.join(work, 'books.snapshot');
    expect(
      createHash('sha256')
        .update(await fs.readFile(file))
        .digest('hex'),
    ).toBe(checksum);
    // Progress: the non-terminal form still reports the transfer (its last line at least).
    expect(downloaded.stderr).toMatch(/download .*100%/);

    const before = await payloads(server, 'books');
    await rest(server, 'POST', '/collections/books/points/payload?wait=true', { payload: { n: -1 }, points: [1, 2] });
    await rest(server, 'POST', '/collections/books/points/delete?wait=true', { points: [3, 4, 5] });
    const restored = await cli(server, ['restore', 'books', 'books.snapshot'], undefined, work);
    expect(restored).toMatchObject({ code: 0, stdout: expect.stringContaining('Restored collection books') });
    expect(restored.stderr).toMatch(/upload .*100%/);
    expect(await payloads(server, 'books')).toEqual(before);

    expect((await cli(server, ['restore', 'copy', file])).code).toBe(0);
    expect(await payloads(server, 'copy')).toEqual(before);

    expect((await cli(server, ['delete', 'books', name!])).code).toBe(0);
    expect((await cli(server, ['list', 'books'])).stdout.trim()).toBe('No snapshots');
  });

  it('should serve shard and full snapshots', async () => {
    const shard = await cli(server, ['create', 'books', '--shard', '0']);
    expect(shard.stdout).toMatch(/^Created books-shard-0-/);
    expect((await cli(server, ['list', 'books', '--shard', '0'])).stdout).toContain('books-shard-0-');
    await rest(server, 'POST', '/collections/aliases', {
      actions: [{ create_alias: { collection_name: 'books', alias_name: 'novels' } }],
    });
    const before = await payloads(server, 'books');
    const full = await cli(server, ['create', '--full']);
    expect(full.stdout).toMatch(/^Created full-snapshot-/);
    const name = /^Created (\S+)/.exec(full.stdout)![1];
    expect((await cli(server, ['list', '--full'])).stdout).toContain(name);
    expect((await cli(server, ['download', '--full', name, '--out', 'full.snapshot'], undefined, work)).code).toBe(0);

    // Lose the collection and its alias, change another one; a full restore brings back what it holds.
    await rest(server, 'DELETE', '/collections/books');
    await rest(server, 'PUT', '/collections/extra', { vectors: { size: 4, distance: 'Dot' } });
    const restored = await cli(server, ['restore', '--full', 'full.snapshot'], undefined, work);
    expect(restored).toMatchObject({ code: 0, stdout: expect.stringContaining('Restored the full snapshot') });
    expect(await payloads(server, 'books')).toEqual(before);
    expect(await payloads(server, 'novels')).toEqual(before);
    // A collection the snapshot does not hold is left alone.
    expect(await rest(server, 'GET', '/collections/extra/exists')).toEqual({ exists: true });

    // A collection archive is not a full one.
    const made = await cli(server, ['create', 'books']);
    const collectionSnapshot = /^Created (\S+)/.exec(made.stdout)![1];
    await cli(server, ['download', 'books', collectionSnapshot, '--out', 'one.snapshot'], undefined, work);
    const refused = await cli(server, ['restore', '--full', 'one.snapshot'], undefined, work);
    expect(refused).toMatchObject({ code: 1, stderr: expect.stringContaining('is not a full snapshot') });
  });

  it('should make and restore a cluster backup with --cluster (a standalone server holds every shard)', async () => {
    const before = await payloads(server, 'books');
    const made = await cli(server, ['create', '--cluster', 'books']);
    expect(made.stdout).toMatch(/^Created cluster-backup-/);
    const name = /^Created (\S+)/.exec(made.stdout)![1];
    expect((await cli(server, ['list', '--cluster'])).stdout).toContain(name);
    expect((await cli(server, ['list', '--full'])).stdout).not.toContain(name);
    expect(
      (await cli(server, ['download', '--cluster', name, '--out', 'cluster.snapshot'], undefined, work)).code,
    ).toBe(0);
    await rest(server, 'DELETE', '/collections/books');
    const restored = await cli(server, ['restore', '--cluster', 'cluster.snapshot'], undefined, work);
    expect(restored).toMatchObject({ code: 0, stdout: expect.stringContaining('Restored the cluster backup') });
    expect(await payloads(server, 'books')).toEqual(before);
    expect((await cli(server, ['delete', '--cluster', name])).code).toBe(0);
    expect((await cli(server, ['create', '--cluster', '--full'])).code).toBe(2);
  });

  it('should exit 2 on usage errors and 1 with the server message on refusals', async () => {
    expect(await cli(server, ['frobnicate'])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('unknown command'),
    });
    expect((await cli(server, ['create'])).code).toBe(2);
    expect((await cli(server, ['list', 'books', '--shard', 'x'])).code).toBe(2);
    expect((await cli(server, ['restore', 'books', path.join(work, 'nope.snapshot')])).code).toBe(2);
    const denied = await cli(server, ['list', 'books'], 'a-wrong-key-of-some-length');
    expect(denied).toMatchObject({ code: 1, stderr: expect.stringContaining('HTTP 401') });
    const missing = await cli(server, ['list', 'nothing']);
    expect(missing).toMatchObject({ code: 1, stderr: expect.stringContaining('HTTP 404') });
    const readOnly = await cli(server, ['create', 'books'], server.readOnlyApiKey);
    expect(readOnly).toMatchObject({ code: 1, stderr: expect.stringContaining('HTTP 403') });
  });
});
