import * as grpc from '@grpc/grpc-js';
import {
  CollectionsClient,
  createCollectionsClient,
  createPointsClient,
  credentials,
  unary,
} from './support/grpc-clients';
import { ScoredPoint, caller, idOf, pid, sleep, topK } from './support/points-helpers';
import { Rng } from '../support/seeded-random';
import { RunningServer, startServer } from './support/server-harness';

jest.setTimeout(60_000);

const DIM = 16;
const N = 1000;

interface Info {
  status: string;
  indexedVectorsCount?: string;
  pointsCount?: string;
  segmentsCount: string;
  optimizerStatus: { ok: boolean; error: string };
}

describe('Collection status while the optimizer indexes (e2e)', () => {
  let server: RunningServer;
  let points: grpc.Client;
  let collections: CollectionsClient;
  let call: ReturnType<typeof caller>;
  const rng = new Rng(1601);
  const data: Array<[string, number[]]> = Array.from({ length: N }, (_, i) => [`n:${i + 1}`, rng.vector(DIM)]);

  const info = async (name: string) =>
    (await unary<object, { result: Info }>(collections, 'Get', { collectionName: name })).result;
  const create = (name: string, indexingThreshold: number) =>
    unary(collections, 'Create', {
      collectionName: name,
      vectorsConfig: { params: { size: DIM, distance: 'Euclid' } },
      optimizersConfig: { indexingThreshold },
    });
  const fill = async (name: string) => {
    for (let i = 0; i < N; i += 250) {
      const response = await call('Upsert', {
        collectionName: name,
        wait: true,
        points: data
          .slice(i, i + 250)
          .map(([key, v]) => ({ id: pid(key.slice(2)), vectors: { vector: { dense: { data: v } } } })),
      });
      expect(response.result.status).toBe('Completed');
    }
  };

  beforeAll(async () => {
    server = await startServer();
    points = createPointsClient(server.grpcAddress, credentials(server.apiKey));
    collections = createCollectionsClient(server.grpcAddress, credentials(server.apiKey));
    call = caller(points);
  });

  afterAll(async () => {
    if (process.env.E2E_SERVER_LOG) process.stdout.write(server?.output() ?? '');
    points?.close();
    collections?.close();
    await server?.stop();
  });

  it('should start Green with nothing indexed', async () => {
    await create('indexed', 10); // 10 KB = 160 vectors of 16 dims
    const fresh = await info('indexed');
    expect(fresh.status).toBe('Green');
    expect(fresh.indexedVectorsCount).toBe('0');
    expect(fresh.optimizerStatus).toEqual({ ok: true, error: '' });
  });

  it('should pass through Yellow or reach Green with the vectors indexed, answering searches correctly meanwhile', async () => {
    await fill('indexed');
    const seen: string[] = [];
    const wrongTop1: string[] = [];
    let last: Info | undefined;
    const deadline = Date.now() + 30_000;
    let q = 0;
    while (Date.now() < deadline) {
      last = await info('indexed');
      if (seen[seen.length - 1] !== last.status) seen.push(last.status);
      // a query next to a stored vector: its exact top-1 is that point
      const [key, v] = data[(q++ * 37) % N];
      const query = v.map((x) => x + 1e-3);
      const expected = topK('Euclid', query, data, 1)[0][0];
      const hits = (
        await call<{ result: ScoredPoint[] }>('Search', { collectionName: 'indexed', vector: query, limit: 1 })
      ).result;
      if (hits.length !== 1 || idOf(hits[0].id) !== expected)
        wrongTop1.push(`${key}: got ${hits[0] ? idOf(hits[0].id) : 'nothing'} (status ${last.status})`);
      if (last.status === 'Green' && Number(last.indexedVectorsCount ?? 0) >= N * 0.9) break;
      await sleep(50);
    }
    expect(wrongTop1).toEqual([]);
    expect(seen.every((s) => s === 'Green' || s === 'Yellow')).toBe(true);
    expect({
      status: last?.status,
      indexedAtLeast900: Number(last?.indexedVectorsCount ?? 0) >= 900,
      statuses: seen,
    }).toMatchObject({
      status: 'Green',
      indexedAtLeast900: true,
    });
    expect(Number(last!.segmentsCount)).toBeGreaterThanOrEqual(1);
    expect(last!.pointsCount).toBe(String(N));
    expect(last!.optimizerStatus.ok).toBe(true);
  });

  it('should keep exact and approximate search in agreement once indexed', async () => {
    let agree = 0;
    for (let i = 0; i < 20; i++) {
      const query = rng.vector(DIM);
      const exact = (
        await call<{ result: ScoredPoint[] }>('Search', {
          collectionName: 'indexed',
          vector: query,
          limit: 1,
          params: { exact: true },
        })
      ).result;
      const approx = (
        await call<{ result: ScoredPoint[] }>('Search', { collectionName: 'indexed', vector: query, limit: 1 })
      ).result;
      expect(idOf(exact[0].id)).toBe(topK('Euclid', query, data, 1)[0][0]);
      if (idOf(approx[0].id) === idOf(exact[0].id)) agree++;
    }
    // HNSW is approximate: allow one miss in twenty
    expect(agree).toBeGreaterThanOrEqual(19);
  });

  it('should index nothing with indexing_threshold = 0', async () => {
    await create('unindexed', 0);
    await fill('unindexed');
    const deadline = Date.now() + 2_000;
    while (Date.now() < deadline) {
      const current = await info('unindexed');
      expect(current.indexedVectorsCount).toBe('0');
      expect(current.status).not.toBe('Red');
      await sleep(100);
    }
    const final = await info('unindexed');
    expect(final).toMatchObject({ status: 'Green', indexedVectorsCount: '0', pointsCount: String(N) });
  });

  it('should hold writes back with prevent_unoptimized until the optimizer has indexed them', async () => {
    await unary(collections, 'Create', {
      collectionName: 'held',
      vectorsConfig: { params: { size: DIM, distance: 'Euclid' } },
      optimizersConfig: { indexingThreshold: 10, preventUnoptimized: true },
    });
    for (let i = 0; i < N; i += 100) {
      await call('Upsert', {
        collectionName: 'held',
        wait: true,
        points: data
          .slice(i, i + 100)
          .map(([key, v]) => ({ id: pid(key.slice(2)), vectors: { vector: { dense: { data: v } } } })),
      });
      const current = await info('held');
      // Each write waited until less than the threshold (160 vectors) was unindexed, then added 100.
      expect(Number(current.pointsCount) - Number(current.indexedVectorsCount)).toBeLessThan(160 + 100);
    }
  });
});
