import * as grpc from '@grpc/grpc-js';
import type { CollectionInfo__Output } from '../../apps/server/src/grpc/generated/vectorstore/CollectionInfo';
import { CollectionsClient, createCollectionsClient, credentials, unary } from './support/grpc-clients';
import { RunningServer, startServer } from './support/server-harness';

describe('Collections durability (e2e)', () => {
  let server: RunningServer;
  let client: CollectionsClient;

  const connect = () => {
    client?.close();
    client = createCollectionsClient(server.grpcAddress, credentials(server.apiKey));
  };
  const call = <Res = { result: boolean }>(method: string, request: object) =>
    unary<object, Res>(client, method, request);
  const names = async () =>
    (await call<{ collections: Array<{ name: string }> }>('List', {})).collections.map((c) => c.name);
  const peerIdOf = async (name: string) =>
    (await call<{ peerId: string }>('CollectionClusterInfo', { collectionName: name })).peerId;

  beforeAll(async () => {
    server = await startServer();
    connect();
  });

  afterAll(async () => {
    client?.close();
    await server?.stop();
  });

  it('should bring back collections, aliases, shard keys, metadata and the peer id after a restart', async () => {
    await call('Create', {
      collectionName: 'kept',
      vectorsConfig: { params: { size: 16, distance: 'Euclid' } },
      hnswConfig: { m: 12 },
      metadata: { big: { integerValue: '18446744073709551615'.slice(0, 19) }, pi: { doubleValue: 3.25 } },
    });
    await call('Create', {
      collectionName: 'sharded',
      vectorsConfig: { params: { size: 4, distance: 'Dot' } },
      shardingMethod: 'Custom',
    });
    await call('CreateShardKey', {
      collectionName: 'sharded',
      request: { shardKey: { keyword: 'tenant-1' }, shardsNumber: 2 },
    });
    await call('UpdateAliases', { actions: [{ createAlias: { collectionName: 'kept', aliasName: 'kept-alias' } }] });
    const peerBefore = await peerIdOf('kept');

    server = await server.restart();
    connect();

    expect(await names()).toEqual(['kept', 'sharded']);
    const info = (await call<{ result: CollectionInfo__Output }>('Get', { collectionName: 'kept-alias' })).result;
    expect(info.config?.hnswConfig?.m).toBe('12');
    expect(info.config?.params?.vectorsConfig?.params).toMatchObject({ size: '16', distance: 'Euclid' });
    expect(info.config?.metadata.big).toMatchObject({ integerValue: '1844674407370955161' });
    expect(info.config?.metadata.pi).toMatchObject({ doubleValue: 3.25 });
    const keys = await call<{ shardKeys: Array<{ key: { keyword?: string } }> }>('ListShardKeys', {
      collectionName: 'sharded',
    });
    expect(keys.shardKeys.map((k) => k.key.keyword)).toEqual(['tenant-1']);
    expect(
      (await call<{ shardCount: string }>('CollectionClusterInfo', { collectionName: 'sharded' })).shardCount,
    ).toBe('2');
    expect(await peerIdOf('kept')).toBe(peerBefore);
  });

  it('should keep every acknowledged create when killed with SIGKILL mid-stream', async () => {
    const acknowledged: string[] = [];
    let stop = false;
    const writer = (async () => {
      for (let i = 0; !stop && i < 2000; i++) {
        const name = `stream-${String(i).padStart(4, '0')}`;
        try {
          await call('Create', { collectionName: name, vectorsConfig: { params: { size: 8, distance: 'Cosine' } } });
          acknowledged.push(name);
        } catch {
          return; // the server is gone
        }
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 400));
    await server.kill();
    stop = true;
    await writer;
    expect(acknowledged.length).toBeGreaterThan(5);

    server = await server.restart();
    connect();
    const after = new Set(await names());
    const lost = acknowledged.filter((name) => !after.has(name));
    expect(lost).toEqual([]);
    // Whatever was created is complete: every collection answers Get with its config.
    const last = acknowledged[acknowledged.length - 1];
    const info = (await call<{ result: CollectionInfo__Output }>('Get', { collectionName: last })).result;
    expect(info.config?.params?.vectorsConfig?.params?.size).toBe('8');
  });

  it('should serialise concurrent changes to one collection without losing any', async () => {
    await call('Create', { collectionName: 'busy' });
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        call('Update', { collectionName: 'busy', metadata: { [`k${i}`]: { integerValue: String(i) } } }),
      ),
    );
    const metadata = (await call<{ result: CollectionInfo__Output }>('Get', { collectionName: 'busy' })).result.config!
      .metadata;
    expect(Object.keys(metadata)).toHaveLength(40);

    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () => call('Create', { collectionName: 'race' })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected.every((r) => (r.reason as grpc.ServiceError).code === grpc.status.ALREADY_EXISTS)).toBe(true);
  });

  it('should refuse to start a second server on the same data folder', async () => {
    await expect(startServer({ dataDir: server.dataDir })).rejects.toThrow(/in use by another vectorstore server/);
  });
});

describe('Data folder lock (e2e)', () => {
  it('should keep its (unlocked) lock file on a clean stop and start again after a stop and after a kill', async () => {
    const { existsSync, readFileSync } = await import('node:fs');
    const path = await import('node:path');
    const first = await startServer();
    const lockFile = path.join(first.dataDir, 'vectorstore.lock');
    expect(readFileSync(lockFile, 'utf8')).toBe(String(first.pid));
    await first.stop();
    expect(existsSync(lockFile)).toBe(true);
    const second = await first.restart();
    expect(readFileSync(lockFile, 'utf8')).toBe(String(second.pid));
    await second.kill();
    const third = await second.restart();
    expect(readFileSync(lockFile, 'utf8')).toBe(String(third.pid));
    await third.stop();
  });
});
