import * as grpc from '@grpc/grpc-js';
import { createCollectionsClient, createPointsClient, credentials, unary } from './support/grpc-clients';
import { RunningServer, startServer } from './support/server-harness';

jest.setTimeout(60_000);

interface Hit {
  id: { num: string };
  score: number;
}

describe('Points regressions found in review (e2e)', () => {
  let server: RunningServer;
  let points: grpc.Client;
  let collections: grpc.Client;
  const call = <Res = unknown>(client: grpc.Client, method: string, request: object) =>
    unary<object, Res>(client, method, request);
  const code = async (promise: Promise<unknown>) =>
    (
      (await promise.then(
        () => undefined,
        (e: unknown) => e,
      )) as grpc.ServiceError | undefined
    )?.code;
  const ids = (hits: Hit[]) => hits.map((h) => Number(h.id.num));

  beforeAll(async () => {
    server = await startServer();
    points = createPointsClient(server.grpcAddress, credentials(server.apiKey));
    collections = createCollectionsClient(server.grpcAddress, credentials(server.apiKey));
    await call(collections, 'Create', {
      collectionName: 'line',
      vectorsConfig: { params: { size: 2, distance: 'Euclid' } },
    });
    // Points on a line at x = 0, 1, 5, 10.
    const xs = [0, 1, 5, 10];
    await call(points, 'Upsert', {
      collectionName: 'line',
      wait: true,
      points: xs.map((x, i) => ({
        id: { num: i + 1 },
        vectors: { vector: { dense: { data: [x, 0] } } },
        payload: { keep: { boolValue: i !== 1 } },
      })),
    });
  });

  afterAll(async () => {
    points?.close();
    collections?.close();
    await server?.stop();
  });

  it('should reject a malformed payload key and keep accepting writes', async () => {
    expect(
      await code(
        call(points, 'SetPayload', {
          collectionName: 'line',
          pointsSelector: { points: { ids: [{ num: 1 }] } },
          payload: { x: { integerValue: '1' } },
          key: 'a[',
        }),
      ),
    ).toBe(grpc.status.INVALID_ARGUMENT);
    await call(points, 'SetPayload', {
      collectionName: 'line',
      wait: true,
      pointsSelector: { points: { ids: [{ num: 1 }] } },
      payload: { x: { integerValue: '1' } },
      key: 'a.b',
    });
    const info = await call<{ result: { status: string } }>(collections, 'Get', { collectionName: 'line' });
    expect(info.result.status).toBe('Green');
  });

  it('should refuse prefetches without a query to merge them, as Qdrant', async () => {
    const refused = call(points, 'Query', {
      collectionName: 'line',
      prefetch: [{ query: { nearest: { dense: { data: [0, 0] } } }, limit: 4 }],
      limit: 2,
    });
    await expect(refused).rejects.toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: expect.stringContaining('A query is needed to merge the prefetches') as unknown,
    });
  });

  it('should score a formula over a prefetch on gRPC as on REST', async () => {
    const plain = await call<{ result: Hit[] }>(points, 'Query', {
      collectionName: 'line',
      query: { nearest: { dense: { data: [0, 0] } } },
      limit: 3,
    });
    const boosted = await call<{ result: Hit[] }>(points, 'Query', {
      collectionName: 'line',
      prefetch: [{ query: { nearest: { dense: { data: [0, 0] } } }, limit: 3 }],
      query: { formula: { expression: { sum: { sum: [{ variable: '$score' }, { constant: 100 }] } }, defaults: {} } },
      limit: 3,
    });
    const byId = new Map(plain.result.map((hit) => [JSON.stringify(hit.id), hit.score]));
    expect(boosted.result).toHaveLength(3);
    for (const hit of boosted.result) {
      expect(hit.score).toBeCloseTo(byId.get(JSON.stringify(hit.id))! + 100, 4);
    }
  });

  it('should apply the root filter to prefetch results', async () => {
    const result = await call<{ result: Hit[] }>(points, 'Query', {
      collectionName: 'line',
      prefetch: [{ query: { nearest: { dense: { data: [0, 0] } } }, limit: 2 }],
      query: { nearest: { dense: { data: [0, 0] } } },
      filter: { must: [{ field: { key: 'keep', match: { boolean: true } } }] },
      limit: 2,
    });
    expect(ids(result.result)).toEqual([1, 3]);
  });

  it('should rank points closer to a positive example above points closer to a negative one (best_score)', async () => {
    const result = await call<{ result: Hit[] }>(points, 'Recommend', {
      collectionName: 'line',
      positive: [{ num: 1 }],
      negative: [{ num: 4 }],
      strategy: 'BestScore',
      limit: 2,
    });
    // Point 2 (x=1) is near the positive; point 3 (x=5) is as far from either.
    expect(ids(result.result)).toEqual([2, 3]);
    expect(result.result[0].score).toBeGreaterThan(0);
  });

  it('should answer INVALID_ARGUMENT, not INTERNAL, for inputs the engine rejects', async () => {
    expect(
      await code(call(points, 'Search', { collectionName: 'line', vector: [0, 0], limit: 1, params: { hnswEf: 0 } })),
    ).toBe(grpc.status.INVALID_ARGUMENT);
    // Qdrant refuses oversampling below 1 too; the engine's message is kept (the library translates it).
    const oversampling = await call(points, 'Search', {
      collectionName: 'line',
      vector: [0, 0],
      limit: 1,
      params: { quantization: { oversampling: 0.5 } },
    }).catch((e: grpc.ServiceError) => e);
    expect(oversampling).toMatchObject({
      code: grpc.status.INVALID_ARGUMENT,
      details: 'Validation error in body: [oversampling: expected a number >= 1, got 0.5]',
    });
    // The same request over REST: a validation error (422), never a 500.
    const rest = await fetch(`${server.httpUrl}/collections/line/points/search`, {
      method: 'POST',
      headers: { 'api-key': server.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ vector: [0, 0], limit: 1, params: { quantization: { oversampling: 0.5 } } }),
    });
    expect(rest.status).toBe(422);
    expect(await rest.json()).toEqual({
      status: { error: 'Validation error in JSON body: [oversampling: expected a number >= 1, got 0.5]' },
      time: 0,
    });
    expect(
      await code(
        call(points, 'Query', { collectionName: 'line', query: { recommend: { positive: [], negative: [] } } }),
      ),
    ).toBe(grpc.status.INVALID_ARGUMENT);
  });

  it('should answer NOT_FOUND for batches on a missing collection, even empty ones', async () => {
    const missing = 'no-such-collection';
    expect(await code(call(points, 'SearchBatch', { collectionName: missing, searchPoints: [] }))).toBe(
      grpc.status.NOT_FOUND,
    );
    expect(await code(call(points, 'QueryBatch', { collectionName: missing, queryPoints: [] }))).toBe(
      grpc.status.NOT_FOUND,
    );
    expect(await code(call(points, 'RecommendBatch', { collectionName: missing, recommendPoints: [] }))).toBe(
      grpc.status.NOT_FOUND,
    );
    expect(await code(call(points, 'DiscoverBatch', { collectionName: missing, discoverPoints: [] }))).toBe(
      grpc.status.NOT_FOUND,
    );
    expect(await code(call(points, 'UpdateBatch', { collectionName: missing, operations: [] }))).toBe(
      grpc.status.NOT_FOUND,
    );
    // and an empty batch on an existing collection is an empty answer
    const empty = await call<{ result: unknown[] }>(points, 'SearchBatch', {
      collectionName: 'line',
      searchPoints: [],
    });
    expect(empty.result).toEqual([]);
  });

  it('should handle vectors named like Object.prototype members', async () => {
    await call(collections, 'Create', {
      collectionName: 'proto-names',
      vectorsConfig: {
        paramsMap: { map: { a: { size: 2, distance: 'Dot' }, constructor: { size: 2, distance: 'Dot' } } },
      },
    });
    await call(points, 'Upsert', {
      collectionName: 'proto-names',
      wait: true,
      points: [{ id: { num: 1 }, vectors: { vectors: { vectors: { a: { dense: { data: [1, 0] } } } } } }],
    });
    await call(points, 'SetPayload', {
      collectionName: 'proto-names',
      wait: true,
      pointsSelector: { points: { ids: [{ num: 1 }] } },
      payload: { x: { boolValue: true } },
    });
    const got = await call<{ result: Array<{ vectors: { vectors: { vectors: Record<string, unknown> } } }> }>(
      points,
      'Get',
      {
        collectionName: 'proto-names',
        ids: [{ num: 1 }],
        withVectors: { enable: true },
      },
    );
    expect(Object.keys(got.result[0].vectors.vectors.vectors)).toEqual(['a']);
  });

  it('should store, search, return and persist multivectors (MaxSim) and sparse vectors across a restart', async () => {
    await call(collections, 'Create', {
      collectionName: 'multi',
      vectorsConfig: {
        paramsMap: { map: { colbert: { size: 2, distance: 'Dot', multivectorConfig: { comparator: 'MaxSim' } } } },
      },
      sparseVectorsConfig: { map: { words: {} } },
    });
    const doc = (id: number, rows: number[][], indices: number[], values: number[]) => ({
      id: { num: id },
      vectors: {
        vectors: {
          vectors: {
            colbert: { multiDense: { vectors: rows.map((data) => ({ data })) } },
            words: { sparse: { indices, values } },
          },
        },
      },
    });
    await call(points, 'Upsert', {
      collectionName: 'multi',
      wait: true,
      points: [
        doc(
          1,
          [
            [1, 0],
            [0, 1],
          ],
          [1, 5],
          [1, 2],
        ),
        doc(2, [[0.1, 0.1]], [5, 9], [3, 1]),
        doc(3, [[-1, 0]], [2], [1]),
      ],
    });
    const maxSim = async () =>
      call<{ result: Hit[] }>(points, 'Query', {
        collectionName: 'multi',
        query: { nearest: { multiDense: { vectors: [{ data: [1, 0] }, { data: [0, 1] }] } } },
        using: 'colbert',
        limit: 3,
      });
    const sparse = async () =>
      call<{ result: Hit[] }>(points, 'Query', {
        collectionName: 'multi',
        query: { nearest: { sparse: { indices: [5], values: [1] } } },
        using: 'words',
        limit: 3,
      });
    // MaxSim: point 1 scores 1 + 1 = 2; point 2 scores 0.1 + 0.1 = 0.2; point 3 scores -1 + 0 = -1.
    expect(ids((await maxSim()).result)).toEqual([1, 2, 3]);
    expect((await maxSim()).result[0].score).toBeCloseTo(2, 5);
    expect(ids((await sparse()).result)).toEqual([2, 1]);

    server = await server.restart();
    points.close();
    collections.close();
    points = createPointsClient(server.grpcAddress, credentials(server.apiKey));
    collections = createCollectionsClient(server.grpcAddress, credentials(server.apiKey));
    expect(ids((await maxSim()).result)).toEqual([1, 2, 3]);
    expect(ids((await sparse()).result)).toEqual([2, 1]);
    const got = await call<{
      result: Array<{
        vectors: { vectors: { vectors: Record<string, { multiDense?: { vectors: Array<{ data: number[] }> } }> } };
      }>;
    }>(points, 'Get', { collectionName: 'multi', ids: [{ num: 1 }], withVectors: { enable: true } });
    expect(got.result[0].vectors.vectors.vectors.colbert.multiDense?.vectors.map((v) => v.data)).toEqual([
      [1, 0],
      [0, 1],
    ]);
  });
});
