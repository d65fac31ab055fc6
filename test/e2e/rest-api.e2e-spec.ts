import * as grpc from '@grpc/grpc-js';
import { createCollectionsClient, createPointsClient, credentials, unary } from './support/grpc-clients';
import { RunningServer, startServer } from './support/server-harness';

// The official REST client, unchanged (CommonJS build; runs on Node 20 despite its engines field).
const { QdrantClient } = require('@qdrant/js-client-rest') as typeof import('@qdrant/js-client-rest');

jest.setTimeout(60_000);

interface Telemetry {
  app: object;
  collections: object;
  requests: { rest: { responses: Record<string, Record<string, { count: number }>> } };
}

interface Answer {
  status: number;
  text: string;
  type: string;
  json: () => { result?: unknown; status?: unknown; time?: unknown };
}

describe('Qdrant REST API (e2e)', () => {
  let server: RunningServer;
  let client: InstanceType<typeof QdrantClient>;
  let grpcCollections: grpc.Client;

  async function http(
    method: string,
    path: string,
    body?: string,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const response = await fetch(`${server.httpUrl}${path}`, {
      method,
      headers: {
        'api-key': server.apiKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body,
    });
    const text = await response.text();
    return {
      status: response.status,
      text,
      type: response.headers.get('content-type') ?? '',
      json: () => JSON.parse(text),
    };
  }

  beforeAll(async () => {
    server = await startServer();
    client = new QdrantClient({ url: server.httpUrl, apiKey: server.apiKey, checkCompatibility: false });
    grpcCollections = createCollectionsClient(
      server.grpcAddress,
      credentials(server.apiKey),
      'qdrant',
    ) as unknown as grpc.Client;
  });

  afterAll(async () => {
    grpcCollections?.close();
    await server?.stop();
  });

  describe('through @qdrant/js-client-rest', () => {
    it('should pass the client’s version check: GET / is Qdrant’s bare VersionInfo', async () => {
      const info = await client.versionInfo();
      expect(info).toEqual({
        title: 'qdrant - vector search engine',
        version: '1.19.0',
        commit: expect.stringMatching(/^[0-9a-f]{40}$/),
      });
    });

    it('should create, read, list, update and delete a collection', async () => {
      expect(await client.deleteCollection('js')).toBe(false);
      expect(
        await client.createCollection('js', {
          vectors: { size: 4, distance: 'Cosine', datatype: 'float16' },
          sparse_vectors: { bm: { modifier: 'idf' } },
          hnsw_config: { m: 8 },
          quantization_config: { scalar: { type: 'int8', quantile: 0.99 } },
          replication_factor: 2,
        }),
      ).toBe(true);
      expect(await client.collectionExists('js')).toEqual({ exists: true });
      expect(await client.getCollections()).toEqual({ collections: [{ name: 'js' }] });
      const info = await client.getCollection('js');
      expect(info).toMatchObject({
        status: 'green',
        optimizer_status: 'ok',
        points_count: 0,
        config: {
          params: {
            vectors: { size: 4, distance: 'Cosine', datatype: 'float16' },
            sparse_vectors: { bm: { modifier: 'idf' } },
          },
          hnsw_config: { m: 8, ef_construct: 100 },
          quantization_config: { scalar: { type: 'int8', quantile: 0.99 } },
          optimizer_config: { max_optimization_threads: null },
        },
        payload_schema: {},
      });
      expect(
        await client.updateCollection('js', {
          optimizers_config: { indexing_threshold: 1000 },
          quantization_config: 'Disabled',
        }),
      ).toBe(true);
      const updated = await client.getCollection('js');
      expect(updated.config.optimizer_config.indexing_threshold).toBe(1000);
      expect(updated.config.quantization_config).toBeNull();
      expect(await client.deleteCollection('js')).toBe(true);
      expect(await client.collectionExists('js')).toEqual({ exists: false });
    });

    it('should manage aliases and payload indexes', async () => {
      await client.createCollection('books', { vectors: { size: 2, distance: 'Dot' } });
      expect(
        await client.updateCollectionAliases({
          actions: [{ create_alias: { collection_name: 'books', alias_name: 'library' } }],
        }),
      ).toBe(true);
      expect(await client.getAliases()).toEqual({ aliases: [{ alias_name: 'library', collection_name: 'books' }] });
      expect(await client.getCollectionAliases('books')).toEqual({
        aliases: [{ alias_name: 'library', collection_name: 'books' }],
      });
      expect(await client.collectionExists('library')).toEqual({ exists: true });
      expect(
        await client.createPayloadIndex('books', { field_name: 'city', field_schema: 'keyword', wait: true }),
      ).toEqual({
        operation_id: expect.any(Number),
        status: 'completed',
      });
      await client.createPayloadIndex('books', {
        field_name: 'title',
        field_schema: { type: 'text', tokenizer: 'word', lowercase: true },
        wait: true,
      });
      const schema = (await client.getCollection('books')).payload_schema;
      expect(schema.city).toEqual({ data_type: 'keyword', points: 0 });
      expect(schema.title).toMatchObject({
        data_type: 'text',
        params: { type: 'text', tokenizer: 'word', lowercase: true },
      });
      expect((await client.deletePayloadIndex('books', 'city', { wait: true })).status).toBe('completed');
      await client.updateCollectionAliases({
        actions: [{ rename_alias: { old_alias_name: 'library', new_alias_name: 'shelf' } }],
      });
      await client.updateCollectionAliases({ actions: [{ delete_alias: { alias_name: 'shelf' } }] });
      expect(await client.getAliases()).toEqual({ aliases: [] });
    });

    it('should report cluster info and custom shard keys of a single node', async () => {
      await client.createCollection('sharded', { vectors: { size: 2, distance: 'Dot' }, sharding_method: 'custom' });
      expect(await client.createShardKey('sharded', { shard_key: 'eu' })).toBe(true);
      expect(await client.createShardKey('sharded', { shard_key: 7 })).toBe(true);
      expect(await client.listShardKeys('sharded')).toEqual({ shard_keys: [{ key: 'eu' }, { key: 7 }] });
      const cluster = await client.collectionClusterInfo('sharded');
      expect(cluster.shard_count).toBe(2);
      expect(cluster.local_shards.map((s) => s.shard_key)).toEqual(['eu', 7]);
      expect(await client.deleteShardKey('sharded', { shard_key: 7 })).toBe(true);
      expect(await client.listShardKeys('books')).toEqual({});
    });
  });

  describe('one state behind both transports', () => {
    it('should show gRPC what REST created, and REST what gRPC created', async () => {
      await client.createCollection('from-rest', { vectors: { size: 3, distance: 'Euclid' }, metadata: { team: 'a' } });
      const got = await unary<
        object,
        { result: { config: { params: { vectorsConfig: { params: { size: string } } } } } }
      >(grpcCollections, 'Get', { collectionName: 'from-rest' });
      expect(Number(got.result.config.params.vectorsConfig.params.size)).toBe(3);
      await unary(grpcCollections, 'Create', {
        collectionName: 'from-grpc',
        vectorsConfig: { params: { size: 5, distance: 'Dot' } },
      });
      expect((await client.getCollection('from-grpc')).config.params.vectors).toEqual({ size: 5, distance: 'Dot' });
      await unary(grpcCollections, 'UpdateAliases', {
        actions: [{ createAlias: { collectionName: 'from-rest', aliasName: 'both' } }],
      });
      expect(await client.getCollectionAliases('from-rest')).toEqual({
        aliases: [{ alias_name: 'both', collection_name: 'from-rest' }],
      });
    });
  });

  describe('collection config details', () => {
    it('should read the field aliases Qdrant reads', async () => {
      const created = await http(
        'PUT',
        '/collections/aliased',
        JSON.stringify({
          vectors: { v: { size: 2, distance: 'Dot', quantization: { scalar: { type: 'int8', quantile: 0.9 } } } },
          quantization: { scalar: { type: 'int8', quantile: 0.5 } },
          optimizer_config: { indexing_threshold_kb: 1234 },
          hnsw_config: { full_scan_threshold_kb: 77 },
        }),
      );
      expect(created.status).toBe(200);
      const config = (await client.getCollection('aliased')).config as unknown as {
        params: { vectors: { v: { quantization_config: unknown } } };
        quantization_config: unknown;
        optimizer_config: { indexing_threshold: number };
        hnsw_config: { full_scan_threshold: number };
      };
      expect(config.params.vectors.v.quantization_config).toEqual({ scalar: { type: 'int8', quantile: 0.9 } });
      expect(config.quantization_config).toEqual({ scalar: { type: 'int8', quantile: 0.5 } });
      expect(config.optimizer_config.indexing_threshold).toBe(1234);
      expect(config.hnsw_config.full_scan_threshold).toBe(77);
    });

    it('should warn, as Qdrant does, about inline_storage it ignores', async () => {
      await client.createCollection('inline', {
        vectors: { a: { size: 2, distance: 'Dot', hnsw_config: { inline_storage: true } } },
      });
      const info = (await http('GET', '/collections/inline')).json().result as {
        warnings?: Array<{ message: string }>;
      };
      expect(info.warnings).toEqual([
        {
          message:
            "The `hnsw_config.inline_storage` option for vector 'a' requires quantization to be enabled. This option will be ignored.",
        },
      ]);
      const plain = (await http('GET', '/collections/aliased')).json().result as object;
      expect(plain).not.toHaveProperty('warnings');
    });
  });

  describe('memory placements (Qdrant 1.19)', () => {
    it('should record them, report them on both transports, and refuse pinned vectors and payloads', async () => {
      const created = await http(
        'PUT',
        '/collections/placed',
        JSON.stringify({
          vectors: {
            size: 4,
            distance: 'Dot',
            memory: 'cold',
            hnsw_config: { memory: 'cached' },
            quantization_config: { scalar: { type: 'int8', memory: 'pinned' } },
          },
          sparse_vectors: { sparse: { index: { memory: 'cold' } } },
          payload: { memory: 'cached' },
        }),
      );
      expect(created.status).toBe(200);
      const params = (await client.getCollection('placed')).config.params as unknown as {
        vectors: Record<string, unknown>;
        payload: unknown;
        sparse_vectors: Record<string, { index: unknown }>;
      };
      expect(params.vectors).toMatchObject({
        memory: 'cold',
        hnsw_config: { memory: 'cached' },
        quantization_config: { scalar: { type: 'int8', memory: 'pinned' } },
      });
      expect(params.sparse_vectors.sparse.index).toEqual({ memory: 'cold' });
      expect(params.payload).toEqual({ memory: 'cached' });

      const got = await unary<
        object,
        {
          result: {
            config: {
              params: { payload: unknown; vectorsConfig: { params: { memory: string; hnswConfig: unknown } } };
            };
          };
        }
      >(grpcCollections, 'Get', { collectionName: 'placed' });
      expect(got.result.config.params.payload).toMatchObject({ memory: 'Cached' });
      expect(got.result.config.params.vectorsConfig.params).toMatchObject({
        memory: 'Cold',
        hnswConfig: { memory: 'Cached' },
      });

      const patched = await http(
        'PATCH',
        '/collections/placed',
        JSON.stringify({ vectors: { '': { memory: 'cached' } }, params: { payload: { memory: 'cold' } } }),
      );
      expect(patched.status).toBe(200);
      const after = (await client.getCollection('placed')).config.params as unknown as {
        vectors: { memory: string };
        payload: unknown;
      };
      expect(after.vectors.memory).toBe('cached');
      expect(after.payload).toEqual({ memory: 'cold' });

      for (const body of [
        { vectors: { size: 4, distance: 'Dot', memory: 'pinned' } },
        { vectors: { size: 4, distance: 'Dot' }, payload: { memory: 'pinned' } },
      ]) {
        const refused = await http('PUT', '/collections/pinned', JSON.stringify(body));
        expect(refused.status).toBe(422);
        expect(refused.text).toContain('`pinned` memory placement is not supported');
      }
      const index = await http(
        'PUT',
        '/collections/placed/index?wait=true',
        JSON.stringify({ field_name: 'k', field_schema: { type: 'keyword', memory: 'cold' } }),
      );
      expect(index.status).toBe(200);
      const schema = (await client.getCollection('placed')).payload_schema as Record<string, { params?: unknown }>;
      expect(schema.k.params).toEqual({ type: 'keyword', memory: 'cold' });
    });

    it('should take them over gRPC too, with the same rules', async () => {
      // The vectorstore package path, so the /qdrant.Collections/Create count the metrics test reads stays 1.
      const collections = createCollectionsClient(
        server.grpcAddress,
        credentials(server.apiKey),
      ) as unknown as grpc.Client;
      await unary(collections, 'Create', {
        collectionName: 'placed-grpc',
        vectorsConfig: { params: { size: 2, distance: 'Dot', memory: 'Cold' } },
        payload: { memory: 'Cold' },
      });
      const params = (await client.getCollection('placed-grpc')).config.params as unknown as Record<string, unknown>;
      expect(params.vectors).toMatchObject({ memory: 'cold' });
      expect(params.payload).toEqual({ memory: 'cold' });
      const refused = await unary(collections, 'Create', {
        collectionName: 'pinned-grpc',
        vectorsConfig: { params: { size: 2, distance: 'Dot', memory: 'Pinned' } },
      }).catch((e: grpc.ServiceError) => e);
      expect(refused).toMatchObject({
        code: grpc.status.INVALID_ARGUMENT,
        details:
          'Validation error in body: [vectors_config.params.memory: `pinned` memory placement is not supported for dense vector storage]',
      });
      collections.close();
    });

    it('should report no placement where none was given', async () => {
      await client.createCollection('unplaced', { vectors: { size: 4, distance: 'Dot', on_disk: true } });
      const params = (await client.getCollection('unplaced')).config.params as unknown as Record<string, unknown>;
      expect(params.vectors).not.toHaveProperty('memory');
      expect(params).not.toHaveProperty('payload');
    });
  });

  describe('wire details (raw HTTP)', () => {
    it('should wrap results in {result, status, time}', async () => {
      const answer = await http('GET', '/collections');
      expect(answer.type).toContain('application/json');
      expect(answer.json()).toEqual({ result: expect.any(Object), status: 'ok', time: expect.any(Number) });
    });

    it('should keep u64 integers exact and 1.0 a float in metadata', async () => {
      const body =
        '{"vectors": {"size": 2, "distance": "Dot"}, "metadata": {"big": 18446744073709551615, "one": 1, "float": 1.0, "f": 0.1}}';
      expect((await http('PUT', '/collections/exact', body)).status).toBe(200);
      const text = (await http('GET', '/collections/exact')).text;
      expect(text).toContain('"metadata":{"big":18446744073709551615,"one":1,"float":1.0,"f":0.1}');
    });

    it('should normalise repeated and trailing slashes', async () => {
      expect((await http('GET', '//collections//exact/exists/')).json().result).toEqual({ exists: true });
    });

    it.each([
      ['malformed JSON', 'PUT', '/collections/bad', '{"vectors":', 400, /^Format error in JSON body/],
      ['an empty body', 'PUT', '/collections/bad', '', 400, /^Format error in JSON body: EOF/],
      [
        'a wrong type',
        'PUT',
        '/collections/bad',
        '{"vectors": {"size": "4", "distance": "Dot"}}',
        400,
        /^Format error in JSON body: vectors.size: invalid type/,
      ],
      [
        'a negative unsigned',
        'PUT',
        '/collections/bad',
        '{"vectors": {"size": 4, "distance": "Dot"}, "shard_number": -1}',
        400,
        /shard_number/,
      ],
      [
        'an unknown enum',
        'PUT',
        '/collections/bad',
        '{"vectors": {"size": 4, "distance": "Cos"}}',
        400,
        /unknown variant `Cos`/,
      ],
      [
        'a broken rule',
        'PUT',
        '/collections/bad',
        '{"vectors": {"size": 65537, "distance": "Dot"}}',
        422,
        /^Validation error in JSON body: \[vectors.size: value 65537 invalid, must be from 1 to 65536\]$/,
      ],
      [
        'shard_number 0',
        'PUT',
        '/collections/bad',
        '{"vectors": {"size": 4, "distance": "Dot"}, "shard_number": 0}',
        422,
        /shard_number/,
      ],
      [
        'replication_factor 0',
        'PUT',
        '/collections/bad',
        '{"vectors": {"size": 4, "distance": "Dot"}, "replication_factor": 0}',
        422,
        /replication_factor/,
      ],
      [
        'replication_factor -1',
        'PUT',
        '/collections/bad',
        '{"vectors": {"size": 4, "distance": "Dot"}, "replication_factor": -1}',
        400,
        /replication_factor/,
      ],
      [
        'write_consistency_factor 0',
        'PUT',
        '/collections/bad',
        '{"vectors": {"size": 4, "distance": "Dot"}, "write_consistency_factor": 0}',
        422,
        /write_consistency_factor/,
      ],
      [
        'write_consistency_factor -1',
        'PUT',
        '/collections/bad',
        '{"vectors": {"size": 4, "distance": "Dot"}, "write_consistency_factor": -1}',
        400,
        /write_consistency_factor/,
      ],
      [
        'timeout=0',
        'PUT',
        '/collections/bad?timeout=0',
        '{"vectors": {"size": 4, "distance": "Dot"}}',
        422,
        /^Validation error in query parameters: \[timeout: value 0 invalid/,
      ],
      [
        'a new collection name Qdrant refuses, in the path',
        'PUT',
        '/collections/a:b',
        '{"vectors": {"size": 4, "distance": "Dot"}}',
        422,
        /^Validation error in path parameters: \[collection_name: collection name cannot contain ":" char\]$/,
      ],
      [
        'a collection name that no collection can have, in the path (before the body is decoded)',
        'PATCH',
        '/collections/a%2Fb',
        '{"vectors": 1}',
        422,
        /^Validation error in path parameters: \[collection_name: collection name cannot contain "\/" char\]$/,
      ],
      [
        'a too long collection name in the path of another feature',
        'GET',
        `/collections/${'x'.repeat(256)}/cluster`,
        undefined,
        422,
        /^Validation error in path parameters: \[collection_name: length 256 invalid, must be from 1 to 255 characters\]$/,
      ],
      [
        'a collection name no collection can have, on a points route',
        'POST',
        '/collections/a%2Fb/points/scroll',
        '{}',
        422,
        /^Validation error in path parameters: \[collection_name: collection name cannot contain "\/" char\]$/,
      ],
      [
        'a field index without a schema',
        'PUT',
        '/collections/exact/index',
        '{"field_name": "a"}',
        400,
        /^Bad request: Can't auto-detect field type, please specify `field_schema` in the request$/,
      ],
      [
        'an integer index with neither lookups nor ranges',
        'PUT',
        '/collections/exact/index',
        '{"field_name": "n", "field_schema": {"type": "integer", "lookup": false, "range": false}}',
        422,
        /^Validation error in JSON body: \[field_schema.lookup: Validation error: the 'lookup' and 'range' capabilities can't be both disabled\]$/,
      ],
      [
        'a turbo4 sparse index',
        'PUT',
        '/collections/bad',
        '{"sparse_vectors": {"text": {"index": {"datatype": "turbo4"}}}}',
        422,
        /sparse vectors do not support the `turbo4` datatype/,
      ],
      [
        'wait=1',
        'PUT',
        '/collections/exact/index?wait=1',
        '{"field_name": "a", "field_schema": "keyword"}',
        400,
        /^Deserialize error in query parameters/,
      ],
      [
        'a missing collection',
        'GET',
        '/collections/nope',
        undefined,
        404,
        /^Not found: Collection `nope` doesn't exist!$/,
      ],
      [
        'an existing collection',
        'PUT',
        '/collections/exact',
        '{"vectors": {"size": 2, "distance": "Dot"}}',
        409,
        /already exists/,
      ],
      ['a standalone cluster operation', 'POST', '/cluster/recover', '{}', 405, /standalone mode/],
      [
        'a shard transfer to itself (checked before the standalone refusal, as on gRPC)',
        'POST',
        '/collections/exact/cluster',
        '{"move_shard": {"shard_id": 0, "from_peer_id": 1, "to_peer_id": 1}}',
        422,
        /^Validation error in JSON body: \[move_shard.to_peer_id: cannot transfer shard to itself, "to_peer_id" must be different than 1 in "from_peer_id"\]$/,
      ],
      [
        'a peer transfer',
        'POST',
        '/collections/exact/cluster',
        '{"move_shard": {"shard_id": 0, "from_peer_id": 1, "to_peer_id": 2}}',
        405,
        /standalone mode/,
      ],
    ])('should answer %s with Qdrant’s code and message', async (_, method, path, body, status, message) => {
      const answer = await http(method, path, body);
      expect(answer.status).toBe(status);
      const json = answer.json() as { status: { error: string }; time: number };
      expect(json.status.error).toMatch(message);
      expect(typeof json.time).toBe('number');
    });

    it('should answer 404 with an empty body for an unknown path or a wrong verb', async () => {
      for (const [method, path] of [
        ['GET', '/nope'],
        ['POST', '/collections/exact'],
        ['PATCH', '/aliases'],
      ]) {
        const answer = await http(method, path);
        expect([method, path, answer.status, answer.text]).toEqual([method, path, 404, '']);
      }
    });

    it('should refuse a body that is not JSON, and one over 32 MiB, with 400', async () => {
      const form = await http('PUT', '/collections/bad', 'a=1', {
        'content-type': 'application/x-www-form-urlencoded',
      });
      expect([form.status, form.json().status]).toEqual([400, { error: 'Content type error' }]);
      const huge = await http('PUT', '/collections/bad', `{"metadata": "${'x'.repeat(33 * 1024 * 1024)}"}`);
      expect(huge.status).toBe(400);
      expect((huge.json().status as { error: string }).error).toMatch(
        /^JSON payload \(\d+ bytes\) is larger than allowed/,
      );
    });

    it('should parse a body without a content type as JSON, as Qdrant does', async () => {
      const response = await fetch(`${server.httpUrl}/collections/untyped`, {
        method: 'PUT',
        headers: { 'api-key': server.apiKey },
        body: new TextEncoder().encode('{"vectors": {"size": 2, "distance": "Dot"}}'),
      });
      expect(response.status).toBe(200);
    });

    it('should answer Qdrant’s texts on the health routes', async () => {
      expect((await http('GET', '/healthz')).text).toBe('healthz check passed');
      expect((await http('GET', '/livez')).text).toBe('healthz check passed');
      expect((await http('GET', '/readyz')).text).toBe('all shards are ready');
      expect((await http('GET', '/cluster')).json().result).toEqual({ status: 'disabled' });
    });

    it('should serve Prometheus metrics with request counts per route and gRPC method', async () => {
      const text = (await http('GET', '/metrics')).text;
      expect(text).toContain('# HELP app_info information about qdrant server');
      expect(text).toContain('app_info{name="qdrant",version="1.19.0"} 1');
      expect(text).toMatch(/collections_total \d+/);
      expect(text).toContain('collection_points{id="exact"} 0');
      expect(text).toMatch(
        /rest_responses_total\{method="PUT",endpoint="\/collections\/\{collection_name\}",status="200"\} \d+/,
      );
      expect(text).toMatch(/grpc_responses_total\{endpoint="\/qdrant.Collections\/Create"\} 1/);
      expect(text).toContain('rest_responses_duration_seconds_bucket');
      const perCollection = (await http('GET', '/metrics?per_collection=true')).text;
      expect(perCollection).toMatch(/rest_responses_total\{.*collection="exact"/);
      expect((await http('GET', '/metrics', undefined, { 'api-key': '' })).status).toBe(401);
    });

    it('should serve telemetry in Qdrant’s shape', async () => {
      const level0 = (await http('GET', '/telemetry')).json().result as Telemetry;
      expect(Object.keys(level0).sort()).toEqual(['app', 'cluster', 'collections', 'id', 'quota', 'requests']);
      expect(level0.app).toMatchObject({ name: 'qdrant', version: '1.19.0' });
      expect(level0.requests.rest.responses['PUT /collections/{collection_name}']['200'].count).toBeGreaterThan(0);
      const level2 = (await http('GET', '/telemetry?details_level=2')).json().result as Telemetry;
      expect(Object.keys(level2.collections).sort()).toEqual(['collections', 'number_of_collections', 'snapshots']);
    });

    it('should report each shard from level 3, with the last applied operation of its update queue', async () => {
      interface ShardTelemetry {
        id: number;
        local: { status: string; num_points: number; update_queue: { length: number; op_num: number } } & object;
        remote: unknown[];
        replicate_states: Record<string, string>;
      }
      const shardsOf = async (level: number): Promise<ShardTelemetry[] | undefined> => {
        const result = (await http('GET', `/telemetry?details_level=${level}`)).json().result as {
          collections: { collections: Array<{ id: string; shards?: ShardTelemetry[] }> };
        };
        return result.collections.collections.find((c) => c.id === 'queued')?.shards;
      };
      await client.createCollection('queued', { vectors: { size: 2, distance: 'Dot' } });
      expect(await shardsOf(2)).toBeUndefined();
      const [empty] = (await shardsOf(3))!;
      expect(empty).toMatchObject({ id: 0, key: null, remote: [], local: { status: 'green', num_points: 0 } });
      expect(Object.keys(empty).sort()).toEqual([
        'id',
        'key',
        'local',
        'partial_snapshot',
        'remote',
        'replicate_states',
      ]);
      expect(Object.keys(empty.local).sort()).toEqual([
        'async_scorer',
        'num_points',
        'num_vectors',
        'num_vectors_by_name',
        'optimizations',
        'payloads_size_bytes',
        'status',
        'total_optimized_points',
        'update_queue',
        'variant_name',
        'vectors_size_bytes',
      ]);
      expect(empty.local.update_queue).toEqual({ length: 0, op_num: 0 });
      expect(Object.values(empty.replicate_states)).toEqual(['Active']);
      const points = createPointsClient(server.grpcAddress, credentials(server.apiKey));
      for (const id of [1, 2]) {
        await unary(points, 'Upsert', {
          collectionName: 'queued',
          wait: true,
          points: [{ id: { num: id }, vectors: { vector: { dense: { data: [1, 0] } } } }],
        });
        const [shard] = (await shardsOf(3))!;
        expect(shard.local.update_queue).toEqual({ length: 0, op_num: id });
        expect(shard.local.num_points).toBe(id);
        expect(shard.local).toMatchObject({
          num_vectors: id,
          num_vectors_by_name: { '': id },
          vectors_size_bytes: id * 8,
        });
      }
      // Level 4 and up add each segment, and the vectors `indexed_only` would leave out (none here).
      const [detailed] = (await shardsOf(10))!;
      const local = detailed.local as unknown as {
        indexed_only_excluded_vectors: object;
        segments: Array<{ info: Record<string, unknown>; config: Record<string, unknown> }>;
      };
      expect(local.indexed_only_excluded_vectors).toEqual({});
      const live = local.segments.filter((segment) => (segment.info.num_points as number) > 0);
      expect(live).toHaveLength(1);
      expect(live[0].info).toMatchObject({
        segment_type: 'plain',
        num_points: 2,
        num_vectors: 2,
        is_appendable: true,
        vector_data: { '': { num_vectors: 2, num_indexed_vectors: 0, num_deleted_vectors: 0 } },
      });
      expect(live[0].config).toMatchObject({
        vector_data: { '': { size: 2, distance: 'Dot', index: { type: 'plain' } } },
      });
      points.close();
    });
  });
});
