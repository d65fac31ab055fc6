import * as grpc from '@grpc/grpc-js';
import { statSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { createCollectionsClient, createPointsClient, credentials, unary } from './support/grpc-clients';
import { RunningServer, startServer } from './support/server-harness';

jest.setTimeout(60_000);

describe('Hardening found in review (e2e)', () => {
  let server: RunningServer;
  let collections: grpc.Client;
  const call = <Res = unknown>(method: string, request: object, client: grpc.Client = collections) =>
    unary<object, Res>(client, method, request);
  const code = async (promise: Promise<unknown>) =>
    (
      (await promise.then(
        () => undefined,
        (e: unknown) => e,
      )) as grpc.ServiceError | undefined
    )?.code;
  const connect = () => {
    collections?.close();
    collections = createCollectionsClient(server.grpcAddress, credentials(server.apiKey));
  };

  beforeAll(async () => {
    server = await startServer();
    connect();
  });

  afterAll(async () => {
    collections?.close();
    await server?.stop();
  });

  it('should refuse an update for a vector named like an Object.prototype member, and load after a restart', async () => {
    await call('Create', {
      collectionName: 'named',
      vectorsConfig: { paramsMap: { map: { a: { size: 2, distance: 'Dot' } } } },
    });
    expect(
      await code(
        call('Update', {
          collectionName: 'named',
          vectorsConfig: { paramsMap: { map: { toString: { onDisk: true } } } },
        }),
      ),
    ).toBe(grpc.status.INVALID_ARGUMENT);
    expect(
      await code(
        call('Update', {
          collectionName: 'named',
          sparseVectorsConfig: { map: { hasOwnProperty: { modifier: 'Idf' } } },
        }),
      ),
    ).toBe(grpc.status.INVALID_ARGUMENT);
    server = await server.restart();
    connect();
    const info = await call<{
      result: {
        status: string;
        config: { params: { vectorsConfig: { paramsMap: { map: Record<string, unknown> } } } };
      };
    }>('Get', { collectionName: 'named' });
    expect(info.result.status).toBe('Green');
    expect(Object.keys(info.result.config.params.vectorsConfig.paramsMap.map)).toEqual(['a']);
  });

  it('should keep a vector named __proto__', async () => {
    await call('Create', {
      collectionName: 'protoname',
      vectorsConfig: { paramsMap: { map: { ['__proto__']: { size: 3, distance: 'Cosine' } } } },
    });
    const info = await call<{
      result: { config: { params: { vectorsConfig: { paramsMap: { map: Record<string, { size: string }> } } } } };
    }>('Get', { collectionName: 'protoname' });
    expect(Object.keys(info.result.config.params.vectorsConfig.paramsMap.map)).toEqual(['__proto__']);
  });

  it('should reject enum values the spec does not define', async () => {
    expect(await code(call('Create', { collectionName: 'bad-enum', shardingMethod: 7 }))).toBe(
      grpc.status.INVALID_ARGUMENT,
    );
    await call('Create', { collectionName: 'custom', shardingMethod: 'Custom' });
    expect(
      await code(
        call('CreateShardKey', { collectionName: 'custom', request: { shardKey: { keyword: 'a' }, initialState: 42 } }),
      ),
    ).toBe(grpc.status.INVALID_ARGUMENT);
    expect(
      await code(call('Create', { collectionName: 'huge-wal', walConfig: { walCapacityMb: '100000000000' } })),
    ).toBe(grpc.status.INVALID_ARGUMENT);
  });

  it('should refuse a request over 64 MiB with RESOURCE_EXHAUSTED and keep serving', async () => {
    const blob = 'x'.repeat(65 * 1024 * 1024);
    expect(await code(call('Create', { collectionName: 'big', metadata: { blob: { stringValue: blob } } }))).toBe(
      grpc.status.RESOURCE_EXHAUSTED,
    );
    expect(await code(call('List', {}))).toBeUndefined();
  });

  it('should keep write-ahead log files owner-only', async () => {
    await call('Create', { collectionName: 'private', vectorsConfig: { params: { size: 2, distance: 'Dot' } } });
    const points = createPointsClient(server.grpcAddress, credentials(server.apiKey));
    await unary(points, 'Upsert', {
      collectionName: 'private',
      wait: true,
      points: [{ id: { num: 1 }, vectors: { vector: { dense: { data: [1, 0] } } } }],
    });
    points.close();
    const collectionsDir = path.join(server.dataDir, 'collections');
    const walFiles = readdirSync(collectionsDir, { recursive: true })
      .map(String)
      .filter((name) => name.includes(`${path.sep}wal${path.sep}`) && name.endsWith('.wal'));
    expect(walFiles.length).toBeGreaterThan(0);
    for (const file of walFiles) expect(statSync(path.join(collectionsDir, file)).mode & 0o077).toBe(0);
  });

  it('should throttle a burst of parallel wrong logins', async () => {
    const attempts = await Promise.all(
      Array.from({ length: 30 }, () =>
        fetch(`${server.httpUrl}/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: server.adminEmail, password: 'wrong password' }),
        }).then((r) => r.status),
      ),
    );
    expect(attempts.filter((s) => s === 429).length).toBeGreaterThanOrEqual(20);
    expect(attempts.every((s) => s === 401 || s === 429)).toBe(true);
  });
});
