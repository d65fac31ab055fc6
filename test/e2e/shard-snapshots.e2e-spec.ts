import { createHash } from 'node:crypto';
import { RunningServer, startServer } from './support/server-harness';

jest.setTimeout(120_000);

const DIM = 4;

interface Answer {
  status: number;
  json: { result?: unknown; status?: unknown };
}

async function rest(server: RunningServer, method: string, route: string, body?: unknown, apiKey = server.apiKey) {
  const response = await fetch(`${server.httpUrl}${route}`, {
    method,
    headers: { 'api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Answer['json']) : {} };
}

async function download(server: RunningServer, route: string): Promise<Buffer> {
  const response = await fetch(`${server.httpUrl}${route}`, { headers: { 'api-key': server.apiKey } });
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

async function upload(server: RunningServer, route: string, archive: Buffer): Promise<Answer> {
  const form = new FormData();
  form.append('snapshot', new Blob([new Uint8Array(archive)]), 'shard.snapshot');
  const response = await fetch(`${server.httpUrl}${route}`, {
    method: 'POST',
    headers: { 'api-key': server.apiKey },
    body: form,
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as Answer['json']) : {} };
}

async function createCollection(server: RunningServer, name: string, shards: number, dim = DIM): Promise<void> {
  const created = await rest(server, 'PUT', `/collections/${name}`, {
    vectors: { size: dim, distance: 'Dot' },
    shard_number: shards,
  });
  expect(created.status).toBe(200);
}

async function upsert(server: RunningServer, name: string, ids: number[], tag: string): Promise<void> {
  const answer = await rest(server, 'PUT', `/collections/${name}/points?wait=true`, {
    points: ids.map((id) => ({ id, vector: [id, 1, 0, 0], payload: { tag } })),
  });
  expect(answer.status).toBe(200);
}

/** id → tag of every point. */
async function tags(server: RunningServer, name: string): Promise<Map<number, string>> {
  const answer = await rest(server, 'POST', `/collections/${name}/points/scroll`, { limit: 1000, with_payload: true });
  expect(answer.status).toBe(200);
  const points = (answer.json.result as { points: Array<{ id: number; payload: { tag: string } }> }).points;
  return new Map(points.map((p) => [p.id, p.payload.tag]));
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('Shard snapshots (e2e)', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('should restore one shard to its snapshot, keep the other shard, and keep that across a restart', async () => {
    await createCollection(server, 'two', 2);
    await upsert(server, 'two', range(1, 40), 'old');
    const created = await rest(server, 'POST', '/collections/two/shards/1/snapshots');
    expect(created.status).toBe(200);
    const { name, checksum } = created.json.result as { name: string; checksum: string };
    expect(name).toMatch(/^two-shard-1-.*\.snapshot$/);
    const listed = await rest(server, 'GET', '/collections/two/shards/1/snapshots');
    expect(listed.json.result).toEqual([expect.objectContaining({ name, checksum })]);
    expect((await rest(server, 'GET', '/collections/two/shards/0/snapshots')).json.result).toEqual([]);
    const archive = await download(server, `/collections/two/shards/1/snapshots/${name}`);
    expect(createHash('sha256').update(archive).digest('hex')).toBe(checksum);

    // After the snapshot: every point changes, and new ones come.
    await upsert(server, 'two', range(1, 60), 'new');
    const restored = await upload(server, `/collections/two/shards/1/snapshots/upload?checksum=${checksum}`, archive);
    expect(restored).toEqual({ status: 200, json: expect.objectContaining({ result: true, status: 'ok' }) });

    const check = async (): Promise<void> => {
      const after = await tags(server, 'two');
      const old = range(1, 60).filter((id) => after.get(id) === 'old');
      const kept = range(1, 60).filter((id) => after.get(id) === 'new');
      const gone = range(1, 60).filter((id) => !after.has(id));
      // Shard 1's points are back as they were (old, or absent when written after the snapshot);
      // shard 0's points keep the later writes.
      expect(old.length).toBeGreaterThan(0);
      expect(kept.length).toBeGreaterThan(0);
      expect(old.every((id) => id <= 40)).toBe(true);
      expect(gone.every((id) => id > 40)).toBe(true);
      expect(old.length + kept.length + gone.length).toBe(60);
      expect(kept.filter((id) => id <= 40).length + old.length).toBe(40);
    };
    await check();
    const before = await tags(server, 'two');
    server = await server.restart();
    expect(await tags(server, 'two')).toEqual(before);
    await check();
    // The restored shard takes writes again.
    await upsert(server, 'two', [1000], 'later');
    expect((await tags(server, 'two')).get(1000)).toBe('later');
  });

  it('should refuse archives that do not fit, and leave the shard untouched', async () => {
    await createCollection(server, 'target', 1);
    await upsert(server, 'target', range(1, 5), 'target');
    await createCollection(server, 'wide', 1, DIM + 4);
    const wide = await rest(server, 'POST', '/collections/wide/shards/0/snapshots');
    const wideArchive = await download(
      server,
      `/collections/wide/shards/0/snapshots/${(wide.json.result as { name: string }).name}`,
    );
    const mismatch = await upload(server, '/collections/target/shards/0/snapshots/upload', wideArchive);
    expect(mismatch.status).toBe(400);
    expect(JSON.stringify(mismatch.json)).toContain('vectors config differs');

    const whole = await rest(server, 'POST', '/collections/target/snapshots');
    const wholeArchive = await download(
      server,
      `/collections/target/snapshots/${(whole.json.result as { name: string }).name}`,
    );
    const kind = await upload(server, '/collections/target/shards/0/snapshots/upload', wholeArchive);
    expect(kind.status).toBe(400);
    expect(JSON.stringify(kind.json)).toContain('a collection snapshot cannot restore a shard');

    const badChecksum = await upload(server, '/collections/target/shards/0/snapshots/upload?checksum=abc', wideArchive);
    expect(badChecksum.status).toBe(422);
    expect(JSON.stringify(badChecksum.json)).toContain('invalid_sha256_hash');

    expect((await rest(server, 'GET', '/collections/target/shards/7/snapshots')).status).toBe(404);
    expect((await rest(server, 'POST', '/collections/target/shards/x/snapshots')).status).toBe(400);
    expect((await rest(server, 'GET', '/collections/target/shards/0/snapshots/..%2F..%2Fetc%2Fpasswd')).status).toBe(
      404,
    );
    expect([...(await tags(server, 'target')).values()]).toEqual(Array(5).fill('target'));
  });

  it('should serve the partial manifest, stamp it with the last op, and check access', async () => {
    await createCollection(server, 'partial', 1);
    await upsert(server, 'partial', [1, 2], 'p');
    const deleted = await rest(server, 'POST', '/collections/partial/points/vectors/delete?wait=true', {
      points: [1],
      vector: [''],
    });
    const operation = (deleted.json.result as { operation_id: number }).operation_id;
    const manifest = await rest(server, 'GET', '/collections/partial/shards/0/snapshot/partial/manifest');
    expect(manifest.status).toBe(200);
    const versions = Object.values(manifest.json.result as Record<string, { file_versions: Record<string, number> }>)
      .flatMap((segment) => Object.entries(segment.file_versions))
      .filter(([part]) => part.startsWith('vector_storage/'))
      .map(([, version]) => version);
    expect(Math.max(...versions)).toBeGreaterThanOrEqual(operation);

    const readOnly = server.readOnlyApiKey;
    expect((await rest(server, 'GET', '/collections/partial/shards/0/snapshots', undefined, readOnly)).status).toBe(
      200,
    );
    expect((await rest(server, 'POST', '/collections/partial/shards/0/snapshots', undefined, readOnly)).status).toBe(
      403,
    );
  });
});
