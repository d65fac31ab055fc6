import * as grpc from '@grpc/grpc-js';
import * as path from 'node:path';
import { Rng } from '../support/seeded-random';
import { createPointsClient, credentials } from './support/grpc-clients';
import {
  caller,
  expectGrpcError,
  fetchPoints,
  JsonObject,
  pid,
  pointProblems,
  toPayload,
} from './support/points-helpers';
import { RunningServer, startServer } from './support/server-harness';
import { describeOnTmpfs, fillFileSystem, freeFileSystem, mountTmpfs, unmountTmpfs } from './support/tmpfs';

jest.setTimeout(120_000);

// Issue 28, item 2: a full disk refuses writes with a clear error, loses nothing acknowledged, keeps reads going,
// and takes writes again once space is freed, without a restart. The data folder lives on a real 16 MiB tmpfs.

const DIM = 32;
const COLLECTION = 'disk';
/** Qdrant's answer to a write on a full disk (its `InsufficientStorage`), with the cause named. */
const FULL_DISK_MESSAGE = /^Insufficient storage: No space left on device \(ENOSPC\)/;

/** The vector and payload of point `id`: a pure function of the id, so the check needs no record of what was sent. */
function pointOf(id: number): { vector: number[]; payload: JsonObject } {
  const rng = new Rng(id * 7919 + 29);
  return { vector: rng.vector(DIM), payload: { i: id, tag: `t${id % 5}` } };
}

/** The parts of Qdrant's REST envelope these tests read. */
interface RestBody {
  result?: { count?: number; points?: unknown[] };
  status?: { error?: string } | string;
}

const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

