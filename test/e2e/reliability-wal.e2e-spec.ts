import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { serialize } from 'node:v8';
import { WriteAheadLog } from '../../libs/points/src/wal/write-ahead-log';
import { RunningServer, startServer } from './support/server-harness';

// The official REST client, unchanged (CommonJS build; runs on Node 20 despite its engines field).
const { QdrantClient } = require('@qdrant/js-client-rest') as typeof import('@qdrant/js-client-rest');

jest.setTimeout(120_000);

type Client = InstanceType<typeof QdrantClient>;

const DIM = 4;
const vectorOf = (id: number): number[] => [id, 1, 0.5, -id / 10];

/** Issue 28, item 4: the write-ahead log never reuses an op number and never skips a record it cannot read. */
describe('Reliability: the write-ahead log (e2e)', () => {
  let server: RunningServer | undefined;
  let client: Client;

  const connect = (running: RunningServer): void => {
    server = running;
    client = new QdrantClient({ url: running.httpUrl, apiKey: running.apiKey, checkCompatibility: false });
  };
  const createCollection = (name: string) => client.createCollection(name, { vectors: { size: DIM, distance: 'Dot' } });
  const upsert = async (name: string, id: number): Promise<number> => {
    const result = await client.upsert(name, { wait: true, points: [{ id, vector: vectorOf(id), payload: { id } }] });
    expect(result.status).toBe('completed');
    return result.operation_id!;
  };
  const ids = async (name: string): Promise<number[]> =>
    (await client.scroll(name, { limit: 100 })).points.map((p) => Number(p.id)).sort((a, b) => a - b);
  const collectionsDir = () => path.join(server!.dataDir, 'collections');
  /** The collection folders, so that a test can tell which one a new collection got. */
  const folders = async (): Promise<Set<string>> => new Set(await fs.readdir(collectionsDir()).catch(() => []));
  /** The WAL folder of the one shard of the collection in `folder`. */
  const walDirOf = async (folder: string): Promise<string> => {
    const shardsDir = path.join(collectionsDir(), folder, 'shards');
    const shards = await fs.readdir(shardsDir);
    expect(shards).toHaveLength(1);
    return path.join(shardsDir, shards[0], 'wal');
  };
  const newFolder = async (before: Set<string>): Promise<string> => {
    const added = [...(await folders())].filter((name) => !before.has(name));
    expect(added).toHaveLength(1);
    return added[0];
  };
  const raw = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${server!.httpUrl}${route}`, {
      method,
      headers: { 'api-key': server!.apiKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, text: await response.text() };
  };

  afterEach(async () => {
    if (process.env.E2E_SERVER_LOG) process.stdout.write(server?.output() ?? '');
    await server?.stop();
    if (server) await fs.rm(server.dataDir, { recursive: true, force: true });
    server = undefined;
  });

  it('should take writes after a torn last record, with op numbers rising across restarts', async () => {
    connect(await startServer());
    const before = await folders();
    await createCollection('torn');
    const folder = await newFolder(before);
    const opIds: number[] = [];
    for (let id = 1; id <= 5; id++) opIds.push(await upsert('torn', id));

    // A clean stop flushes the segments (they hold every op); then the newest segment file loses its last bytes.
    await server!.stop();
    const walDir = await walDirOf(folder);
    const segments = (await fs.readdir(walDir)).filter((name) => /^\d{20}\.wal$/.test(name)).sort();
    const newest = path.join(walDir, segments[segments.length - 1]);
    const { size } = await fs.stat(newest);
    expect(size).toBeGreaterThan(16);
    await fs.truncate(newest, size - 7);

    connect(await server!.restart());
    expect(await ids('torn')).toEqual([1, 2, 3, 4, 5]);
    opIds.push(await upsert('torn', 6)); // answered 500 "op N is already applied" before the fix
    opIds.push(await upsert('torn', 7));

    connect(await server!.restart());
    opIds.push(await upsert('torn', 8));
    // Killed: the next start replays the log instead of loading flushed segments.
    opIds.push(await upsert('torn', 9));
    await server!.kill();
    connect(await server!.restart());
    opIds.push(await upsert('torn', 10));

    expect(await ids('torn')).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (let i = 1; i < opIds.length; i++) expect(opIds[i]).toBeGreaterThan(opIds[i - 1]);
    const info = await client.getCollection('torn');
    expect(info.status).toBe('green');
  });

  it('should refuse a collection whose log holds a record it cannot decode, naming the file, and serve the others', async () => {
    connect(await startServer());
    const before = await folders();
    await createCollection('broken');
    const folder = await newFolder(before);
    await createCollection('fine');
    for (let id = 1; id <= 3; id++) {
      await upsert('broken', id);
      await upsert('fine', id);
    }
    await server!.stop();

    // A record of an operation kind this version does not know (as a newer version could have written),
    // past the flushed ops, so the next start must replay it; then one good upsert after it.
    const walDir = await walDirOf(folder);
    const log = await WriteAheadLog.open({
      dir: walDir,
      segmentCapacityBytes: 32 << 20,
      segmentsAhead: 0,
      retainClosed: 1,
    });
    const unknownOp = await log.append(serialize({ v: 1, operation: { frobnicate: { points: [] } } }));
    const point = { id: 4n, vectors: { '': { kind: 'dense', values: Float32Array.from(vectorOf(4)) } }, payload: {} };
    await log.append(serialize({ v: 1, operation: { upsert: { points: [point] } } }));
    const file = log.fileOf(unknownOp)!;
    await log.close();
    expect(path.dirname(file)).toBe(walDir);

    connect(await server!.restart());
    // The collection refuses reads and writes with the reason: the file and the op number.
    for (const [method, route, body] of [
      ['POST', '/collections/broken/points/scroll', { limit: 10 }],
      ['PUT', '/collections/broken/points?wait=true', { points: [{ id: 9, vector: vectorOf(9) }] }],
    ] as const) {
      const answer = await raw(method, route, body);
      expect(answer.status).toBe(500);
      expect(answer.text).toContain(file);
      expect(answer.text).toContain(`op ${unknownOp}`);
      expect(answer.text).toContain('frobnicate');
    }
    expect(server!.output()).toContain(file);

    // The other collection serves reads and writes as before.
    expect(await ids('fine')).toEqual([1, 2, 3]);
    await upsert('fine', 4);
    expect(await ids('fine')).toEqual([1, 2, 3, 4]);

    // Nothing was skipped or repaired away: the next start refuses the same way.
    connect(await server!.restart());
    expect((await raw('POST', '/collections/broken/points/scroll', { limit: 10 })).text).toContain(file);
    expect(await ids('fine')).toEqual([1, 2, 3, 4]);
  });
});
