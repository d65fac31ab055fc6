import * as grpc from '@grpc/grpc-js';
import {
  CollectionsClient,
  createCollectionsClient,
  createPointsClient,
  credentials,
  unary,
} from './support/grpc-clients';
import {
  DistanceName,
  RetrievedPoint,
  ScoredPoint,
  caller,
  denseOf,
  expectGrpcError,
  expectSameRanking,
  idOf,
  keyOf,
  pid,
  pollUntil,
  topK,
} from './support/points-helpers';
import { Rng } from '../support/seeded-random';
import { RunningServer, startServer } from './support/server-harness';

// The official client, unchanged, on the /qdrant.* paths (CommonJS build).
const { QdrantClient, Distance, Modifier, UpdateStatus } =
  require('@qdrant/js-client-grpc') as typeof import('@qdrant/js-client-grpc');

jest.setTimeout(120_000);

/**
 * CreateVectorName / DeleteVectorName (Qdrant 1.18+): a named vector added to a collection that has
 * points (none of them has it until written), searched, kept across restarts (also after SIGKILL);
 * a deleted one gone from every point, from searches and filters, from the collection config, and
 * for good (a restart, or a new vector of the same name, does not bring its old data back).
 */

interface VectorParamsOut {
  size: string;
  distance: string;
}
interface CollectionInfo {
  status: string;
  indexedVectorsCount?: string;
  config: {
    params: {
      vectorsConfig: { params?: VectorParamsOut; paramsMap?: { map: Record<string, VectorParamsOut> } };
      sparseVectorsConfig?: { map: Record<string, { modifier?: string }> };
    };
  };
}

const TEXT = 'text_v1';
const IMAGE = 'image';
const KEYWORDS = 'keywords';
const N = 30;

const vectorNames = (p: RetrievedPoint) => Object.keys(p.vectors?.vectors?.vectors ?? {}).sort();
const namedDense = (p: RetrievedPoint, name: string) => denseOf(p.vectors?.vectors?.vectors[name]);
const dense = (data: number[]) => ({ dense: { data } });

