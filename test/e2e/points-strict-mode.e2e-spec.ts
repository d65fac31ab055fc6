import * as grpc from '@grpc/grpc-js';
import { createCollectionsClient, createPointsClient, credentials, unary } from './support/grpc-clients';
import { RunningServer, startServer } from './support/server-harness';

jest.setTimeout(60_000);

const point = (id: number, note = 'x') => ({
  id: { num: id },
  vectors: { vector: { dense: { data: [id, 1, 0, 0] } } },
  payload: { note: { stringValue: note }, n: { integerValue: String(id) } },
});

describe('Strict mode (e2e)', () => {
  let server: RunningServer;
  let points: grpc.Client;
  let collections: grpc.Client;

  const call = <Res = unknown>(client: grpc.Client, method: string, request: object) =>
    unary<object, Res>(client, method, request);
  const rejected = async (promise: Promise<unknown>): Promise<grpc.ServiceError> => {
    const error = (await promise.then(
      () => undefined,
      (e: unknown) => e,
    )) as grpc.ServiceError | undefined;
    if (!error) throw new Error('expected the call to fail');
    return error;
  };
  const expectLimit = async (promise: Promise<unknown>, limit: string) => {
    const error = await rejected(promise);
    expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error.details).toContain(limit);
  };

  beforeAll(async () => {
    server = await startServer();
    points = createPointsClient(server.grpcAddress, credentials(server.apiKey));
    collections = createCollectionsClient(server.grpcAddress, credentials(server.apiKey));
    await call(collections, 'Create', {
      collectionName: 'strict',
      vectorsConfig: { params: { size: 4, distance: 'Dot' } },
      strictModeConfig: {
        enabled: true,
        maxQueryLimit: 5,
        maxTimeout: 10,
        unindexedFilteringRetrieve: false,
        unindexedFilteringUpdate: false,
        searchMaxHnswEf: 32,
        searchAllowExact: false,
        searchMaxOversampling: 2,
        upsertMaxBatchsize: 3,
        maxPointsCount: 6,
        filterMaxConditions: 2,
        conditionMaxSize: 2,
        maxPayloadIndexCount: 1,
      },
    });
    await call(points, 'Upsert', { collectionName: 'strict', wait: true, points: [point(1), point(2), point(3)] });
  });

  afterAll(async () => {
    points?.close();
    collections?.close();
    await server?.stop();
  });

  it('should allow requests within every limit', async () => {
    await call(points, 'CreateFieldIndex', {
      collectionName: 'strict',
      fieldName: 'n',
      fieldType: 'FieldTypeInteger',
      wait: true,
    });
    const hits = await call<{ result: unknown[] }>(points, 'Search', {
      collectionName: 'strict',
      vector: [1, 0, 0, 0],
      limit: 5,
      params: { hnswEf: 32 },
      filter: { must: [{ field: { key: 'n', match: { integers: { integers: ['1', '2'] } } } }] },
    });
    expect(hits.result).toHaveLength(2);
  });

  it('should reject each read limit with INVALID_ARGUMENT naming the limit', async () => {
    await expectLimit(
      call(points, 'Search', { collectionName: 'strict', vector: [1, 0, 0, 0], limit: 6 }),
      'Limit exceeded 6 > 5 for "limit"',
    );
    await expectLimit(call(points, 'Scroll', { collectionName: 'strict', limit: 50 }), 'for "limit"');
    await expectLimit(
      call(points, 'Search', { collectionName: 'strict', vector: [1, 0, 0, 0], limit: 1, timeout: 60 }),
      'Limit exceeded 60 > 10 for "timeout"',
    );
    await expectLimit(
      call(points, 'Search', { collectionName: 'strict', vector: [1, 0, 0, 0], limit: 1, params: { hnswEf: 64 } }),
      'for "hnsw_ef"',
    );
    await expectLimit(
      call(points, 'Search', { collectionName: 'strict', vector: [1, 0, 0, 0], limit: 1, params: { exact: true } }),
      'Exact search disabled!',
    );
    await expectLimit(
      call(points, 'Search', {
        collectionName: 'strict',
        vector: [1, 0, 0, 0],
        limit: 1,
        params: { quantization: { oversampling: 3 } },
      }),
      'for "oversampling"',
    );
    await expectLimit(
      call(points, 'Count', {
        collectionName: 'strict',
        filter: { must: [{ field: { key: 'note', match: { keyword: 'x' } } }] },
      }),
      'Index required but not found for "note" of one of the following types: [keyword, uuid]',
    );
    const three = ['1', '2', '3'].map((n) => ({ field: { key: 'n', match: { integer: n } } }));
    await expectLimit(
      call(points, 'Count', { collectionName: 'strict', filter: { should: three } }),
      'Filter condition limit reached (3 > 2)',
    );
    await expectLimit(
      call(points, 'Count', {
        collectionName: 'strict',
        filter: { must: [{ field: { key: 'n', match: { integers: { integers: ['1', '2', '3'] } } } }] },
      }),
      'Condition size limit reached (3 > 2)',
    );
  });

  it('should reject each write limit with INVALID_ARGUMENT naming the limit', async () => {
    await expectLimit(
      call(points, 'Upsert', { collectionName: 'strict', points: [point(10), point(11), point(12), point(13)] }),
      'Limit exceeded 4 > 3 for "upsert limit"',
    );
    await expectLimit(
      call(points, 'Delete', {
        collectionName: 'strict',
        points: { filter: { must: [{ field: { key: 'note', match: { keyword: 'x' } } }] } },
      }),
      'Index required but not found for "note"',
    );
    await call(points, 'Upsert', { collectionName: 'strict', wait: true, points: [point(4), point(5), point(6)] });
    await expectLimit(
      call(points, 'Upsert', { collectionName: 'strict', points: [point(7)] }),
      'Max points count limit of 6 reached!',
    );
    await expectLimit(
      call(points, 'CreateFieldIndex', {
        collectionName: 'strict',
        fieldName: 'note',
        fieldType: 'FieldTypeKeyword',
        wait: true,
      }),
      'Collection already has the maximum number of payload indices (1)',
    );
    const count = await call<{ result: { count: string } }>(points, 'Count', { collectionName: 'strict' });
    expect(count.result.count).toBe('6');
  });

  it('should limit payload storage size', async () => {
    await call(collections, 'Create', {
      collectionName: 'small-payloads',
      vectorsConfig: { params: { size: 4, distance: 'Dot' } },
      strictModeConfig: { enabled: true, maxCollectionPayloadSizeBytes: 400 },
    });
    // As in Qdrant, what the collection holds is checked: the write that reaches the limit passes, the next fails.
    await call(points, 'Upsert', { collectionName: 'small-payloads', wait: true, points: [point(1, 'a'.repeat(100))] });
    await call(points, 'Upsert', { collectionName: 'small-payloads', wait: true, points: [point(2, 'b'.repeat(400))] });
    await expectLimit(
      call(points, 'Upsert', { collectionName: 'small-payloads', points: [point(3, 'c')] }),
      'Max payload storage size limit of',
    );
  });

  it('should answer RESOURCE_EXHAUSTED with retry-after once the rate limit is used up', async () => {
    await call(collections, 'Create', {
      collectionName: 'rated',
      vectorsConfig: { params: { size: 4, distance: 'Dot' } },
      strictModeConfig: { enabled: true, writeRateLimit: 2, readRateLimit: 3 },
    });
    await call(points, 'Upsert', { collectionName: 'rated', points: [point(1)] });
    await call(points, 'Upsert', { collectionName: 'rated', points: [point(2)] });
    const writeError = await rejected(call(points, 'Upsert', { collectionName: 'rated', points: [point(3)] }));
    expect(writeError.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    const retryAfter = Number(writeError.metadata.get('retry-after')[0]);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    for (let i = 0; i < 3; i++) await call(points, 'Count', { collectionName: 'rated' });
    const readError = await rejected(call(points, 'Count', { collectionName: 'rated' }));
    expect(readError.code).toBe(grpc.status.RESOURCE_EXHAUSTED);

    // A new collection under the same name starts with full buckets, as a new Qdrant collection does.
    await call(collections, 'Delete', { collectionName: 'rated' });
    await call(collections, 'Create', {
      collectionName: 'rated',
      vectorsConfig: { params: { size: 4, distance: 'Dot' } },
      strictModeConfig: { enabled: true, writeRateLimit: 2, readRateLimit: 3 },
    });
    await call(points, 'Upsert', { collectionName: 'rated', points: [point(1)] });
    await call(points, 'Count', { collectionName: 'rated' });
  });

  it('should not apply limits when strict mode is disabled', async () => {
    await call(collections, 'Update', { collectionName: 'strict', strictModeConfig: { enabled: false } });
    const hits = await call<{ result: unknown[] }>(points, 'Search', {
      collectionName: 'strict',
      vector: [1, 0, 0, 0],
      limit: 50,
      params: { exact: true },
    });
    expect(hits.result).toHaveLength(6);
  });
});
