// Cluster backups on a standalone server: a restore assembles each collection from all its shards and swaps it in
// whole, replacing the collection of that name (libs/snapshots/src/cluster/cluster-restores.standalone.spec.ts has
// the refusals that leave it as it was).
import { Json, peerHttp } from './support/cluster-client';
import { RunningServer, startServer } from './support/server-harness';

jest.setTimeout(120_000);

const DIM = 8;
const vectorOf = (id: number) => Array.from({ length: DIM }, (_, d) => Math.cos(id + d) + 1.5);

describe('cluster backups on a standalone server (e2e)', () => {
  let server: RunningServer;
  const http = (method: string, route: string, body?: unknown) => peerHttp(server, method, route, body, 60_000);

  async function makeCollection(ids: number[]): Promise<void> {
    const created = await http('PUT', '/collections/c', {
      vectors: { size: DIM, distance: 'Cosine' },
      shard_number: 3,
    });
    expect(created.status).toBe(200);
    for (let i = 0; i < ids.length; i += 100) {
      const points = ids.slice(i, i + 100).map((id) => ({ id, vector: vectorOf(id), payload: { id } }));
      expect((await http('PUT', '/collections/c/points?wait=true', { points })).status).toBe(200);
    }
  }

  async function count(): Promise<number> {
    return Number((await http('POST', '/collections/c/points/count', { exact: true })).body?.result.count);
  }

  beforeAll(async () => {
    server = await startServer();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('should replace a collection of 3 shards with the backup of it, points, payloads and alias', async () => {
    await makeCollection(Array.from({ length: 3000 }, (_, i) => i + 1));
    const alias = await http('POST', '/collections/aliases', {
      actions: [{ create_alias: { collection_name: 'c', alias_name: 'c-alias' } }],
    });
    expect(alias.status).toBe(200);
    const backup = await http('POST', '/backups?wait=true', {});
    expect(backup.status).toBe(200);
    const backupName = String(backup.body?.result.name);
    const download = await fetch(`${server.httpUrl}/backups/${backupName}`, { headers: { 'api-key': server.apiKey } });
    expect(download.status).toBe(200);
    const archive = Buffer.from(await download.arrayBuffer());
    // The collection of that name now holds other points, and has no alias.
    expect((await http('DELETE', '/collections/c')).status).toBe(200);
    await makeCollection(Array.from({ length: 300 }, (_, i) => 10_001 + i));
    expect(await count()).toBe(300);

    const form = new FormData();
    form.append('snapshot', new Blob([new Uint8Array(archive)]), backupName);
    const restored = await fetch(`${server.httpUrl}/backups/upload?wait=true`, {
      method: 'POST',
      headers: { 'api-key': server.apiKey },
      body: form,
    });
    const restoredBody = (await restored.json()) as Json;

    expect({ status: restored.status, body: restoredBody }).toMatchObject({ status: 200, body: { result: ['c'] } });
    expect(await count()).toBe(3000);
    const info = await http('GET', '/collections/c');
    expect(info.body?.result.config.params.shard_number).toBe(3);
    const got = await http('POST', '/collections/c-alias/points', { ids: [1, 1500, 3000], with_payload: true });
    const payloads = (got.body?.result as Json[]).map((p) => p.payload as { id: number });
    expect(payloads.sort((a, b) => a.id - b.id)).toEqual([{ id: 1 }, { id: 1500 }, { id: 3000 }]);
    expect((await http('POST', '/collections/c/points', { ids: [10_001] })).body?.result).toEqual([]);
  });
});
