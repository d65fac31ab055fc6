import * as grpc from '@grpc/grpc-js';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { manifestEntry, TAR_END, tarEntry, writeArchive } from '../../libs/snapshots/src/testing/snapshot-fixtures';
import { Rng } from '../support/seeded-random';
import {
  CollectionsClient,
  createClient,
  createCollectionsClient,
  createPointsClient,
  credentials,
  unary,
} from './support/grpc-clients';
import { caller, fetchPoints, JsonObject, pid, pointProblems, toPayload } from './support/points-helpers';
import { RunningServer, startServer } from './support/server-harness';

jest.setTimeout(120_000);

const DIM = 8;
const WRITERS = 4;
const BATCH = 10;

/** The vector and payload of point `id`: a pure function of the id. */
function pointOf(id: number): { vector: number[]; payload: JsonObject } {
  const rng = new Rng(id * 7919 + 13);
  return { vector: rng.vector(DIM), payload: { i: id, tag: `t${id % 7}` } };
}

const struct = (id: number) => {
  const p = pointOf(id);
  return { id: pid(id), vectors: { vector: { dense: { data: p.vector } } }, payload: toPayload(p.payload) };
};

interface Clients {
  points: grpc.Client;
  collections: CollectionsClient;
  snapshots: grpc.Client;
  close(): void;
}

function connect(server: RunningServer): Clients {
  const metadata = credentials(server.apiKey);
  const points = createPointsClient(server.grpcAddress, metadata);
  const collections = createCollectionsClient(server.grpcAddress, metadata);
  const snapshots = createClient(server.grpcAddress, 'qdrant.Snapshots', metadata, 'qdrant');
  return {
    points,
    collections,
    snapshots,
    close: () => [points, collections, snapshots].forEach((c) => c.close()),
  };
}