describe('Vector names: CreateVectorName and DeleteVectorName (gRPC, e2e)', () => {
  let server: RunningServer;
  let points: grpc.Client;
  let readOnly: grpc.Client;
  let collections: CollectionsClient;
  let call: ReturnType<typeof caller>;
  const rng = new Rng(2024);
  const text = Array.from({ length: N }, () => rng.vector(4));
  const image = Array.from({ length: N }, () => rng.vector(3));

  const connect = () => {
    points?.close();
    readOnly?.close();
    collections?.close();
    points = createPointsClient(server.grpcAddress, credentials(server.apiKey));
    readOnly = createPointsClient(server.grpcAddress, credentials(server.readOnlyApiKey));
    collections = createCollectionsClient(server.grpcAddress, credentials(server.apiKey));
    call = caller(points);
  };
  const info = async (name: string) =>
    (await unary<object, { result: CollectionInfo }>(collections, 'Get', { collectionName: name })).result;
  const denseNames = async (name: string) =>
    Object.keys((await info(name)).config.params.vectorsConfig.paramsMap?.map ?? {}).sort();
  const getAll = async (name: string, ids: number[] = Array.from({ length: N }, (_, i) => i + 1)) =>
    (
      await call<{ result: RetrievedPoint[] }>('Get', {
        collectionName: name,
        ids: ids.map(pid),
        withVectors: { enable: true },
      })
    ).result;
  const search = (name: string, using: string, vector: number[], limit = 5) =>
    call<{ result: ScoredPoint[] }>('Query', {
      collectionName: name,
      using,
      query: { nearest: { dense: { data: vector } } },
      limit,
    });
  const count = async (name: string, filter: object) =>
    Number(
      (await call<{ result: { count: string } }>('Count', { collectionName: name, filter, exact: true })).result.count,
    );
  const expectNearest = async (
    name: string,
    using: string,
    distance: DistanceName,
    query: number[],
    data: Array<[string, number[]]>,
  ) => {
    const hits = (await search(name, using, query, 5)).result;
    expectSameRanking(
      hits.map((h) => [idOf(h.id), h.score]),
      topK(distance, query, data, 6),
      5,
    );
  };
  const restart = async (kill = false) => {
    if (kill) await server.kill();
    server = await server.restart();
    connect();
  };

  beforeAll(async () => {
    server = await startServer();
    connect();
    await unary(collections, 'Create', {
      collectionName: 'docs',
      vectorsConfig: { paramsMap: { map: { [TEXT]: { size: 4, distance: 'Dot' } } } },
      sparseVectorsConfig: { map: { [KEYWORDS]: {} } },
      shardNumber: 2,
    });
    await call('Upsert', {
      collectionName: 'docs',
      wait: true,
      points: text.map((v, i) => ({ id: pid(i + 1), vectors: { vectors: { vectors: { [TEXT]: dense(v) } } } })),
    });
  });

  afterAll(async () => {
    points?.close();
    readOnly?.close();
    collections?.close();
    await server?.stop();
  });

  describe('CreateVectorName', () => {
    it('should add a dense vector that no existing point has yet', async () => {
      const response = await call('CreateVectorName', {
        collectionName: 'docs',
        vectorName: IMAGE,
        denseConfig: { size: 3, distance: 'Euclid' },
        wait: true,
      });
      expect(response.result.status).toBe('Completed');
      const map = (await info('docs')).config.params.vectorsConfig.paramsMap!.map;
      expect(map[IMAGE]).toMatchObject({ size: '3', distance: 'Euclid' });
      expect(Object.keys(map).sort()).toEqual([IMAGE, TEXT].sort());
      for (const p of await getAll('docs')) expect(vectorNames(p)).toEqual([TEXT]);
      expect((await search('docs', IMAGE, [0, 0, 0])).result).toEqual([]);
      expect(await count('docs', { must: [{ hasVector: { hasVector: IMAGE } }] })).toBe(0);
    });

    it('should store, return and search the new vector', async () => {
      await call('UpdateVectors', {
        collectionName: 'docs',
        wait: true,
        points: image
          .slice(0, 20)
          .map((v, i) => ({ id: pid(i + 1), vectors: { vectors: { vectors: { [IMAGE]: dense(v) } } } })),
      });
      await call('Upsert', {
        collectionName: 'docs',
        wait: true,
        points: [{ id: pid(N + 1), vectors: { vectors: { vectors: { [IMAGE]: dense(image[20]) } } } }],
      });
      const all = await getAll('docs', [1, 20, 21, N + 1]);
      expect(all.map(vectorNames)).toEqual([[IMAGE, TEXT].sort(), [IMAGE, TEXT].sort(), [TEXT], [IMAGE]]);
      namedDense(all[0], IMAGE)!.forEach((x, i) => expect(x).toBeCloseTo(image[0][i], 5));
      const data: Array<[string, number[]]> = [
        ...image.slice(0, 20).map((v, i) => [keyOf(i + 1), v] as [string, number[]]),
        [keyOf(N + 1), image[20]],
      ];
      await expectNearest('docs', IMAGE, 'Euclid', [0.1, -0.2, 0.3], data);
      expect(await count('docs', { must: [{ hasVector: { hasVector: IMAGE } }] })).toBe(21);
    });

    it('should add a sparse vector with the IDF modifier', async () => {
      const response = await call('CreateVectorName', {
        collectionName: 'docs',
        vectorName: 'bm25',
        sparseConfig: { modifier: 'Idf' },
      });
      expect(response.result.status).toBe('Acknowledged');
      expect((await info('docs')).config.params.sparseVectorsConfig!.map.bm25).toMatchObject({ modifier: 'Idf' });
      await call('UpdateVectors', {
        collectionName: 'docs',
        wait: true,
        points: [
          { id: pid(1), vectors: { vectors: { vectors: { bm25: { sparse: { indices: [1, 5], values: [1, 1] } } } } } },
          { id: pid(2), vectors: { vectors: { vectors: { bm25: { sparse: { indices: [5], values: [2] } } } } } },
        ],
      });
      const hits = (
        await call<{ result: ScoredPoint[] }>('Query', {
          collectionName: 'docs',
          using: 'bm25',
          query: { nearest: { sparse: { indices: [1], values: [1] } } },
        })
      ).result;
      expect(hits.map((h) => idOf(h.id))).toEqual(['n:1']);
    });

    it('should treat the same vector again as done, and refuse another one of that name', async () => {
      expect(
        (
          await call('CreateVectorName', {
            collectionName: 'docs',
            vectorName: IMAGE,
            denseConfig: { size: 3, distance: 'Euclid', datatype: 'Float32' },
          })
        ).result.status,
      ).toBe('Acknowledged');
      await expectGrpcError(
        call('CreateVectorName', {
          collectionName: 'docs',
          vectorName: IMAGE,
          denseConfig: { size: 8, distance: 'Euclid' },
        }),
        grpc.status.INVALID_ARGUMENT,
        `Wrong input: Vector \`${IMAGE}\` already exists with a different configuration`,
      );
      await expectGrpcError(
        call('CreateVectorName', { collectionName: 'docs', vectorName: IMAGE, sparseConfig: {} }),
        grpc.status.INVALID_ARGUMENT,
        'already exists as a dense vector',
      );
      await expectGrpcError(
        call('CreateVectorName', {
          collectionName: 'docs',
          vectorName: KEYWORDS,
          denseConfig: { size: 2, distance: 'Dot' },
        }),
        grpc.status.INVALID_ARGUMENT,
        'already exists as a sparse vector',
      );
      await expectGrpcError(
        call('CreateVectorName', { collectionName: 'docs', vectorName: 'bm25', sparseConfig: {} }),
        grpc.status.INVALID_ARGUMENT,
        'different configuration',
      );
      // The image vectors are untouched.
      expect(await count('docs', { must: [{ hasVector: { hasVector: IMAGE } }] })).toBe(21);
    });

    it('should validate the request before looking up the collection', async () => {
      const bad: Array<[object, string]> = [
        [{ vectorName: '', denseConfig: { size: 2, distance: 'Dot' } }, 'vector_name: must not be empty'],
        [{ vectorName: 'x' }, 'vector_config: must set dense_config or sparse_config'],
        [
          { vectorName: 'x', denseConfig: { size: 0, distance: 'Dot' } },
          'dense_config.size: value 0 invalid, must be from 1 to 65536',
        ],
        [{ vectorName: 'x', denseConfig: { size: 65537, distance: 'Dot' } }, 'dense_config.size'],
        [{ vectorName: 'x', denseConfig: { size: 4 } }, 'dense_config.distance'],
        [{ vectorName: 'a/b', denseConfig: { size: 4, distance: 'Dot' } }, 'cannot contain "/" char'],
        [{ vectorName: 'x'.repeat(201), sparseConfig: {} }, 'at most 200 bytes'],
      ];
      for (const [body, message] of bad) {
        await expectGrpcError(
          call('CreateVectorName', { collectionName: 'missing', ...body }),
          grpc.status.INVALID_ARGUMENT,
          message,
        );
      }
      await expectGrpcError(
        call('CreateVectorName', { collectionName: 'missing', vectorName: 'x', sparseConfig: {} }),
        grpc.status.NOT_FOUND,
        "Collection `missing` doesn't exist!",
      );
    });

    it('should keep the new vectors and their data across a restart', async () => {
      await restart();
      expect(await denseNames('docs')).toEqual([IMAGE, TEXT].sort());
      const data: Array<[string, number[]]> = [
        ...image.slice(0, 20).map((v, i) => [keyOf(i + 1), v] as [string, number[]]),
        [keyOf(N + 1), image[20]],
      ];
      await expectNearest('docs', IMAGE, 'Euclid', [0.1, -0.2, 0.3], data);
      const hits = (
        await call<{ result: ScoredPoint[] }>('Query', {
          collectionName: 'docs',
          using: 'bm25',
          query: { nearest: { sparse: { indices: [5], values: [1] } } },
        })
      ).result;
      expect(hits.map((h) => idOf(h.id))).toEqual(['n:2', 'n:1']);
    });

    it('should keep a vector written right after its creation through SIGKILL', async () => {
      await call('CreateVectorName', {
        collectionName: 'docs',
        vectorName: 'late',
        denseConfig: { size: 2, distance: 'Cosine' },
        wait: true,
      });
      await call('UpdateVectors', {
        collectionName: 'docs',
        wait: true,
        points: [{ id: pid(3), vectors: { vectors: { vectors: { late: dense([1, 1]) } } } }],
      });
      await restart(true);
      const [three] = await getAll('docs', [3]);
      expect(vectorNames(three)).toEqual([IMAGE, 'late', TEXT].sort());
      expect(namedDense(three, 'late')![0]).toBeCloseTo(Math.SQRT1_2, 5);
    });
  });

  describe('DeleteVectorName', () => {
    it('should remove the vector from every point, searches, filters and the collection config', async () => {
      const response = await call('DeleteVectorName', { collectionName: 'docs', vectorName: TEXT, wait: true });
      expect(response.result.status).toBe('Completed');
      expect(await denseNames('docs')).toEqual([IMAGE, 'late'].sort());
      for (const p of await getAll('docs')) expect(vectorNames(p)).not.toContain(TEXT);
      const scrolled = (
        await call<{ result: RetrievedPoint[] }>('Scroll', {
          collectionName: 'docs',
          limit: 100,
          withVectors: { enable: true },
        })
      ).result;
      expect(scrolled).toHaveLength(N + 1);
      for (const p of scrolled) expect(vectorNames(p)).not.toContain(TEXT);
      await expectGrpcError(search('docs', TEXT, [1, 0, 0, 0]), grpc.status.INVALID_ARGUMENT, TEXT);
      await expectGrpcError(
        call('Search', { collectionName: 'docs', vectorName: TEXT, vector: [1, 0, 0, 0], limit: 3 }),
        grpc.status.INVALID_ARGUMENT,
        TEXT,
      );
      expect(await count('docs', { must: [{ hasVector: { hasVector: TEXT } }] })).toBe(0);
      await expectGrpcError(
        call('UpdateVectors', {
          collectionName: 'docs',
          wait: true,
          points: [{ id: pid(1), vectors: { vectors: { vectors: { [TEXT]: dense([1, 0, 0, 0]) } } } }],
        }),
        grpc.status.INVALID_ARGUMENT,
        TEXT,
      );
      // Other vectors of the same points are untouched.
      expect(await count('docs', { must: [{ hasVector: { hasVector: IMAGE } }] })).toBe(21);
    });

    it('should delete a sparse vector', async () => {
      await call('DeleteVectorName', { collectionName: 'docs', vectorName: 'bm25' });
      expect(Object.keys((await info('docs')).config.params.sparseVectorsConfig?.map ?? {})).toEqual([KEYWORDS]);
      await expectGrpcError(
        call('Query', {
          collectionName: 'docs',
          using: 'bm25',
          query: { nearest: { sparse: { indices: [1], values: [1] } } },
        }),
        grpc.status.INVALID_ARGUMENT,
        'bm25',
      );
    });

    it('should answer OK for a name the collection does not have, and refuse the unnamed vector', async () => {
      expect(
        (await call('DeleteVectorName', { collectionName: 'docs', vectorName: 'never-there', wait: true })).result
          .status,
      ).toBe('Completed');
      await expectGrpcError(
        call('DeleteVectorName', { collectionName: 'docs', vectorName: '' }),
        grpc.status.INVALID_ARGUMENT,
        'the unnamed (default) vector cannot be deleted',
      );
      await expectGrpcError(
        call('DeleteVectorName', { collectionName: 'missing', vectorName: 'x' }),
        grpc.status.NOT_FOUND,
        "Collection `missing` doesn't exist!",
      );
    });

    it('should stay deleted after SIGKILL and a restart', async () => {
      await restart(true);
      expect(await denseNames('docs')).toEqual([IMAGE, 'late'].sort());
      for (const p of await getAll('docs')) expect(vectorNames(p)).not.toContain(TEXT);
      await expectGrpcError(search('docs', TEXT, [1, 0, 0, 0]), grpc.status.INVALID_ARGUMENT, TEXT);
      expect(await count('docs', { must: [{ hasVector: { hasVector: TEXT } }] })).toBe(0);
      expect(await count('docs', { must: [{ hasVector: { hasVector: IMAGE } }] })).toBe(21);
    });

    it('should not bring old vectors back when the name is created again, with another shape', async () => {
      await call('CreateVectorName', {
        collectionName: 'docs',
        vectorName: TEXT,
        denseConfig: { size: 2, distance: 'Manhattan' },
        wait: true,
      });
      expect(await count('docs', { must: [{ hasVector: { hasVector: TEXT } }] })).toBe(0);
      await call('UpdateVectors', {
        collectionName: 'docs',
        wait: true,
        points: [{ id: pid(5), vectors: { vectors: { vectors: { [TEXT]: dense([1, 2]) } } } }],
      });
      await restart();
      expect(await count('docs', { must: [{ hasVector: { hasVector: TEXT } }] })).toBe(1);
      expect(namedDense((await getAll('docs', [5]))[0], TEXT)).toEqual([1, 2]);
      expect((await info('docs')).config.params.vectorsConfig.paramsMap!.map[TEXT]).toMatchObject({
        size: '2',
        distance: 'Manhattan',
      });
    });
  });

  describe('collections', () => {
    it('should turn a single unnamed vector into named vectors that keep it as ""', async () => {
      await unary(collections, 'Create', {
        collectionName: 'single',
        vectorsConfig: { params: { size: 2, distance: 'Dot' } },
      });
      await call('Upsert', {
        collectionName: 'single',
        wait: true,
        points: [{ id: pid(1), vectors: { vector: dense([1, 0]) } }],
      });
      await call('CreateVectorName', {
        collectionName: 'single',
        vectorName: 'extra',
        denseConfig: { size: 3, distance: 'Cosine' },
        wait: true,
      });
      const map = (await info('single')).config.params.vectorsConfig.paramsMap!.map;
      expect(Object.keys(map).sort()).toEqual(['', 'extra']);
      expect(map['']).toMatchObject({ size: '2', distance: 'Dot' });
      // The unnamed vector still works as before: unnamed upserts and searches without `using`.
      await call('Upsert', {
        collectionName: 'single',
        wait: true,
        points: [{ id: pid(2), vectors: { vector: dense([0, 1]) } }],
      });
      const hits = (
        await call<{ result: ScoredPoint[] }>('Search', { collectionName: 'single', vector: [0, 1], limit: 1 })
      ).result;
      expect(hits.map((h) => idOf(h.id))).toEqual(['n:2']);
      await expectGrpcError(
        call('DeleteVectorName', { collectionName: 'single', vectorName: '' }),
        grpc.status.INVALID_ARGUMENT,
        'unnamed',
      );
    });

    it('should resolve aliases', async () => {
      await unary(collections, 'UpdateAliases', {
        actions: [{ createAlias: { collectionName: 'single', aliasName: 'single-alias' } }],
      });
      await call('CreateVectorName', { collectionName: 'single-alias', vectorName: 'via-alias', sparseConfig: {} });
      expect(Object.keys((await info('single')).config.params.sparseVectorsConfig!.map)).toEqual(['via-alias']);
      await call('DeleteVectorName', { collectionName: 'single-alias', vectorName: 'via-alias' });
      expect(Object.keys((await info('single')).config.params.sparseVectorsConfig?.map ?? {})).toEqual([]);
    });

    it('should refuse both to the read-only key with PERMISSION_DENIED', async () => {
      const ro = caller(readOnly);
      await expectGrpcError(
        ro('CreateVectorName', { collectionName: 'docs', vectorName: 'ro', sparseConfig: {} }),
        grpc.status.PERMISSION_DENIED,
        'manage access',
      );
      await expectGrpcError(
        ro('DeleteVectorName', { collectionName: 'docs', vectorName: IMAGE }),
        grpc.status.PERMISSION_DENIED,
        'manage access',
      );
      expect(await denseNames('docs')).toContain(IMAGE);
    });
  });

  describe('indexed segments', () => {
    const NAME = 'indexed';
    const M = 600;
    const base = Array.from({ length: M }, () => rng.vector(4));
    const extra = Array.from({ length: M }, () => rng.vector(2));

    const waitIndexed = async () => {
      const ready = await pollUntil(async () => {
        const current = await info(NAME);
        return current.status === 'Green' && Number(current.indexedVectorsCount ?? 0) >= M / 2;
      }, 60_000);
      expect(ready).toBe(true);
    };

    it('should add a vector to a collection with optimized segments, write it and search it', async () => {
      await unary(collections, 'Create', {
        collectionName: NAME,
        vectorsConfig: { paramsMap: { map: { base: { size: 4, distance: 'Dot', onDisk: true } } } },
        optimizersConfig: { indexingThreshold: 1 }, // 1 KB = 64 vectors of 4 dims
      });
      await call('Upsert', {
        collectionName: NAME,
        wait: true,
        points: base.map((v, i) => ({ id: pid(i + 1), vectors: { vectors: { vectors: { base: dense(v) } } } })),
      });
      await waitIndexed();
      await call('CreateVectorName', {
        collectionName: NAME,
        vectorName: 'extra',
        denseConfig: { size: 2, distance: 'Euclid' },
        wait: true,
      });
      await call('UpdateVectors', {
        collectionName: NAME,
        wait: true,
        points: extra
          .slice(0, 300)
          .map((v, i) => ({ id: pid(i + 1), vectors: { vectors: { vectors: { extra: dense(v) } } } })),
      });
      const data = extra.slice(0, 300).map((v, i) => [keyOf(i + 1), v] as [string, number[]]);
      await expectNearest(NAME, 'extra', 'Euclid', [0.3, -0.4], data);
      await expectNearest(
        NAME,
        'base',
        'Dot',
        [0.1, 0.2, 0.3, 0.4],
        base.map((v, i) => [keyOf(i + 1), v]),
      );
    });

    it('should delete a vector from optimized segments at once and for good, while the optimizer rebuilds them', async () => {
      await call('DeleteVectorName', { collectionName: NAME, vectorName: 'base', wait: true });
      expect(await count(NAME, { must: [{ hasVector: { hasVector: 'base' } }] })).toBe(0);
      const sample = await getAll(NAME, [1, 2, 400, 599]);
      expect(sample.map(vectorNames)).toEqual([['extra'], ['extra'], [], []]);
      await waitIndexed();
      const data = extra.slice(0, 300).map((v, i) => [keyOf(i + 1), v] as [string, number[]]);
      await expectNearest(NAME, 'extra', 'Euclid', [0.3, -0.4], data);
      await restart(true);
      expect(await denseNames(NAME)).toEqual(['extra']);
      expect(await count(NAME, { must: [{ hasVector: { hasVector: 'base' } }] })).toBe(0);
      expect(await count(NAME, { must: [{ hasVector: { hasVector: 'extra' } }] })).toBe(300);
      await expectNearest(NAME, 'extra', 'Euclid', [0.3, -0.4], data);
      // Created again with another shape: none of the old vectors come back.
      await call('CreateVectorName', {
        collectionName: NAME,
        vectorName: 'base',
        denseConfig: { size: 3, distance: 'Dot' },
        wait: true,
      });
      await restart();
      expect(await count(NAME, { must: [{ hasVector: { hasVector: 'base' } }] })).toBe(0);
    });
  });

  describe('official @qdrant/js-client-grpc', () => {
    it('should create and delete vector names at /qdrant.Points/*', async () => {
      const client = new QdrantClient({
        host: '127.0.0.1',
        port: server.grpcPort,
        https: false,
        apiKey: server.apiKey,
        checkCompatibility: false,
        timeout: 20_000,
      });
      const api = client.api('points');
      const created = await api.createVectorName({
        collectionName: 'docs',
        vectorName: 'from_client',
        vectorConfig: { case: 'denseConfig', value: { size: 5n, distance: Distance.Cosine } },
        wait: true,
      });
      expect(created.result?.status).toBe(UpdateStatus.Completed);
      const sparse = await api.createVectorName({
        collectionName: 'docs',
        vectorName: 'sparse_client',
        vectorConfig: { case: 'sparseConfig', value: { modifier: Modifier.Idf } },
      });
      expect(sparse.result?.status).toBe(UpdateStatus.Acknowledged);
      expect(await denseNames('docs')).toContain('from_client');
      const deleted = await api.deleteVectorName({ collectionName: 'docs', vectorName: 'from_client', wait: true });
      expect(deleted.result?.status).toBe(UpdateStatus.Completed);
      expect(await denseNames('docs')).not.toContain('from_client');
    });
  });
});
