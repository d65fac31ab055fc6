import * as grpc from '@grpc/grpc-js';
import {
  CollectionsClient,
  createCollectionsClient,
  createPointsClient,
  credentials,
  unary,
} from './support/grpc-clients';
import { ScoredPoint, caller, idOf, keyOf, pid, sleep, topK } from './support/points-helpers';
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

  it('should defer points past the indexing threshold with prevent_unoptimized until they are optimized', async () => {
    // 1 KB of 16-d float32 vectors is 16 points: later points of the appendable segment are hidden from reads.
    await unary(collections, 'Create', {
      collectionName: 'held',
      vectorsConfig: { params: { size: DIM, distance: 'Euclid' } },
      optimizersConfig: { indexingThreshold: 1, preventUnoptimized: true, maxOptimizationThreads: { value: 0 } },
    });
    const ids = Array.from({ length: 100 }, (_, i) => i + 1);
    const upsert = await call('Upsert', {
      collectionName: 'held',
      wait: true,
      points: ids.map((id) => ({ id: pid(id), vectors: { vector: { dense: { data: data[id][1] } } } })),
    });
    expect(upsert.result.status).toBe('Completed');
    const visible = async () => ({
      count: Number(
        (await call<{ result: { count: string } }>('Count', { collectionName: 'held', exact: true })).result.count,
      ),
      scrolled: (await call<{ result: unknown[] }>('Scroll', { collectionName: 'held', limit: 1000 })).result.length,
      got: (
        await call<{ result: Array<{ id: { num: string } }> }>('Get', { collectionName: 'held', ids: ids.map(pid) })
      ).result.map((p) => idOf(p.id)),
      found: (
        await call<{ result: ScoredPoint[] }>('Search', { collectionName: 'held', vector: data[0][1], limit: 1000 })
      ).result.map((p) => idOf(p.id)),
    });
    const before = await visible();
    expect(before.count).toBe(16);
    expect(before.scrolled).toBe(16);
    expect(before.got).toEqual(ids.slice(0, 16).map(keyOf));
    expect(before.found.sort()).toEqual(ids.slice(0, 16).map(keyOf).sort());
    expect((await info('held')).pointsCount).toBe('100');

    // A write to a deferred point is kept, and shows once the optimizer has indexed the segment.
    await call('SetPayload', {
      collectionName: 'held',
      wait: true,
      payload: { tag: { stringValue: 'late' } },
      pointsSelector: { points: { ids: [pid(50)] } },
    });
    expect((await visible()).got).not.toContain(keyOf(50));
    await unary(collections, 'Update', {
      collectionName: 'held',
      optimizersConfig: { maxOptimizationThreads: { setting: 'Auto' } },
    });
    const deadline = Date.now() + 30_000;
    while ((await visible()).count < 100 && Date.now() < deadline) await sleep(100);
    const after = await visible();
    expect(after).toMatchObject({ count: 100, scrolled: 100 });
    expect(after.got).toHaveLength(100);
    expect(after.found).toHaveLength(100);
    const [late] = (
      await call<{ result: Array<{ payload: Record<string, { stringValue?: string }> }> }>('Get', {
        collectionName: 'held',
        ids: [pid(50)],
        withPayload: { enable: true },
      })
    ).result;
    expect(late.payload.tag.stringValue).toBe('late');
  });
});
