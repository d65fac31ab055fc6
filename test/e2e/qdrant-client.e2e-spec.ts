import { RunningServer, startServer } from './support/server-harness';

// The official client, unchanged, on the /qdrant.* paths (CommonJS build; runs on Node 20 despite its engines field).
const { QdrantClient, Distance, ConnectError } =
  require('@qdrant/js-client-grpc') as typeof import('@qdrant/js-client-grpc');

describe('official @qdrant/js-client-grpc against vectorstore (e2e)', () => {
  let server: RunningServer;
  let client: InstanceType<typeof QdrantClient>;

  beforeAll(async () => {
    server = await startServer();
    client = new QdrantClient({
      host: '127.0.0.1',
      port: server.grpcPort,
      https: false,
      apiKey: server.apiKey,
      checkCompatibility: false,
      timeout: 10_000,
    });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('should pass the health check with a compatible version', async () => {
    const reply = await client.api('service').healthCheck({});
    expect(reply.title).toContain('vector search engine');
    expect(reply.version).toMatch(/^1\.19\.\d+$/);
  });

  it('should run the integration flow of the Qdrant JS client', async () => {
    const collections = client.api('collections');
    const name = 'js-client';
    expect(typeof (await collections.delete({ collectionName: name })).result).toBe('boolean');
    const created = await collections.create({
      collectionName: name,
      vectorsConfig: { config: { case: 'params', value: { size: 4n, distance: Distance.Dot } } },
      optimizersConfig: { defaultSegmentNumber: 2n },
      replicationFactor: 2,
    });
    expect(created.result).toBe(true);
    expect((await collections.list({})).collections.map((c) => c.name)).toContain(name);
    expect(
      (
        await collections.updateAliases({
          actions: [{ action: { case: 'createAlias', value: { collectionName: name, aliasName: `${name}-alias` } } }],
        })
      ).result,
    ).toBe(true);
    const info = await collections.get({ collectionName: `${name}-alias` });
    expect(info.result?.config?.params?.replicationFactor).toBe(2);
    expect(info.result?.config?.optimizerConfig?.defaultSegmentNumber).toBe(2n);
    const vectors = info.result?.config?.params?.vectorsConfig?.config;
    expect(vectors?.case).toBe('params');
    expect(vectors?.case === 'params' && vectors.value.size).toBe(4n);
    expect((await collections.collectionExists({ collectionName: `${name}-alias` })).result?.exists).toBe(true);
    const cluster = await collections.collectionClusterInfo({ collectionName: name });
    expect(cluster.localShards).toHaveLength(1);
    expect((await collections.delete({ collectionName: name })).result).toBe(true);
    expect((await collections.listAliases({})).aliases.map((a) => a.aliasName)).not.toContain(`${name}-alias`);
  });

  it('should surface errors with their gRPC codes', async () => {
    const collections = client.api('collections');
    await expect(collections.get({ collectionName: 'missing' })).rejects.toMatchObject({ code: 5 });
    const error = await collections
      .create({
        collectionName: 'bad',
        vectorsConfig: { config: { case: 'params', value: { size: 0n, distance: Distance.Cosine } } },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectError);
    expect((error as { code: number }).code).toBe(3);
    expect((error as Error).message).toContain('vectors_config.params.size');
    await expect(
      collections.updateCollectionClusterSetup({
        collectionName: 'missing',
        operation: { case: 'moveShard', value: { shardId: 0, fromPeerId: 1n, toPeerId: 2n } },
      }),
    ).rejects.toMatchObject({ code: 12 });
  });

  it('should send gzip-compressed large requests that the server accepts', async () => {
    const collections = client.api('collections');
    const metadata = { blob: { kind: { case: 'stringValue' as const, value: 'x'.repeat(4096) } } };
    expect((await collections.create({ collectionName: 'large-request', metadata })).result).toBe(true);
    const info = await collections.get({ collectionName: 'large-request' });
    const blob = info.result?.config?.metadata.blob?.kind;
    expect(blob?.case === 'stringValue' && blob.value.length).toBe(4096);
  });

  it('should manage shard keys on a custom-sharded collection', async () => {
    const collections = client.api('collections');
    await collections.create({ collectionName: 'custom', shardingMethod: 1 });
    expect(
      (
        await collections.createShardKey({
          collectionName: 'custom',
          request: { shardKey: { key: { case: 'keyword', value: 'a' } } },
        })
      ).result,
    ).toBe(true);
    const keys = await collections.listShardKeys({ collectionName: 'custom' });
    expect(keys.shardKeys.map((k) => k.key?.key.value)).toEqual(['a']);
    expect(
      (
        await collections.deleteShardKey({
          collectionName: 'custom',
          request: { shardKey: { key: { case: 'keyword', value: 'a' } } },
        })
      ).result,
    ).toBe(true);
  });
});
