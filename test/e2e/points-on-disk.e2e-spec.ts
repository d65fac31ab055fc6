import * as grpc from '@grpc/grpc-js';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import {
  CollectionsClient,
  createCollectionsClient,
  createPointsClient,
  credentials,
  unary,
} from './support/grpc-clients';
import {
  RetrievedPoint,
  ScoredPoint,
  caller,
  denseOf,
  expectSameRanking,
  fromPayload,
  idOf,
  pid,
  pollUntil,
  toPayload,
  topK,
} from './support/points-helpers';
import { Rng } from '../support/seeded-random';
import { filesUnder } from './support/data-files';
import { RunningServer, startServer } from './support/server-harness';

jest.setTimeout(120_000);

const DIM = 16;
const N = 1200;

interface Info {
  status: string;
  indexedVectorsCount?: string;
  pointsCount?: string;
}

/**
 * on_disk vectors, on_disk_payload and memmap_threshold: optimized segments keep their data in files
 * of their own (`<segment>.vec`, `<segment>.pay`), and everything read back from them is what was written.
 */
describe('Vectors and payloads on disk (e2e)', () => {
  let server: RunningServer;
  let points: grpc.Client;
  let collections: CollectionsClient;
  let call: ReturnType<typeof caller>;
  const rng = new Rng(4242);
  const data: Array<[string, number[]]> = Array.from({ length: N }, (_, i) => [`n:${i + 1}`, rng.vector(DIM)]);
  const payloadOf = (i: number) => ({
    group: `g${i % 9}`,
    big: 9007199254740993n + BigInt(i),
    tags: ['a', `t${i % 4}`],
  });

  const connect = () => {
    points?.close();
    collections?.close();
    points = createPointsClient(server.grpcAddress, credentials(server.apiKey));
    collections = createCollectionsClient(server.grpcAddress, credentials(server.apiKey));
    call = caller(points);
  };
  const info = async (name: string) =>
    (await unary<object, { result: Info }>(collections, 'Get', { collectionName: name })).result;

  /** Files ending in `ext` under the collections' shard folders. */
  const segmentFiles = async (ext: string) =>
    (await filesUnder(path.join(server.dataDir, 'collections'))).filter((file) => file.endsWith(ext));

  async function filesOf(collection: string, ext: string): Promise<string[]> {
    const catalog = JSON.parse(await fs.readFile(path.join(server.dataDir, 'catalog.json'), 'utf8')) as unknown;
    const id = findRecordId(catalog, collection);
    return (await segmentFiles(ext)).filter((file) => file.includes(`${path.sep}${id}${path.sep}`));
  }

  async function createAndFill(name: string, options: object): Promise<void> {
    await unary(collections, 'Create', { collectionName: name, ...options });
    for (let i = 0; i < N; i += 300) {
      const response = await call('Upsert', {
        collectionName: name,
        wait: true,
        points: data.slice(i, i + 300).map(([key, v], j) => ({
          id: pid(key.slice(2)),
          vectors: { vector: { dense: { data: v } } },
          payload: toPayload(payloadOf(i + j)),
        })),
      });
      expect(response.result.status).toBe('Completed');
    }
    const indexed = await pollUntil(async () => {
      const current = await info(name);
      return current.status === 'Green' && Number(current.indexedVectorsCount ?? 0) >= N * 0.9 ? current : undefined;
    }, 60_000);
    expect(indexed).toBeDefined();
  }

  beforeAll(async () => {
    server = await startServer();
    connect();
    const optimizersConfig = { indexingThreshold: 10 }; // 10 KB = 160 vectors of 16 dims
    await createAndFill('disk', {
      vectorsConfig: { params: { size: DIM, distance: 'Cosine', onDisk: true } },
      onDiskPayload: true,
      optimizersConfig,
    });
    await createAndFill('memmap', {
      vectorsConfig: { params: { size: DIM, distance: 'Euclid' } },
      onDiskPayload: false,
      optimizersConfig: { ...optimizersConfig, memmapThreshold: 1 },
    });
    await createAndFill('ram', {
      vectorsConfig: { params: { size: DIM, distance: 'Euclid' } },
      onDiskPayload: false,
      optimizersConfig,
    });
  });

  afterAll(async () => {
    if (process.env.E2E_SERVER_LOG) process.stdout.write(server?.output() ?? '');
    points?.close();
    collections?.close();
    await server?.stop();
  });

  it('should put vectors and payloads in segment files only where the config asks for it', async () => {
    expect((await filesOf('disk', '.vec')).length).toBeGreaterThan(0);
    expect((await filesOf('disk', '.pay')).length).toBeGreaterThan(0);
    expect((await filesOf('memmap', '.vec')).length).toBeGreaterThan(0);
    expect(await filesOf('memmap', '.pay')).toEqual([]);
    expect(await filesOf('ram', '.vec')).toEqual([]);
    expect(await filesOf('ram', '.pay')).toEqual([]);
  });

  const checkSearches = async () => {
    let found = 0;
    for (let q = 0; q < 20; q++) {
      const query = rng.vector(DIM);
      for (const [name, distance] of [
        ['disk', 'Cosine'],
        ['memmap', 'Euclid'],
      ] as const) {
        const truth = topK(distance, query, data, 11);
        const exact = (
          await call<{ result: ScoredPoint[] }>('Search', {
            collectionName: name,
            vector: query,
            limit: 10,
            params: { exact: true },
          })
        ).result;
        expectSameRanking(
          exact.map((h) => [idOf(h.id), h.score]),
          truth,
          10,
        );
        const approx = (
          await call<{ result: ScoredPoint[] }>('Search', { collectionName: name, vector: query, limit: 10 })
        ).result;
        const want = new Set(truth.slice(0, 10).map(([key]) => key));
        found += approx.filter((h) => want.has(idOf(h.id))).length;
      }
    }
    expect(found / 400).toBeGreaterThanOrEqual(0.9);
  };

  it('should answer exact searches as brute force and approximate ones with high recall', checkSearches);

  const checkReads = async () => {
    const ids = ['1', '2', '77', '500', '1200'];
    const got = (
      await call<{ result: RetrievedPoint[] }>('Get', {
        collectionName: 'disk',
        ids: ids.map(pid),
        withPayload: { enable: true },
        withVectors: { enable: true },
      })
    ).result;
    expect(got.map((p) => idOf(p.id)).sort()).toEqual(ids.map((id) => `n:${id}`).sort());
    for (const point of got) {
      const i = Number(idOf(point.id).slice(2)) - 1;
      expect(fromPayload(point.payload)).toEqual(payloadOf(i));
      const stored = denseOf(point.vectors?.vector as never)!;
      const norm = Math.hypot(...data[i][1]);
      // Cosine vectors are stored normalized, as Qdrant does
      stored.forEach((x, d) => expect(x).toBeCloseTo(data[i][1][d] / norm, 5));
    }
    const filter = { must: [{ field: { key: 'group', match: { keyword: 'g4' } } }] };
    const query = data[3][1];
    const hits = (
      await call<{ result: ScoredPoint[] }>('Search', {
        collectionName: 'disk',
        vector: query,
        limit: 10,
        filter,
        params: { exact: true },
      })
    ).result;
    const candidates = data.filter((_, i) => i % 9 === 4);
    expectSameRanking(
      hits.map((h) => [idOf(h.id), h.score]),
      topK('Cosine', query, candidates, 11),
      10,
    );
    const counted = await call<{ result: { count: string } }>('Count', { collectionName: 'disk', filter, exact: true });
    expect(Number(counted.result.count)).toBe(candidates.length);
  };

  it('should give back vectors and payloads read from the files, and filter on them', checkReads);

  it('should keep deletes and serve the same answers after a restart', async () => {
    await call('Delete', { collectionName: 'disk', wait: true, points: { points: { ids: [pid('77')] } } });
    server = await server.restart();
    connect();
    await pollUntil(async () => (await info('disk')).status !== undefined, 10_000);
    const gone = (await call<{ result: RetrievedPoint[] }>('Get', { collectionName: 'disk', ids: [pid('77')] })).result;
    expect(gone).toEqual([]);
    expect(Number((await info('disk')).pointsCount)).toBe(N - 1);
    // put 77 back so the brute force below still describes the collection
    await call('Upsert', {
      collectionName: 'disk',
      wait: true,
      points: [
        { id: pid('77'), vectors: { vector: { dense: { data: data[76][1] } } }, payload: toPayload(payloadOf(76)) },
      ],
    });
    await checkSearches();
    await checkReads();
    expect((await filesOf('disk', '.vec')).length).toBeGreaterThan(0);
  });

  it('should move existing segments to disk when the config changes, staying correct meanwhile', async () => {
    expect(await filesOf('ram', '.vec')).toEqual([]);
    await unary(collections, 'Update', {
      collectionName: 'ram',
      vectorsConfig: { params: { onDisk: true } },
      params: { onDiskPayload: true },
    });
    const moved = await pollUntil(async () => {
      const [vec, pay, current] = [await filesOf('ram', '.vec'), await filesOf('ram', '.pay'), await info('ram')];
      return vec.length > 0 && pay.length > 0 && current.status === 'Green' ? current : undefined;
    }, 60_000);
    expect(moved).toBeDefined();
    expect(Number(moved!.pointsCount)).toBe(N);
    const query = rng.vector(DIM);
    const exact = (
      await call<{ result: ScoredPoint[] }>('Search', {
        collectionName: 'ram',
        vector: query,
        limit: 10,
        params: { exact: true },
      })
    ).result;
    expectSameRanking(
      exact.map((h) => [idOf(h.id), h.score]),
      topK('Euclid', query, data, 11),
      10,
    );
    const got = (
      await call<{ result: RetrievedPoint[] }>('Get', {
        collectionName: 'ram',
        ids: [pid('5')],
        withPayload: { enable: true },
      })
    ).result;
    expect(fromPayload(got[0].payload)).toEqual(payloadOf(4));
  });
});

/** The folder id of a collection in the catalog file (its layout is internal; searched loosely). */
function findRecordId(catalog: unknown, name: string): string {
  const stack: unknown[] = [catalog];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (node && typeof node === 'object') {
      const record = node as Record<string, unknown>;
      if (record.name === name && typeof record.id === 'string') return record.id;
      stack.push(...Object.values(record));
    }
  }
  throw new Error(`collection ${name} not in the catalog`);
}