async function rest(
  server: RunningServer,
  method: string,
  route: string,
  body?: unknown,
  apiKey = server.apiKey,
): Promise<{ status: number; json: { result?: unknown; status?: unknown } }> {
  const response = await fetch(`${server.httpUrl}${route}`, {
    method,
    headers: { 'api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as { result?: unknown }) : {} };
}

async function createCollection(clients: Clients, name: string, shardNumber = 2): Promise<void> {
  await unary(clients.collections, 'Create', {
    collectionName: name,
    vectorsConfig: { params: { size: DIM, distance: 'Dot' } },
    shardNumber,
  });
}

async function upsert(clients: Clients, name: string, ids: number[]): Promise<void> {
  await caller(clients.points)('Upsert', { collectionName: name, wait: true, points: ids.map(struct) });
}

async function count(clients: Clients, name: string): Promise<number> {
  const { result } = await caller(clients.points)<{ result: { count: string } }>('Count', {
    collectionName: name,
    exact: true,
  });
  return Number(result.count);
}

describe('Collection snapshots (e2e)', () => {
  let first: RunningServer;
  let second: RunningServer;
  let a: Clients;
  let b: Clients;

  beforeAll(async () => {
    [first, second] = await Promise.all([startServer(), startServer()]);
    a = connect(first);
    b = connect(second);
  });

  afterAll(async () => {
    a?.close();
    b?.close();
    await Promise.all([first?.stop(), second?.stop()]);
  });

  it('should snapshot under 4 concurrent writers and restore every acknowledged point on a fresh server', async () => {
    await createCollection(a, 'busy');
    const acknowledged = new Set<number>();
    let stop = false;
    let snapshotStarted = false;
    const ackedBeforeSnapshot: number[] = [];
    const batchesOf = new Map<number, number[]>();
    const writer = async (w: number): Promise<void> => {
      for (let round = 0; !stop; round++) {
        const ids = Array.from({ length: BATCH }, (_, k) => (round * WRITERS + w) * BATCH + k + 1);
        ids.forEach((id) => batchesOf.set(id, ids));
        await upsert(a, 'busy', ids);
        ids.forEach((id) => acknowledged.add(id));
        if (!snapshotStarted) ackedBeforeSnapshot.push(...ids);
      }
    };
    const writers = Array.from({ length: WRITERS }, (_, w) => writer(w));
    while (acknowledged.size < 400) await new Promise((resolve) => setTimeout(resolve, 10));
    snapshotStarted = true;
    const created = await rest(first, 'POST', '/collections/busy/snapshots').finally(() =>
      setTimeout(() => (stop = true), 200),
    );
    expect(created.status).toBe(200);
    const description = created.json.result as { name: string; size: number; checksum: string };
    expect(description.name).toMatch(/^busy-\d+-\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d(-\d+)?\.snapshot$/);
    // Writers went on while the archive was written.
    const afterSnapshot = acknowledged.size;
    await Promise.all(writers);
    expect(acknowledged.size).toBeGreaterThan(afterSnapshot);

    const listed = await rest(first, 'GET', '/collections/busy/snapshots');
    expect(listed.json.result).toEqual([expect.objectContaining({ name: description.name, size: description.size })]);

    // Download, put it in the second server's snapshots folder, recover from file://.
    const download = await fetch(`${first.httpUrl}/collections/busy/snapshots/${description.name}`, {
      headers: { 'api-key': first.readOnlyApiKey },
    });
    expect(download.status).toBe(200);
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(bytes.length).toBe(description.size);
    const target = path.join(second.dataDir, 'snapshots', description.name);
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.writeFile(target, bytes);
    const recovered = await rest(second, 'PUT', '/collections/restored/snapshots/recover', {
      location: `file://${target}`,
      checksum: description.checksum,
    });
    expect(recovered).toEqual({ status: 200, json: expect.objectContaining({ result: true, status: 'ok' }) });

    const restoredCount = await count(b, 'restored');
    expect(restoredCount).toBeGreaterThanOrEqual(ackedBeforeSnapshot.length);
    const found = await fetchPoints(b.points, 'restored', [...acknowledged]);
    expect(found.size).toBe(restoredCount);
    expect(pointProblems(found, ackedBeforeSnapshot, pointOf)).toEqual([]);
    expect(
      pointProblems(
        found,
        [...found.keys()].map((k) => Number(k.slice(2))),
        pointOf,
      ),
    ).toEqual([]);
    // No half-applied upsert: each batch is all there or not at all.
    for (const key of found.keys()) {
      const batch = batchesOf.get(Number(key.slice(2)))!;
      expect(batch.filter((id) => !found.has(`n:${id}`))).toEqual([]);
    }
    // The restored collection takes writes again, continuing its log.
    await upsert(b, 'restored', [999_999]);
    expect(await count(b, 'restored')).toBe(restoredCount + 1);
    const info = await rest(second, 'GET', '/collections/restored');
    expect(info.json.result).toMatchObject({ config: { params: { shard_number: 2 } } });
  });

  it('should replace an existing collection, and survive a restart of the restored server', async () => {
    await createCollection(a, 'source', 1);
    await upsert(a, 'source', [1, 2, 3]);
    const { snapshotDescription } = await unary<object, { snapshotDescription: { name: string } }>(
      a.snapshots,
      'Create',
      { collectionName: 'source' },
    );
    const bytes = Buffer.from(
      await (
        await fetch(`${first.httpUrl}/collections/source/snapshots/${snapshotDescription.name}`, {
          headers: { 'api-key': first.apiKey },
        })
      ).arrayBuffer(),
    );
    const file = path.join(second.dataDir, 'snapshots', 'source.snapshot');
    await fs.writeFile(file, bytes);

    await createCollection(b, 'target', 3);
    await upsert(b, 'target', [10, 11, 12, 13]);
    await unary(b.collections, 'UpdateAliases', {
      actions: [{ createAlias: { collectionName: 'target', aliasName: 'target-alias' } }],
    });
    const recovered = await rest(second, 'PUT', '/collections/target/snapshots/recover?wait=true', {
      location: `file://${file}`,
      priority: 'snapshot',
    });
    expect(recovered.status).toBe(200);
    expect(await count(b, 'target')).toBe(3);
    const found = await fetchPoints(b.points, 'target-alias', [1, 2, 3, 10]);
    expect([...found.keys()].sort()).toEqual(['n:1', 'n:2', 'n:3']);

    // An upload of the same archive, with its checksum, into a new collection.
    const form = new FormData();
    form.append('snapshot', new Blob([bytes]), 'source.snapshot');
    const { createHash } = await import('node:crypto');
    const checksum = createHash('sha256').update(bytes).digest('hex');
    const uploaded = await fetch(`${second.httpUrl}/collections/uploaded/snapshots/upload?checksum=${checksum}`, {
      method: 'POST',
      headers: { 'api-key': second.apiKey },
      body: form,
    });
    expect(uploaded.status).toBe(200);
    expect(await count(b, 'uploaded')).toBe(3);

    b.close();
    second = await second.restart();
    b = connect(second);
    expect(await count(b, 'target')).toBe(3);
    expect(pointProblems(await fetchPoints(b.points, 'target', [1, 2, 3]), [1, 2, 3], pointOf)).toEqual([]);
  });

  it('should refuse a malicious archive with 400 and leave the existing collection untouched', async () => {
    await createCollection(b, 'kept', 1);
    await upsert(b, 'kept', [1, 2]);
    const dir = path.join(second.dataDir, 'snapshots');
    const evil = path.join(dir, 'evil.snapshot');
    const config = 'not json';
    const manifest = manifestEntry({
      format: 'vectorstore-snapshot',
      version: 1,
      kind: 'collection',
      created_at: '2024-07-22T08:31:55.000Z',
      peer_id: '1',
      collections: ['kept'],
      files: [],
    });
    writeArchive(evil, Buffer.concat([manifest, tarEntry({ path: '../../escape', data: config }), TAR_END]));
    const traversal = await rest(second, 'PUT', '/collections/kept/snapshots/recover', { location: `file://${evil}` });
    expect(traversal.status).toBe(400);
    expect(JSON.stringify(traversal.json)).toMatch(/invalid snapshot archive/);

    // A well-formed archive whose content is no collection.
    const garbage = path.join(dir, 'garbage.snapshot');
    const file = { path: 'collection/config.json', data: config };
    const { createHash } = await import('node:crypto');
    const good = manifestEntry({
      format: 'vectorstore-snapshot',
      version: 1,
      kind: 'collection',
      created_at: '2024-07-22T08:31:55.000Z',
      peer_id: '1',
      collections: ['kept'],
      files: [{ path: file.path, size: config.length, sha256: createHash('sha256').update(config).digest('hex') }],
    });
    writeArchive(garbage, Buffer.concat([good, tarEntry(file), TAR_END]));
    const notCollection = await rest(second, 'PUT', '/collections/kept/snapshots/recover', {
      location: `file://${garbage}`,
    });
    expect(notCollection.status).toBe(400);

    // Outside the snapshots folder; an unknown priority.
    const outside = await rest(second, 'PUT', '/collections/kept/snapshots/recover', {
      location: `file://${path.join(second.dataDir, 'catalog.json')}`,
    });
    expect(outside.status).toBe(403);
    const priority = await rest(second, 'PUT', '/collections/kept/snapshots/recover', {
      location: `file://${garbage}`,
      priority: 'mine',
    });
    expect(priority.status).toBe(400);

    // The same archive uploaded (multipart).
    const form = new FormData();
    form.append('snapshot', new Blob([await fs.readFile(evil)]), 'evil.snapshot');
    const uploaded = await fetch(`${second.httpUrl}/collections/kept/snapshots/upload?priority=snapshot`, {
      method: 'POST',
      headers: { 'api-key': second.apiKey },
      body: form,
    });
    expect(uploaded.status).toBe(400);
    expect(await uploaded.text()).toMatch(/invalid snapshot archive/);

    expect(await count(b, 'kept')).toBe(2);
    expect(pointProblems(await fetchPoints(b.points, 'kept', [1, 2]), [1, 2], pointOf)).toEqual([]);
    expect(await fs.readdir(path.join(second.dataDir, 'snapshot-work', 'uploads'))).toEqual([]);
    // Nothing was left in the work folder.
    expect(await fs.readdir(path.join(dir, 'tmp')).catch(() => [])).toEqual([]);
  });

  it('should list and delete over gRPC (qdrant package), answer 202 for wait=false, and check access', async () => {
    await createCollection(a, 'grpc', 1);
    const created = await unary<object, { snapshotDescription: { name: string; size: string; creationTime?: object } }>(
      a.snapshots,
      'Create',
      { collectionName: 'grpc' },
    );
    expect(Number(created.snapshotDescription.size)).toBeGreaterThan(0);
    expect(created.snapshotDescription.creationTime).toBeDefined();
    const listed = await unary<object, { snapshotDescriptions: Array<{ name: string }> }>(a.snapshots, 'List', {
      collectionName: 'grpc',
    });
    expect(listed.snapshotDescriptions.map((s) => s.name)).toEqual([created.snapshotDescription.name]);

    const later = await rest(first, 'POST', '/collections/grpc/snapshots?wait=false');
    expect(later).toEqual({ status: 202, json: expect.objectContaining({ result: null, status: 'accepted' }) });

    const readOnly = await rest(first, 'POST', '/collections/grpc/snapshots', undefined, first.readOnlyApiKey);
    expect(readOnly.status).toBe(403);
    // Let the wait=false snapshot finish: made within the same second, it would take the name deleted below.
    for (let i = 0; i < 200; i++) {
      const all = await unary<object, { snapshotDescriptions: unknown[] }>(a.snapshots, 'List', {
        collectionName: 'grpc',
      });
      if (all.snapshotDescriptions.length === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    await unary(a.snapshots, 'Delete', { collectionName: 'grpc', snapshotName: created.snapshotDescription.name });
    const missing = await rest(first, 'DELETE', `/collections/grpc/snapshots/${created.snapshotDescription.name}`);
    expect(missing.status).toBe(404);
    const unknown = await rest(first, 'GET', '/collections/nope/snapshots');
    expect(unknown.status).toBe(404);
  });

  it('should make, list, download and delete full snapshots over REST and gRPC', async () => {
    await unary(a.collections, 'UpdateAliases', {
      actions: [{ createAlias: { collectionName: 'source', aliasName: 'source-alias' } }],
    });
    const created = await rest(first, 'POST', '/snapshots');
    expect(created.status).toBe(200);
    const { name } = created.json.result as { name: string };
    expect(name).toMatch(/^full-snapshot-\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d(-\d+)?\.snapshot$/);
    const listed = await unary<object, { snapshotDescriptions: Array<{ name: string }> }>(a.snapshots, 'ListFull', {});
    expect(listed.snapshotDescriptions.map((s) => s.name)).toContain(name);

    const readOnly = await fetch(`${first.httpUrl}/snapshots/${name}`, {
      headers: { 'api-key': first.readOnlyApiKey },
    });
    expect(readOnly.status).toBe(403);
    const download = await fetch(`${first.httpUrl}/snapshots/${name}`, { headers: { 'api-key': first.apiKey } });
    expect(download.status).toBe(200);
    const archive = Buffer.from(await download.arrayBuffer()).toString('latin1');
    const manifest = JSON.parse(archive.slice(512, archive.indexOf('\0', 512))) as {
      kind: string;
      collections: string[];
      files: Array<{ path: string }>;
    };
    expect(manifest.kind).toBe('full');
    expect(manifest.collections).toEqual(expect.arrayContaining(['busy', 'source']));
    expect(manifest.files.map((f) => f.path)).toEqual(
      expect.arrayContaining([
        'aliases.json',
        'collections/source/config.json',
        'collections/source/shards/0/manifest.json',
      ]),
    );

    await unary(a.snapshots, 'DeleteFull', { snapshotName: name });
    expect((await rest(first, 'GET', '/snapshots')).json.result).toEqual([]);
    expect((await rest(first, 'DELETE', `/snapshots/${name}`)).status).toBe(404);
  });
});
