import * as grpc from '@grpc/grpc-js';
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import {
  CollectionsClient,
  createCollectionsClient,
  createPointsClient,
  credentials,
  unary,
} from './support/grpc-clients';
import {
  JsonObject,
  RetrievedPoint,
  caller,
  fetchPoints,
  fromPayload,
  pid,
  pointProblems,
  toPayload,
} from './support/points-helpers';
import { Rng } from '../support/seeded-random';
import { RunningServer, startServer } from './support/server-harness';

jest.setTimeout(60_000);

const DIM = 16;

/** The vector and payload of point `id`: a pure function of the id, so the check needs no record of what was sent. */
function pointOf(id: number): { vector: number[]; payload: JsonObject } {
  const rng = new Rng(id * 7919 + 13);
  return { vector: rng.vector(DIM), payload: { i: id, tag: `t${id % 7}`, nested: { even: id % 2 === 0 } } };
}

const struct = (id: number) => {
  const p = pointOf(id);
  return { id: pid(id), vectors: { vector: { dense: { data: p.vector } } }, payload: toPayload(p.payload) };
};

describe('Points durability (e2e)', () => {
  let server: RunningServer;
  let points: grpc.Client;
  let collections: CollectionsClient;
  let call: ReturnType<typeof caller>;

  const connect = () => {
    points?.close();
    collections?.close();
    points = createPointsClient(server.grpcAddress, credentials(server.apiKey));
    collections = createCollectionsClient(server.grpcAddress, credentials(server.apiKey));
    call = caller(points);
  };
  const collectionCall = <Res = { result: boolean }>(method: string, request: object) =>
    unary<object, Res>(collections, method, request);
  const create = (name: string) =>
    collectionCall('Create', { collectionName: name, vectorsConfig: { params: { size: DIM, distance: 'Dot' } } });
  const count = async (name: string, filter?: object) =>
    Number(
      (
        await call<{ result: { count: string } }>('Count', {
          collectionName: name,
          exact: true,
          ...(filter ? { filter } : {}),
        })
      ).result.count,
    );
  const folders = () => readdirSync(path.join(server.dataDir, 'collections'));

  const fetchAll = (name: string, ids: number[]) => fetchPoints(points, name, ids);

  const problems = (found: Map<string, RetrievedPoint>, ids: number[]) => pointProblems(found, ids, pointOf);

  beforeAll(async () => {
    server = await startServer();
    connect();
  });

  afterAll(async () => {
    if (process.env.E2E_SERVER_LOG) process.stdout.write(server?.output() ?? '');
    points?.close();
    collections?.close();
    await server?.stop();
  });

  it('should remove the data folder of a deleted collection under <dataDir>/collections/', async () => {
    const before = folders().length;
    await create('short-lived');
    await call('Upsert', { collectionName: 'short-lived', wait: true, points: [1, 2, 3].map(struct) });
    expect(folders().length).toBe(before + 1);
    expect((await collectionCall('Delete', { collectionName: 'short-lived' })).result).toBe(true);
    expect(folders().length).toBe(before);
  });

  it('should keep payload indexes, deletes and payload changes across a graceful restart', async () => {
    const name = 'graceful';
    await create(name);
    const ids = Array.from({ length: 200 }, (_, i) => i + 1);
    await call('Upsert', { collectionName: name, wait: true, points: ids.map(struct) });
    await call('CreateFieldIndex', {
      collectionName: name,
      fieldName: 'tag',
      fieldType: 'FieldTypeKeyword',
      wait: true,
    });
    await call('CreateFieldIndex', { collectionName: name, fieldName: 'i', fieldType: 'FieldTypeInteger', wait: true });
    await call('Delete', { collectionName: name, wait: true, points: { points: { ids: ids.slice(0, 10).map(pid) } } });
    await call('Delete', {
      collectionName: name,
      wait: true,
      points: { filter: { must: [{ field: { key: 'tag', match: { keyword: 't3' } } }] } },
    });
    await call('SetPayload', {
      collectionName: name,
      wait: true,
      payload: toPayload({ marked: true }),
      pointsSelector: { points: { ids: [pid(20)] } },
    });
    await call('DeleteFieldIndex', { collectionName: name, fieldName: 'i', wait: true });
    await call('CreateFieldIndex', {
      collectionName: name,
      fieldName: 'nested.even',
      fieldType: 'FieldTypeBool',
      wait: true,
    });
    const survivors = ids.filter((id) => id > 10 && id % 7 !== 3);
    expect(await count(name)).toBe(survivors.length);
    const schemaBefore = (
      await collectionCall<{ result: { payloadSchema: Record<string, { dataType: string; points?: string }> } }>(
        'Get',
        { collectionName: name },
      )
    ).result.payloadSchema;

    server = await server.restart();
    connect();

    const info = (
      await collectionCall<{
        result: { pointsCount?: string; payloadSchema: Record<string, { dataType: string; points?: string }> };
      }>('Get', { collectionName: name })
    ).result;
    expect(info.payloadSchema).toEqual(schemaBefore);
    expect(Object.keys(info.payloadSchema).sort()).toEqual(['nested.even', 'tag']);
    expect(info.payloadSchema.tag).toMatchObject({ dataType: 'Keyword', points: String(survivors.length) });
    expect(info.pointsCount).toBe(String(survivors.length));
    expect(await count(name)).toBe(survivors.length);
    expect(await count(name, { must: [{ field: { key: 'tag', match: { keyword: 't3' } } }] })).toBe(0);
    expect(await count(name, { must: [{ field: { key: 'tag', match: { keyword: 't4' } } }] })).toBe(
      survivors.filter((id) => id % 7 === 4).length,
    );
    const found = await fetchAll(name, ids);
    expect([...found.keys()].sort()).toEqual(survivors.map((id) => `n:${id}`).sort());
    expect(fromPayload(found.get('n:20')!.payload)).toEqual({ ...pointOf(20).payload, marked: true });
    expect(
      problems(
        found,
        survivors.filter((id) => id !== 20),
      ),
    ).toEqual([]);
  });

  it('should keep every acknowledged upsert (wait=false) when killed with SIGKILL mid-stream', async () => {
    const name = 'crash';
    await create(name);
    const acknowledged: number[] = [];
    let nextId = 1;
    let stop = false;
    let failures = 0;
    const worker = async () => {
      while (!stop) {
        const batch = Array.from({ length: 50 }, () => nextId++);
        try {
          const response = await call('Upsert', { collectionName: name, wait: false, points: batch.map(struct) });
          if (response.result.status !== 'Acknowledged' && response.result.status !== 'Completed')
            throw new Error(response.result.status);
          acknowledged.push(...batch);
        } catch {
          failures++;
          return; // the server is gone
        }
      }
    };
    const workers = Array.from({ length: 4 }, worker);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await server.kill();
    stop = true;
    await Promise.all(workers);
    expect(acknowledged.length).toBeGreaterThan(200);

    server = await server.restart();
    connect();

    const found = await fetchAll(name, acknowledged);
    expect(problems(found, acknowledged).slice(0, 20)).toEqual([]);
    expect(await count(name)).toBeGreaterThanOrEqual(acknowledged.length);
    // what the server has beyond the acknowledged ids can only be whole batches that were in flight
    expect(await count(name)).toBeLessThanOrEqual(acknowledged.length + 4 * 50);
    // and it keeps accepting writes afterwards
    const response = await call('Upsert', { collectionName: name, wait: true, points: [struct(1_000_000)] });
    expect(response.result.status).toBe('Completed');
    expect(failures).toBeGreaterThan(0);
  });
});