describeOnTmpfs('Full disk (e2e, data folder on a 16 MiB tmpfs)', () => {
  let mountPoint: string | undefined;
  let server: RunningServer | undefined;
  let points: grpc.Client | undefined;
  let filler: string | undefined;
  /** Ids whose upsert was acknowledged, and ids whose upsert was refused. */
  const acknowledged: number[] = [];
  const refused: number[] = [];
  /** Whether the payload index asked for on the full disk was acknowledged (it may fit in a page's slack). */
  let indexAcknowledged = false;

  const running = (): RunningServer => {
    if (!server) throw new Error('server not started');
    return server;
  };
  const grpcCall = <Res>(method: string, request: object): Promise<Res> =>
    caller(points as grpc.Client)<Res>(method, request);
  const connect = () => {
    points?.close();
    points = createPointsClient(running().grpcAddress, credentials(running().apiKey), 'qdrant');
  };

  async function rest(
    method: string,
    route: string,
    body?: unknown,
  ): Promise<{ status: number; json: RestBody | undefined }> {
    const response = await fetch(`${running().httpUrl}${route}`, {
      method,
      headers: { 'api-key': running().apiKey, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, json: text ? (JSON.parse(text) as RestBody) : undefined };
  }

  const restUpsert = (ids: number[]) =>
    rest('PUT', `/collections/${COLLECTION}/points?wait=true`, {
      points: ids.map((id) => ({ id, vector: pointOf(id).vector, payload: pointOf(id).payload })),
    });
  const grpcUpsert = (ids: number[]) =>
    grpcCall('Upsert', {
      collectionName: COLLECTION,
      wait: true,
      points: ids.map((id) => ({
        id: pid(id),
        vectors: { vector: { dense: { data: pointOf(id).vector } } },
        payload: toPayload(pointOf(id).payload),
      })),
    });
  const exactCount = async () =>
    (await rest('POST', `/collections/${COLLECTION}/points/count`, { exact: true })).json?.result?.count;

  beforeAll(async () => {
    mountPoint = mountTmpfs(16);
    server = await startServer({ dataDir: path.join(mountPoint, 'data') });
    connect();
    const created = await rest('PUT', `/collections/${COLLECTION}`, { vectors: { size: DIM, distance: 'Dot' } });
    expect(created.status).toBe(200);
  });

  afterAll(async () => {
    points?.close();
    try {
      if (process.env.E2E_SERVER_LOG) process.stdout.write(server?.output() ?? '');
      await server?.kill();
    } finally {
      if (mountPoint) unmountTmpfs(mountPoint);
    }
  });

  it('should acknowledge writes over REST and gRPC while there is room', async () => {
    for (let batch = 0; batch < 4; batch++) {
      const restIds = range(1 + batch * 250, 250);
      expect((await restUpsert(restIds)).status).toBe(200);
      acknowledged.push(...restIds);
      const grpcIds = range(5_001 + batch * 250, 250);
      await grpcUpsert(grpcIds);
      acknowledged.push(...grpcIds);
    }
    expect(await exactCount()).toBe(acknowledged.length);
  });

  it('should refuse writes once the disk is full: REST 507 and gRPC RESOURCE_EXHAUSTED naming the cause', async () => {
    filler = fillFileSystem(mountPoint as string);

    // Each batch is far larger than the page slack left in the files the server has open.
    for (let attempt = 0; attempt < 2; attempt++) {
      const restIds = range(100_001 + attempt * 1_000, 1_000);
      const answer = await restUpsert(restIds);
      expect({ status: answer.status, body: answer.json }).toEqual({
        status: 507,
        body: { status: { error: expect.stringMatching(FULL_DISK_MESSAGE) as unknown }, time: 0 },
      });
      refused.push(...restIds);

      const grpcIds = range(200_001 + attempt * 1_000, 1_000);
      const error = await expectGrpcError(grpcUpsert(grpcIds), grpc.status.RESOURCE_EXHAUSTED, FULL_DISK_MESSAGE);
      // Qdrant's marker that tells a full disk from a rate limit.
      expect(error.metadata.get('qdrant-insufficient-storage')).toEqual(['1']);
      refused.push(...grpcIds);
    }
    expect(running().output()).toMatch(/ENOSPC/);
  });

  it('should answer the other kinds of write on the full disk with a success or 507, never a 500', async () => {
    const writes: Array<[string, string, unknown]> = [
      ['PUT', '/collections/second', { vectors: { size: 4, distance: 'Dot' } }],
      ['POST', `/collections/${COLLECTION}/snapshots`, undefined],
      ['PUT', `/collections/${COLLECTION}/index?wait=true`, { field_name: 'tag', field_schema: 'keyword' }],
      [
        'POST',
        `/collections/${COLLECTION}/points/payload?wait=true`,
        { payload: { big: 'x'.repeat(200_000) }, points: [1] },
      ],
      ['POST', '/snapshots', undefined],
    ];
    const answers: string[] = [];
    for (const [method, route, body] of writes) {
      const answer = await rest(method, route, body);
      answers.push(`${method} ${route}: ${answer.status}`);
      if (answer.status === 200 && route.includes('/index')) indexAcknowledged = true;
      if (answer.status !== 200)
        expect(answer.json?.status).toEqual({ error: expect.stringMatching(FULL_DISK_MESSAGE) });
    }
    expect(answers.filter((answer) => !/: (200|507)$/.test(answer))).toEqual([]);
  });

  it('should keep answering reads on the full disk, over REST and gRPC', async () => {
    const info = await rest('GET', `/collections/${COLLECTION}`);
    expect(info.status).toBe(200);
    expect(await exactCount()).toBe(acknowledged.length);
    const scrolled = await rest('POST', `/collections/${COLLECTION}/points/scroll`, { limit: 10, with_payload: true });
    expect(scrolled.status).toBe(200);
    expect(scrolled.json?.result?.points).toHaveLength(10);
    const queried = await rest('POST', `/collections/${COLLECTION}/points/query`, {
      query: pointOf(7).vector,
      limit: 5,
    });
    expect(queried.status).toBe(200);
    expect(queried.json?.result?.points).toHaveLength(5);
    const counted = await grpcCall<{ result: { count: string } }>('Count', { collectionName: COLLECTION, exact: true });
    expect(Number(counted.result.count)).toBe(acknowledged.length);
    expect(problemsOf(await fetchPoints(points as grpc.Client, COLLECTION, acknowledged))).toEqual([]);
    expect((await fetch(`${running().httpUrl}/healthz`)).status).toBe(200);
  });

  it('should take writes again once space is freed, without a restart, with nothing of the refused ones', async () => {
    freeFileSystem(filler as string);
    filler = undefined;

    const restIds = range(1_001, 500);
    expect((await restUpsert(restIds)).status).toBe(200);
    acknowledged.push(...restIds);
    const grpcIds = range(6_001, 500);
    await grpcUpsert(grpcIds);
    acknowledged.push(...grpcIds);

    expect(await exactCount()).toBe(acknowledged.length);
    expect([...(await fetchPoints(points as grpc.Client, COLLECTION, refused)).keys()]).toEqual([]);
  });

  it('should hold every acknowledged write, and none of the refused ones, after kill -9 and a restart', async () => {
    const env = running().env;
    await running().kill();
    server = await startServer({ dataDir: env.VECTORSTORE_DATA_DIR, env });
    connect();

    expect(await exactCount()).toBe(acknowledged.length);
    expect(problemsOf(await fetchPoints(points as grpc.Client, COLLECTION, acknowledged))).toEqual([]);
    expect([...(await fetchPoints(points as grpc.Client, COLLECTION, refused)).keys()]).toEqual([]);
    if (indexAcknowledged) {
      const info = (await rest('GET', `/collections/${COLLECTION}`)).json as { result: { payload_schema: object } };
      expect(Object.keys(info.result.payload_schema)).toContain('tag');
    }
  });

  function problemsOf(found: Awaited<ReturnType<typeof fetchPoints>>): string[] {
    return pointProblems(found, acknowledged, pointOf).slice(0, 10);
  }
});
