import * as grpc from '@grpc/grpc-js';
import type { CollectionInfo__Output } from '../../apps/server/src/grpc/generated/vectorstore/CollectionInfo';
import { CollectionsClient, createClient, createCollectionsClient, credentials, unary } from './support/grpc-clients';
import { RunningServer, startServer } from './support/server-harness';

interface OperationResponse {
  result: boolean;
  time: number;
}

describe('Collections service (gRPC, e2e)', () => {
  let server: RunningServer;
  let client: CollectionsClient;
  let qdrantPathClient: CollectionsClient;

  const call = <Res = OperationResponse>(method: string, request: object, via: CollectionsClient = client) =>
    unary<object, Res>(via, method, request);
  const expectCode = async (promise: Promise<unknown>, code: grpc.status, messagePart?: string | RegExp) => {
    const error = (await promise.then(
      () => undefined,
      (e: unknown) => e,
    )) as grpc.ServiceError | undefined;
    expect(error).toBeDefined();
    expect(error?.code).toBe(code);
    if (messagePart !== undefined) expect(error?.details).toMatch(messagePart);
    return error!;
  };
  const info = async (name: string) =>
    (await call<{ result: CollectionInfo__Output }>('Get', { collectionName: name })).result;
  const dense = (size: number, distance = 'Cosine') => ({ params: { size, distance } });

  beforeAll(async () => {
    server = await startServer();
    client = createCollectionsClient(server.grpcAddress, credentials(server.apiKey));
    qdrantPathClient = createCollectionsClient(server.grpcAddress, credentials(server.apiKey), 'qdrant');
  });

  afterAll(async () => {
    client?.close();
    qdrantPathClient?.close();
    await server?.stop();
  });

  describe('Create and Get', () => {
    it('should create a collection and report every default through Get', async () => {
      const created = await call('Create', { collectionName: 'defaults', vectorsConfig: dense(4, 'Dot') });
      expect(created.result).toBe(true);
      expect(typeof created.time).toBe('number');

      const result = await info('defaults');
      expect(result.status).toBe('Green');
      expect(result.optimizerStatus).toEqual({ ok: true, error: '' });
      expect(result.pointsCount).toBe('0');
      expect(result.indexedVectorsCount).toBe('0');
      expect(result.updateQueue?.length).toBe('0');
      const config = result.config!;
      expect(config.params?.vectorsConfig?.params).toMatchObject({ size: '4', distance: 'Dot' });
      expect(config.params).toMatchObject({
        shardNumber: 1,
        replicationFactor: 1,
        writeConsistencyFactor: 1,
        onDiskPayload: true,
      });
      expect(config.hnswConfig).toMatchObject({
        m: '16',
        efConstruct: '100',
        fullScanThreshold: '10000',
        maxIndexingThreads: '0',
        onDisk: false,
      });
      expect(config.optimizerConfig).toMatchObject({
        deletedThreshold: 0.2,
        vacuumMinVectorNumber: '1000',
        defaultSegmentNumber: '0',
        indexingThreshold: '20000',
        flushIntervalSec: '5',
        maxOptimizationThreads: { setting: 'Auto' },
      });
      expect(config.walConfig).toMatchObject({ walCapacityMb: '32', walSegmentsAhead: '0', walRetainClosed: '1' });
      expect(config.quantizationConfig).toBeUndefined();
      expect(config.strictModeConfig).toBeUndefined();
    });

    it('should serve the same handlers at /qdrant.Collections/* and /vectorstore.Collections/*', async () => {
      await call('Create', { collectionName: 'via-qdrant-path', vectorsConfig: dense(8) }, qdrantPathClient);
      const viaOurs = await info('via-qdrant-path');
      expect(viaOurs.config?.params?.vectorsConfig?.params?.size).toBe('8');
      const viaQdrant = await call<{ result: CollectionInfo__Output }>(
        'Get',
        { collectionName: 'defaults' },
        qdrantPathClient,
      );
      expect(viaQdrant.result.config?.params?.vectorsConfig?.params?.distance).toBe('Dot');
    });

    it('should create a collection without vectors_config as an empty named map', async () => {
      await call('Create', { collectionName: 'no-vectors' });
      const result = await info('no-vectors');
      expect(result.config?.params?.vectorsConfig?.paramsMap?.map).toEqual({});
    });

    it('should keep named vectors, sparse vectors, quantization, strict mode and metadata as given', async () => {
      await call('Create', {
        collectionName: 'rich',
        vectorsConfig: {
          paramsMap: {
            map: {
              image: { size: 512, distance: 'Euclid', datatype: 'Float16', onDisk: true, hnswConfig: { m: 32 } },
              text: {
                size: 384,
                distance: 'Cosine',
                multivectorConfig: { comparator: 'MaxSim' },
                quantizationConfig: { binary: { encoding: 'TwoBits', queryEncoding: { setting: 'Scalar8Bits' } } },
              },
            },
          },
        },
        sparseVectorsConfig: { map: { bm25: { modifier: 'Idf', index: { onDisk: true, datatype: 'Uint8' } } } },
        quantizationConfig: { scalar: { type: 'Int8', quantile: 0.99, alwaysRam: true } },
        strictModeConfig: {
          enabled: true,
          maxQueryLimit: 100,
          sparseConfig: { sparseConfig: { bm25: { maxLength: 1000 } } },
        },
        hnswConfig: { efConstruct: 200, payloadM: 8 },
        optimizersConfig: { indexingThreshold: 0, maxOptimizationThreads: { value: 2 } },
        walConfig: { walCapacityMb: 64 },
        shardNumber: 3,
        metadata: {
          team: { stringValue: 'search' },
          big: { integerValue: '9007199254740993' },
          ratio: { doubleValue: 2 },
        },
      });
      const config = (await info('rich')).config!;
      const map = config.params!.vectorsConfig!.paramsMap!.map;
      expect(map.image).toMatchObject({
        size: '512',
        distance: 'Euclid',
        datatype: 'Float16',
        onDisk: true,
        hnswConfig: { m: '32' },
      });
      expect(map.text.multivectorConfig).toEqual({ comparator: 'MaxSim' });
      expect(map.text.quantizationConfig?.binary).toMatchObject({
        encoding: 'TwoBits',
        queryEncoding: { setting: 'Scalar8Bits' },
      });
      expect(config.params!.sparseVectorsConfig!.map.bm25).toMatchObject({
        modifier: 'Idf',
        index: { onDisk: true, datatype: 'Uint8' },
      });
      expect(config.quantizationConfig?.scalar).toMatchObject({ type: 'Int8', alwaysRam: true });
      expect(config.quantizationConfig?.scalar?.quantile).toBeCloseTo(0.99, 5);
      expect(config.strictModeConfig).toMatchObject({ enabled: true, maxQueryLimit: 100 });
      expect(config.strictModeConfig?.sparseConfig?.sparseConfig.bm25.maxLength).toBe('1000');
      expect(config.hnswConfig).toMatchObject({ m: '16', efConstruct: '200', payloadM: '8' });
      expect(config.optimizerConfig).toMatchObject({ indexingThreshold: '0', maxOptimizationThreads: { value: '2' } });
      expect(config.walConfig).toMatchObject({ walCapacityMb: '64', walRetainClosed: '1' });
      expect(config.params!.shardNumber).toBe(3);
      expect(config.metadata.team).toMatchObject({ stringValue: 'search' });
      expect(config.metadata.big).toMatchObject({ integerValue: '9007199254740993' });
      expect(config.metadata.ratio).toMatchObject({ doubleValue: 2 });
    });

    it('should answer ALREADY_EXISTS for a duplicate create', async () => {
      await expectCode(
        call('Create', { collectionName: 'defaults', vectorsConfig: dense(4) }),
        grpc.status.ALREADY_EXISTS,
        'Collection `defaults` already exists',
      );
    });

    it('should answer NOT_FOUND for an unknown collection', async () => {
      await expectCode(
        call('Get', { collectionName: 'nope' }),
        grpc.status.NOT_FOUND,
        "Not found: Collection `nope` doesn't exist!",
      );
      await expectCode(call('Update', { collectionName: 'nope', hnswConfig: { m: 8 } }), grpc.status.NOT_FOUND);
      await expectCode(call('CollectionClusterInfo', { collectionName: 'nope' }), grpc.status.NOT_FOUND);
      await expectCode(call('ListShardKeys', { collectionName: 'nope' }), grpc.status.NOT_FOUND);
    });
  });

  describe('malformed requests', () => {
    const cases: Array<[string, object, string]> = [
      ['missing name', { vectorsConfig: dense(4) }, 'collection_name'],
      ['name with a slash', { collectionName: 'a/b', vectorsConfig: dense(4) }, 'collection_name'],
      ['name of 256 characters', { collectionName: 'x'.repeat(256), vectorsConfig: dense(4) }, 'collection_name'],
      ['size 0', { collectionName: 'bad', vectorsConfig: dense(0) }, 'vectors_config.params.size'],
      ['size 65537', { collectionName: 'bad', vectorsConfig: dense(65537) }, 'vectors_config.params.size'],
      [
        'distance 0',
        { collectionName: 'bad', vectorsConfig: { params: { size: 4, distance: 'UnknownDistance' } } },
        'vectors_config.params.distance',
      ],
      [
        'no distance',
        { collectionName: 'bad', vectorsConfig: { params: { size: 4 } } },
        'vectors_config.params.distance',
      ],
      [
        'full_scan_threshold 9',
        { collectionName: 'bad', vectorsConfig: dense(4), hnswConfig: { fullScanThreshold: 9 } },
        'hnsw_config.full_scan_threshold',
      ],
      [
        'ef_construct 3',
        { collectionName: 'bad', vectorsConfig: dense(4), hnswConfig: { efConstruct: 3 } },
        'hnsw_config.ef_construct',
      ],
      ['empty vectors_config oneof', { collectionName: 'bad', vectorsConfig: {} }, 'vectors_config'],
      [
        'empty quantization oneof',
        { collectionName: 'bad', vectorsConfig: dense(4), quantizationConfig: {} },
        'quantization_config',
      ],
      [
        'empty max_optimization_threads oneof',
        { collectionName: 'bad', optimizersConfig: { maxOptimizationThreads: {} } },
        'max_optimization_threads',
      ],
      [
        'quantile 0.2',
        { collectionName: 'bad', quantizationConfig: { scalar: { type: 'Int8', quantile: 0.2 } } },
        'quantization_config.scalar.quantile',
      ],
      ['wal_capacity_mb 0', { collectionName: 'bad', walConfig: { walCapacityMb: 0 } }, 'wal_config.wal_capacity_mb'],
      ['shard_number 0', { collectionName: 'bad', shardNumber: 0 }, 'shard_number'],
      ['replication_factor 0', { collectionName: 'bad', replicationFactor: 0 }, 'replication_factor'],
      [
        'vacuum_min_vector_number 10',
        { collectionName: 'bad', optimizersConfig: { vacuumMinVectorNumber: 10 } },
        'vacuum_min_vector_number',
      ],
      [
        'dense and sparse with the same name',
        {
          collectionName: 'bad',
          vectorsConfig: { paramsMap: { map: { v: { size: 4, distance: 'Dot' } } } },
          sparseVectorsConfig: { map: { v: {} } },
        },
        'unique',
      ],
    ];

    it.each(cases)('should reject %s with INVALID_ARGUMENT naming the field', async (_label, request, field) => {
      const error = await expectCode(call('Create', request), grpc.status.INVALID_ARGUMENT, 'Validation error in body');
      expect(error.details).toContain(field);
    });

    it('should reject empty oneofs of the other requests', async () => {
      await expectCode(call('UpdateAliases', { actions: [{}] }), grpc.status.INVALID_ARGUMENT, 'AliasOperation');
      await expectCode(
        call('UpdateCollectionClusterSetup', { collectionName: 'defaults' }),
        grpc.status.INVALID_ARGUMENT,
        'empty operation',
      );
      await expectCode(
        call('CreateShardKey', { collectionName: 'defaults' }),
        grpc.status.INVALID_ARGUMENT,
        'empty request',
      );
      await expectCode(
        call('DeleteShardKey', { collectionName: 'defaults' }),
        grpc.status.INVALID_ARGUMENT,
        'empty request',
      );
      await expectCode(
        call('Update', { collectionName: 'defaults', vectorsConfig: {} }),
        grpc.status.INVALID_ARGUMENT,
        'vectors_config',
      );
    });

    it('should reject timeout 0 on Update, Delete and UpdateAliases but not on Create', async () => {
      await expectCode(
        call('Update', { collectionName: 'defaults', timeout: 0 }),
        grpc.status.INVALID_ARGUMENT,
        'timeout',
      );
      await expectCode(
        call('Delete', { collectionName: 'defaults', timeout: 0 }),
        grpc.status.INVALID_ARGUMENT,
        'timeout',
      );
      await expectCode(call('UpdateAliases', { actions: [], timeout: 0 }), grpc.status.INVALID_ARGUMENT, 'timeout');
      expect((await call('Create', { collectionName: 'timeout-zero', timeout: 0 })).result).toBe(true);
    });

    it('should keep serving after every malformed request', async () => {
      const list = await call<{ collections: Array<{ name: string }> }>('List', {});
      expect(list.collections.map((c) => c.name)).toContain('defaults');
      expect(
        (await call<{ result: { exists: boolean } }>('CollectionExists', { collectionName: 'bad' })).result.exists,
      ).toBe(false);
    });

    it('should accept a gzip-compressed request', async () => {
      const gzipClient = createCollectionsClient(server.grpcAddress, credentials(server.apiKey));
      const compressed = new (
        Object.getPrototypeOf(gzipClient).constructor as new (
          a: string,
          c: grpc.ChannelCredentials,
          o: object,
        ) => CollectionsClient
      )(server.grpcAddress, grpc.credentials.createInsecure(), {
        'grpc.default_compression_algorithm': 2,
        interceptors: [],
      });
      const metadata = credentials(server.apiKey);
      const name = `gz-${'z'.repeat(3000)}`;
      const error = await new Promise<grpc.ServiceError | null>((resolve) =>
        (
          compressed as unknown as {
            Create: (r: object, m: grpc.Metadata, cb: (e: grpc.ServiceError | null) => void) => void;
          }
        ).Create({ collectionName: name, metadata: { note: { stringValue: 'x'.repeat(2000) } } }, metadata, (e) =>
          resolve(e),
        ),
      );
      // The body was decompressed and validated: the name is too long.
      expect(error?.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(error?.details).toContain('collection_name');
      compressed.close();
      gzipClient.close();
    });
  });

  describe('Update', () => {
    beforeAll(async () => {
      await call('Create', {
        collectionName: 'upd',
        vectorsConfig: {
          paramsMap: {
            map: {
              a: {
                size: 4,
                distance: 'Dot',
                hnswConfig: { m: 4 },
                quantizationConfig: { product: { compression: 'x16' } },
              },
              b: { size: 8, distance: 'Euclid' },
            },
          },
        },
        sparseVectorsConfig: { map: { s: { index: { fullScanThreshold: 100 } } } },
        metadata: { keep: { stringValue: 'yes' }, drop: { boolValue: true } },
      });
    });

    it('should merge collection-level diffs and leave other fields alone', async () => {
      await call('Update', {
        collectionName: 'upd',
        hnswConfig: { efConstruct: 64 },
        optimizersConfig: { indexingThreshold: 1000 },
        params: { replicationFactor: 2, onDiskPayload: false },
        quantizationConfig: { binary: {} },
        strictModeConfig: { enabled: true, maxTimeout: 10 },
      });
      const config = (await info('upd')).config!;
      expect(config.hnswConfig).toMatchObject({ m: '16', efConstruct: '64' });
      expect(config.optimizerConfig).toMatchObject({ indexingThreshold: '1000', deletedThreshold: 0.2 });
      expect(config.params).toMatchObject({ replicationFactor: 2, onDiskPayload: false, writeConsistencyFactor: 1 });
      expect(config.quantizationConfig?.binary).toBeDefined();
      expect(config.strictModeConfig).toMatchObject({ enabled: true, maxTimeout: 10 });
      await call('Update', {
        collectionName: 'upd',
        strictModeConfig: { maxQueryLimit: 5 },
        quantizationConfig: { disabled: {} },
      });
      const after = (await info('upd')).config!;
      expect(after.strictModeConfig).toMatchObject({ enabled: true, maxTimeout: 10, maxQueryLimit: 5 });
      expect(after.quantizationConfig).toBeUndefined();
    });

    it('should merge per named vector, and an empty hnsw diff removes the override', async () => {
      await call('Update', {
        collectionName: 'upd',
        vectorsConfig: {
          paramsMap: {
            map: {
              a: { hnswConfig: {}, quantizationConfig: { disabled: {} }, onDisk: true },
              b: { hnswConfig: { efConstruct: 8 } },
            },
          },
        },
      });
      const map = (await info('upd')).config!.params!.vectorsConfig!.paramsMap!.map;
      expect(map.a.hnswConfig).toBeUndefined();
      expect(map.a.quantizationConfig).toBeUndefined();
      expect(map.a.onDisk).toBe(true);
      expect(map.b.hnswConfig).toMatchObject({ efConstruct: '8' });
    });

    it('should reject a diff for a vector that does not exist', async () => {
      await expectCode(
        call('Update', { collectionName: 'upd', vectorsConfig: { paramsMap: { map: { zzz: { onDisk: true } } } } }),
        grpc.status.INVALID_ARGUMENT,
        'zzz',
      );
    });

    it('should merge sparse vector params', async () => {
      await call('Update', { collectionName: 'upd', sparseVectorsConfig: { map: { s: { modifier: 'Idf' } } } });
      const sparse = (await info('upd')).config!.params!.sparseVectorsConfig!.map.s;
      expect(sparse).toMatchObject({ modifier: 'Idf', index: { fullScanThreshold: '100' } });
    });

    it('should merge metadata, a null value removing the key', async () => {
      await call('Update', {
        collectionName: 'upd',
        metadata: { drop: { nullValue: 'NULL_VALUE' }, added: { integerValue: '7' } },
      });
      const metadata = (await info('upd')).config!.metadata;
      expect(Object.keys(metadata).sort()).toEqual(['added', 'keep']);
      expect(metadata.added).toMatchObject({ integerValue: '7' });
    });

    it('should reject invalid values in a diff', async () => {
      await expectCode(
        call('Update', { collectionName: 'upd', hnswConfig: { efConstruct: 1 } }),
        grpc.status.INVALID_ARGUMENT,
        'hnsw_config.ef_construct',
      );
      await expectCode(
        call('Update', { collectionName: 'upd', params: { replicationFactor: 0 } }),
        grpc.status.INVALID_ARGUMENT,
        'params.replication_factor',
      );
    });
  });

  describe('aliases', () => {
    beforeAll(async () => {
      await call('Create', { collectionName: 'target-a', vectorsConfig: dense(4) });
      await call('Create', { collectionName: 'target-b', vectorsConfig: dense(4) });
    });

    it('should resolve an alias in Get, Exists and Update', async () => {
      expect(
        (await call('UpdateAliases', { actions: [{ createAlias: { collectionName: 'target-a', aliasName: 'live' } }] }))
          .result,
      ).toBe(true);
      expect(
        (await call<{ result: { exists: boolean } }>('CollectionExists', { collectionName: 'live' })).result.exists,
      ).toBe(true);
      await call('Update', { collectionName: 'live', hnswConfig: { m: 24 } });
      expect((await info('target-a')).config!.hnswConfig!.m).toBe('24');
      expect((await info('live')).config!.hnswConfig!.m).toBe('24');
    });

    it('should re-point an existing alias on create, rename it and delete it', async () => {
      await call('UpdateAliases', { actions: [{ createAlias: { collectionName: 'target-b', aliasName: 'live' } }] });
      expect((await info('live')).config!.hnswConfig!.m).toBe('16');
      await call('UpdateAliases', { actions: [{ renameAlias: { oldAliasName: 'live', newAliasName: 'prod' } }] });
      const aliases = await call<{ aliases: Array<{ aliasName: string; collectionName: string }> }>('ListAliases', {});
      expect(aliases.aliases).toContainEqual({ aliasName: 'prod', collectionName: 'target-b' });
      expect(aliases.aliases.find((a) => a.aliasName === 'live')).toBeUndefined();
      const forB = await call<{ aliases: unknown[] }>('ListCollectionAliases', { collectionName: 'target-b' });
      expect(forB.aliases).toEqual([{ aliasName: 'prod', collectionName: 'target-b' }]);
      expect((await call('UpdateAliases', { actions: [{ deleteAlias: { aliasName: 'prod' } }] })).result).toBe(true);
      await expectCode(call('Get', { collectionName: 'prod' }), grpc.status.NOT_FOUND);
    });

    it('should answer the clash cases as Qdrant does', async () => {
      await expectCode(
        call('UpdateAliases', { actions: [{ createAlias: { collectionName: 'target-a', aliasName: 'target-b' } }] }),
        grpc.status.ALREADY_EXISTS,
      );
      await expectCode(
        call('UpdateAliases', { actions: [{ createAlias: { collectionName: 'missing', aliasName: 'x' } }] }),
        grpc.status.NOT_FOUND,
      );
      await expectCode(
        call('UpdateAliases', { actions: [{ renameAlias: { oldAliasName: 'ghost', newAliasName: 'x' } }] }),
        grpc.status.NOT_FOUND,
        'Alias ghost does not exists',
      );
      expect((await call('UpdateAliases', { actions: [{ deleteAlias: { aliasName: 'ghost' } }] })).result).toBe(true);
      await call('UpdateAliases', { actions: [{ createAlias: { collectionName: 'target-a', aliasName: 'taken' } }] });
      await expectCode(
        call('Create', { collectionName: 'taken', vectorsConfig: dense(4) }),
        grpc.status.INVALID_ARGUMENT,
        'Alias with the same name already exists',
      );
      const none = await call<{ aliases: unknown[] }>('ListCollectionAliases', { collectionName: 'never-created' });
      expect(none.aliases).toEqual([]);
    });

    it('should apply an alias batch all-or-nothing', async () => {
      await expectCode(
        call('UpdateAliases', {
          actions: [
            { createAlias: { collectionName: 'target-a', aliasName: 'batch-1' } },
            { renameAlias: { oldAliasName: 'ghost', newAliasName: 'x' } },
          ],
        }),
        grpc.status.NOT_FOUND,
      );
      expect(
        (await call<{ result: { exists: boolean } }>('CollectionExists', { collectionName: 'batch-1' })).result.exists,
      ).toBe(false);
    });

    it('should drop the aliases of a deleted collection, and not delete through an alias', async () => {
      await call('Create', { collectionName: 'doomed', vectorsConfig: dense(4) });
      await call('UpdateAliases', {
        actions: [{ createAlias: { collectionName: 'doomed', aliasName: 'doomed-alias' } }],
      });
      expect((await call('Delete', { collectionName: 'doomed-alias' })).result).toBe(false);
      expect((await call('Delete', { collectionName: 'doomed' })).result).toBe(true);
      expect((await call('Delete', { collectionName: 'doomed' })).result).toBe(false);
      const aliases = await call<{ aliases: Array<{ aliasName: string }> }>('ListAliases', {});
      expect(aliases.aliases.map((a) => a.aliasName)).not.toContain('doomed-alias');
    });
  });

  describe('List', () => {
    it('should list collections sorted by name', async () => {
      const names = (await call<{ collections: Array<{ name: string }> }>('List', {})).collections.map((c) => c.name);
      expect(names).toEqual([...names].sort());
      expect(names).toEqual(expect.arrayContaining(['defaults', 'rich', 'upd']));
    });
  });

  describe('cluster and shard keys', () => {
    it('should report the local shards of an auto-sharded collection', async () => {
      const cluster = await call<{
        peerId: string;
        shardCount: string;
        localShards: Array<{ shardId: number; state: string; pointsCount: string }>;
        remoteShards: unknown[];
        shardTransfers: unknown[];
      }>('CollectionClusterInfo', { collectionName: 'rich' });
      expect(BigInt(cluster.peerId)).toBeGreaterThan(0n);
      expect(cluster.shardCount).toBe('3');
      expect(cluster.localShards).toEqual([0, 1, 2].map((shardId) => ({ shardId, state: 'Active', pointsCount: '0' })));
      expect(cluster.remoteShards).toEqual([]);
      expect(cluster.shardTransfers).toEqual([]);
    });

    it('should create, list and delete shard keys on a custom-sharded collection', async () => {
      await call('Create', {
        collectionName: 'tenants',
        vectorsConfig: dense(4),
        shardingMethod: 'Custom',
        shardNumber: 2,
      });
      expect(
        (await call<{ shardCount: string }>('CollectionClusterInfo', { collectionName: 'tenants' })).shardCount,
      ).toBe('0');
      expect(
        (await call('CreateShardKey', { collectionName: 'tenants', request: { shardKey: { keyword: 'eu' } } })).result,
      ).toBe(true);
      expect(
        (
          await call('UpdateCollectionClusterSetup', {
            collectionName: 'tenants',
            createShardKey: { shardKey: { number: 42 }, shardsNumber: 3 },
          })
        ).result,
      ).toBe(true);
      const keys = await call<{ shardKeys: Array<{ key: { keyword?: string; number?: string } }> }>('ListShardKeys', {
        collectionName: 'tenants',
      });
      expect(keys.shardKeys.map((k) => k.key)).toEqual([
        expect.objectContaining({ keyword: 'eu' }),
        expect.objectContaining({ number: '42' }),
      ]);
      const cluster = await call<{ shardCount: string; localShards: Array<{ shardId: number; shardKey?: object }> }>(
        'CollectionClusterInfo',
        { collectionName: 'tenants' },
      );
      expect(cluster.shardCount).toBe('5');
      expect(cluster.localShards.map((s) => s.shardId)).toEqual([0, 1, 2, 3, 4]);
      await expectCode(
        call('CreateShardKey', { collectionName: 'tenants', request: { shardKey: { keyword: 'eu' } } }),
        grpc.status.ALREADY_EXISTS,
      );
      expect(
        (await call('DeleteShardKey', { collectionName: 'tenants', request: { shardKey: { keyword: 'eu' } } })).result,
      ).toBe(true);
      expect(
        (
          await call('UpdateCollectionClusterSetup', {
            collectionName: 'tenants',
            deleteShardKey: { shardKey: { number: 42 } },
          })
        ).result,
      ).toBe(true);
      expect((await call<{ shardKeys: unknown[] }>('ListShardKeys', { collectionName: 'tenants' })).shardKeys).toEqual(
        [],
      );
      await expectCode(
        call('DeleteShardKey', { collectionName: 'tenants', request: { shardKey: { keyword: 'eu' } } }),
        grpc.status.NOT_FOUND,
      );
    });

    it('should refuse shard keys on an auto-sharded collection with FAILED_PRECONDITION', async () => {
      await expectCode(
        call('CreateShardKey', { collectionName: 'defaults', request: { shardKey: { keyword: 'x' } } }),
        grpc.status.FAILED_PRECONDITION,
        'sharding',
      );
      expect((await call<{ shardKeys: unknown[] }>('ListShardKeys', { collectionName: 'defaults' })).shardKeys).toEqual(
        [],
      );
    });

    it('should answer UNIMPLEMENTED for operations that need a second peer', async () => {
      const ops = [
        { moveShard: { shardId: 0, fromPeerId: 1, toPeerId: 2 } },
        { replicateShard: { shardId: 0, fromPeerId: 1, toPeerId: 2 } },
        { abortTransfer: { shardId: 0, fromPeerId: 1, toPeerId: 2 } },
        { dropReplica: { shardId: 0, peerId: 1 } },
        { restartTransfer: { shardId: 0, fromPeerId: 1, toPeerId: 2, method: 'StreamRecords' } },
      ];
      for (const op of ops) {
        await expectCode(
          call('UpdateCollectionClusterSetup', { collectionName: 'defaults', ...op }),
          grpc.status.UNIMPLEMENTED,
          'running in standalone mode',
        );
      }
      await expectCode(
        call('UpdateCollectionClusterSetup', {
          collectionName: 'defaults',
          moveShard: { shardId: 0, fromPeerId: 1, toPeerId: 1 },
        }),
        grpc.status.INVALID_ARGUMENT,
        'itself',
      );
    });
  });

  describe('health and reflection', () => {
    it('should answer both health checks', async () => {
      const qdrant = createClient(server.grpcAddress, 'qdrant.Qdrant', credentials(server.apiKey), 'qdrant');
      const reply = await unary<object, { title: string; version: string }>(qdrant, 'HealthCheck', {});
      expect(reply.title).toContain('vector search engine');
      expect(reply.version).toMatch(/^1\.\d+\.\d+$/);
      const health = createClient(server.grpcAddress, 'grpc.health.v1.Health');
      expect(await unary(health, 'Check', { service: 'anything' })).toEqual({ status: 'SERVING' });
      qdrant.close();
      health.close();
    });

    it('should list every service through server reflection', async () => {
      const { loadSync } = await import('@grpc/proto-loader');
      const reflectionProto = require.resolve('@grpc/reflection/build/proto/grpc/reflection/v1/reflection.proto');
      const definition = loadSync(reflectionProto, { keepCase: true });
      const Reflection = grpc.makeGenericClientConstructor(
        definition['grpc.reflection.v1.ServerReflection'] as grpc.ServiceDefinition,
        'ServerReflection',
      );
      const reflection = new Reflection(server.grpcAddress, grpc.credentials.createInsecure()) as unknown as {
        ServerReflectionInfo: () => grpc.ClientDuplexStream<
          object,
          { list_services_response?: { service: Array<{ name: string }> } }
        >;
        close: () => void;
      };
      const stream = reflection.ServerReflectionInfo();
      const services = await new Promise<string[]>((resolve, reject) => {
        stream.on('data', (message) =>
          resolve((message.list_services_response?.service ?? []).map((s: { name: string }) => s.name)),
        );
        stream.on('error', reject);
        stream.write({ list_services: '' });
      });
      stream.end();
      reflection.close();
      expect(services).toEqual(
        expect.arrayContaining([
          'vectorstore.Collections',
          'qdrant.Collections',
          'qdrant.Qdrant',
          'grpc.health.v1.Health',
        ]),
      );
    });
  });
});
