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
  JsonObject,
  caller,
  compareKeys,
  expectGrpcError,
  expectSameRanking,
  idOf,
  keyOf,
  named,
  pid,
  pollUntil,
  score,
  toPayload,
} from './support/points-helpers';
import { Rng } from '../support/seeded-random';
import { RunningServer, startServer } from './support/server-harness';

// The official client, unchanged, on the /qdrant.* paths (CommonJS build).
const { QdrantClient } = require('@qdrant/js-client-grpc') as typeof import('@qdrant/js-client-grpc');

jest.setTimeout(60_000);

/**
 * SearchMatrixPairs / SearchMatrixOffsets (Qdrant's distance matrix API) against a brute-force model:
 * a random sample of the points that pass the filter and have the vector, ids in point-id order, and
 * for each sampled point its `limit` nearest among the sample (itself left out), best first.
 */

interface ModelPoint {
  id: number;
  vectors: Record<string, number[]>;
  payload: JsonObject;
}

interface ProtoId {
  num?: string;
  uuid?: string;
}

interface PairsResponse {
  result: { pairs: Array<{ a: ProtoId; b: ProtoId; score: number }> };
}

interface OffsetsResponse {
  result: { offsetsRow: string[]; offsetsCol: string[]; scores: number[]; ids: ProtoId[] };
}

const MATRIX = 'matrix';
const SHARDED = 'matrix_sharded';
const SPACES: Record<string, { size: number; distance: DistanceName }> = {
  dot: { size: 4, distance: 'Dot' },
  euclid: { size: 3, distance: 'Euclid' },
};

/** 60 points; every 7th has no `euclid` vector, every 11th no `dot` vector. */
function modelPoints(): ModelPoint[] {
  const rng = new Rng(4242);
  return Array.from({ length: 60 }, (_, i) => {
    const id = i + 1;
    const vectors: Record<string, number[]> = {};
    if (id % 11 !== 0) vectors.dot = rng.vector(4);
    if (id % 7 !== 0) vectors.euclid = rng.vector(3);
    return { id, vectors, payload: { group: id % 3 === 0 ? 'a' : 'b' } };
  });
}

/** A matrix as rows: sampled id key -> its neighbours [key, score] best first. */
type Rows = Map<string, Array<[string, number]>>;

function rowsOfPairs(response: PairsResponse): Rows {
  const rows: Rows = new Map();
  for (const pair of response.result.pairs) {
    const a = idOf(pair.a);
    rows.set(a, [...(rows.get(a) ?? []), [idOf(pair.b), pair.score]]);
  }
  return rows;
}

function rowsOfOffsets(response: OffsetsResponse): { ids: string[]; rows: Rows } {
  const { offsetsRow, offsetsCol, scores, ids } = response.result;
  expect(offsetsCol).toHaveLength(offsetsRow.length);
  expect(scores).toHaveLength(offsetsRow.length);
  const keys = ids.map(idOf);
  const rows: Rows = new Map(keys.map((k) => [k, []]));
  offsetsRow.forEach((row, i) => rows.get(keys[Number(row)])!.push([keys[Number(offsetsCol[i])], scores[i]]));
  // Rows come in order, grouped.
  for (let i = 1; i < offsetsRow.length; i++)
    expect(Number(offsetsRow[i])).toBeGreaterThanOrEqual(Number(offsetsRow[i - 1]));
  return { ids: keys, rows };
}

/** Checks every row against brute force over the sampled points (`sample` keys) and returns the sample. */
function expectMatrix(rows: Rows, sample: string[], points: ModelPoint[], using: string, limit: number): void {
  const space = SPACES[using];
  const vectorOf = new Map(points.filter((p) => p.vectors[using]).map((p) => [keyOf(p.id), p.vectors[using]]));
  for (const key of sample) expect(vectorOf.has(key)).toBe(true);
  for (const key of sample) {
    const query = vectorOf.get(key)!;
    const expected = sample
      .filter((k) => k !== key)
      .map((k) => [k, score(space.distance, query, vectorOf.get(k)!)] as [string, number])
      .sort((a, b) => (space.distance === 'Dot' ? b[1] - a[1] : a[1] - b[1]));
    expectSameRanking(rows.get(key) ?? [], expected, limit);
  }
}

describe('Points distance matrix (gRPC, e2e)', () => {
  let server: RunningServer;
  let points: grpc.Client;
  let readOnly: grpc.Client;
  let collections: CollectionsClient;
  let call: ReturnType<typeof caller>;
  const model = modelPoints();
  const withVector = (using: string, keep: (p: ModelPoint) => boolean = () => true) =>
    model
      .filter((p) => p.vectors[using] && keep(p))
      .map((p) => keyOf(p.id))
      .sort(compareKeys);

  beforeAll(async () => {
    server = await startServer();
    points = createPointsClient(server.grpcAddress, credentials(server.apiKey));
    readOnly = createPointsClient(server.grpcAddress, credentials(server.readOnlyApiKey));
    collections = createCollectionsClient(server.grpcAddress, credentials(server.apiKey));
    call = caller(points);
    const paramsMap = { map: Object.fromEntries(Object.entries(SPACES).map(([name, p]) => [name, p])) };
    await unary(collections, 'Create', { collectionName: MATRIX, vectorsConfig: { paramsMap }, shardNumber: 3 });
    await call('Upsert', {
      collectionName: MATRIX,
      wait: true,
      points: model.map((p) => ({ id: pid(p.id), vectors: named(p.vectors), payload: toPayload(p.payload) })),
    });
  });

  afterAll(async () => {
    points?.close();
    readOnly?.close();
    collections?.close();
    await server?.stop();
  });

  describe('SearchMatrixPairs', () => {
    it('should pair every point with its nearest when the sample covers the collection (Dot)', async () => {
      const response = await call<PairsResponse>('SearchMatrixPairs', {
        collectionName: MATRIX,
        sample: 100,
        limit: 4,
        using: 'dot',
      });
      const rows = rowsOfPairs(response);
      const all = withVector('dot');
      expect([...rows.keys()]).toEqual(all);
      expectMatrix(rows, all, model, 'dot', 4);
      expect(response.result.pairs).toHaveLength(all.length * 4);
    });

    it('should report distances, nearest first, for Euclid', async () => {
      const rows = rowsOfPairs(
        await call<PairsResponse>('SearchMatrixPairs', {
          collectionName: MATRIX,
          sample: 100,
          limit: 3,
          using: 'euclid',
        }),
      );
      const all = withVector('euclid');
      expectMatrix(rows, all, model, 'euclid', 3);
      for (const row of rows.values()) expect(row[0][1]).toBeLessThanOrEqual(row[2][1]);
    });

    it('should sample at random, keeping each row within the sample', async () => {
      const samples = new Set<string>();
      for (let round = 0; round < 3; round++) {
        const rows = rowsOfPairs(
          await call<PairsResponse>('SearchMatrixPairs', { collectionName: MATRIX, sample: 8, limit: 2, using: 'dot' }),
        );
        const sample = [...rows.keys()];
        expect(sample).toHaveLength(8);
        expect([...sample].sort(compareKeys)).toEqual(sample);
        expectMatrix(rows, sample, model, 'dot', 2);
        samples.add(sample.join());
      }
      expect(samples.size).toBeGreaterThan(1);
    });

    it('should default to a sample of 10 with 3 neighbours each, on the unnamed vector', async () => {
      await unary(collections, 'Create', {
        collectionName: 'matrix_default',
        vectorsConfig: { params: { size: 2, distance: 'Cosine' } },
      });
      const rng = new Rng(5);
      await call('Upsert', {
        collectionName: 'matrix_default',
        wait: true,
        points: Array.from({ length: 30 }, (_, i) => ({
          id: pid(i + 1),
          vectors: { vector: { dense: { data: rng.vector(2) } } },
        })),
      });
      const rows = rowsOfPairs(await call<PairsResponse>('SearchMatrixPairs', { collectionName: 'matrix_default' }));
      expect(rows.size).toBe(10);
      for (const row of rows.values()) expect(row).toHaveLength(3);
    });

    it('should sample only points passing the filter', async () => {
      const filter = { must: [{ field: { key: 'group', match: { keyword: 'a' } } }] };
      const rows = rowsOfPairs(
        await call<PairsResponse>('SearchMatrixPairs', {
          collectionName: MATRIX,
          sample: 100,
          limit: 3,
          using: 'euclid',
          filter,
        }),
      );
      const inGroup = withVector('euclid', (p) => p.payload.group === 'a');
      expect([...rows.keys()]).toEqual(inGroup);
      expectMatrix(rows, inGroup, model, 'euclid', 3);
    });

    it('should answer an empty matrix when fewer than two points can be sampled', async () => {
      const filter = { must: [{ hasId: { hasId: [pid(1)] } }] };
      const response = await call<PairsResponse>('SearchMatrixPairs', { collectionName: MATRIX, using: 'dot', filter });
      expect(response.result.pairs).toEqual([]);
      const offsets = await call<OffsetsResponse>('SearchMatrixOffsets', {
        collectionName: MATRIX,
        using: 'dot',
        filter,
      });
      expect(offsets.result).toMatchObject({ offsetsRow: [], offsetsCol: [], scores: [], ids: [] });
    });

    it('should accept timeout and read_consistency, and serve the read-only key', async () => {
      const ro = caller(readOnly);
      const response = await ro<PairsResponse>('SearchMatrixPairs', {
        collectionName: MATRIX,
        sample: 5,
        limit: 1,
        using: 'dot',
        timeout: 10,
        readConsistency: { type: 'Majority' },
      });
      expect(response.result.pairs).toHaveLength(5);
    });
  });

  describe('SearchMatrixOffsets', () => {
    it('should give the same matrix in coordinate form', async () => {
      const { ids, rows } = rowsOfOffsets(
        await call<OffsetsResponse>('SearchMatrixOffsets', {
          collectionName: MATRIX,
          sample: 100,
          limit: 5,
          using: 'euclid',
        }),
      );
      const all = withVector('euclid');
      expect(ids).toEqual(all);
      expectMatrix(rows, all, model, 'euclid', 5);
    });

    it('should keep a random sample consistent with its offsets', async () => {
      const filter = { must: [{ field: { key: 'group', match: { keyword: 'b' } } }] };
      const { ids, rows } = rowsOfOffsets(
        await call<OffsetsResponse>('SearchMatrixOffsets', {
          collectionName: MATRIX,
          sample: 12,
          limit: 3,
          using: 'dot',
          filter,
        }),
      );
      expect(ids).toHaveLength(12);
      const allowed = new Set(withVector('dot', (p) => p.payload.group === 'b'));
      for (const id of ids) expect(allowed.has(id)).toBe(true);
      expectMatrix(rows, ids, model, 'dot', 3);
    });
  });

  describe('indexed segments', () => {
    it('should score exactly in optimized segments with vectors on disk', async () => {
      const name = 'matrix_indexed';
      const rng = new Rng(77);
      const indexed = Array.from({ length: 400 }, (_, i) => ({
        id: i + 1,
        vectors: { euclid: rng.vector(3) },
        payload: {},
      }));
      await unary(collections, 'Create', {
        collectionName: name,
        vectorsConfig: { params: { size: 3, distance: 'Euclid', onDisk: true } },
        optimizersConfig: { indexingThreshold: 1 }, // 1 KB = 85 vectors of 3 dims
      });
      await call('Upsert', {
        collectionName: name,
        wait: true,
        points: indexed.map((p) => ({ id: pid(p.id), vectors: { vector: { dense: { data: p.vectors.euclid } } } })),
      });
      const ready = await pollUntil(async () => {
        const info = (
          await unary<object, { result: { status: string; indexedVectorsCount?: string } }>(collections, 'Get', {
            collectionName: name,
          })
        ).result;
        return info.status === 'Green' && Number(info.indexedVectorsCount ?? 0) >= 300;
      }, 30_000);
      expect(ready).toBe(true);
      const { ids, rows } = rowsOfOffsets(
        await call<OffsetsResponse>('SearchMatrixOffsets', { collectionName: name, sample: 1000, limit: 3 }),
      );
      expect(ids).toHaveLength(400);
      expectMatrix(rows, ids, indexed, 'euclid', 3);
    });
  });

  describe('shard keys', () => {
    it('should sample only the selected shard key', async () => {
      await unary(collections, 'Create', {
        collectionName: SHARDED,
        vectorsConfig: { params: { size: 4, distance: 'Dot' } },
        shardingMethod: 'Custom',
      });
      for (const key of ['eu', 'us'])
        await unary(collections, 'CreateShardKey', {
          collectionName: SHARDED,
          request: { shardKey: { keyword: key } },
        });
      const dot = model.filter((p) => p.vectors.dot);
      for (const key of ['eu', 'us']) {
        const part = dot.filter((p) => (key === 'eu') === p.id <= 30);
        await call('Upsert', {
          collectionName: SHARDED,
          wait: true,
          shardKeySelector: { shardKeys: [{ keyword: key }] },
          points: part.map((p) => ({ id: pid(p.id), vectors: { vector: { dense: { data: p.vectors.dot } } } })),
        });
      }
      const rows = rowsOfPairs(
        await call<PairsResponse>('SearchMatrixPairs', {
          collectionName: SHARDED,
          sample: 100,
          limit: 2,
          shardKeySelector: { shardKeys: [{ keyword: 'eu' }] },
        }),
      );
      const eu = dot.filter((p) => p.id <= 30).map((p) => keyOf(p.id));
      expect([...rows.keys()]).toEqual(eu);
      const unnamedModel = dot.map((p) => ({ ...p, vectors: { dot: p.vectors.dot } }));
      expectMatrix(rows, eu, unnamedModel, 'dot', 2);
    });
  });

  describe('errors', () => {
    it.each(['SearchMatrixPairs', 'SearchMatrixOffsets'])(
      '%s: should validate sample and limit, and name an unknown vector',
      async (method) => {
        await expectGrpcError(
          call(method, { collectionName: MATRIX, using: 'dot', sample: 1 }),
          grpc.status.INVALID_ARGUMENT,
          'sample: value 1 invalid, must be 2 or larger',
        );
        await expectGrpcError(
          call(method, { collectionName: MATRIX, using: 'dot', limit: 0 }),
          grpc.status.INVALID_ARGUMENT,
          'limit: value 0 invalid, must be 1 or larger',
        );
        await expectGrpcError(
          call(method, { collectionName: MATRIX, using: 'nope' }),
          grpc.status.INVALID_ARGUMENT,
          'nope',
        );
        await expectGrpcError(
          call(method, { collectionName: MATRIX }),
          grpc.status.INVALID_ARGUMENT,
          'Not existing vector name',
        );
        await expectGrpcError(
          call(method, { collectionName: 'missing' }),
          grpc.status.NOT_FOUND,
          "Collection `missing` doesn't exist!",
        );
      },
    );

    it('should refuse a malformed filter', async () => {
      await expectGrpcError(
        call('SearchMatrixPairs', {
          collectionName: MATRIX,
          using: 'dot',
          filter: { must: [{ field: { key: 'group' } }] },
        }),
        grpc.status.INVALID_ARGUMENT,
      );
    });
  });

  describe('official @qdrant/js-client-grpc', () => {
    it('should serve searchMatrixPairs and searchMatrixOffsets at /qdrant.Points/*', async () => {
      const client = new QdrantClient({
        host: '127.0.0.1',
        port: server.grpcPort,
        https: false,
        apiKey: server.apiKey,
        checkCompatibility: false,
        timeout: 20_000,
      });
      const api = client.api('points');
      const pairs = await api.searchMatrixPairs({ collectionName: MATRIX, sample: 100n, limit: 2n, using: 'euclid' });
      const rows: Rows = new Map();
      for (const pair of pairs.result!.pairs) {
        const a = `n:${pair.a!.pointIdOptions.value}`;
        rows.set(a, [...(rows.get(a) ?? []), [`n:${pair.b!.pointIdOptions.value}`, pair.score]]);
      }
      const all = withVector('euclid');
      expect([...rows.keys()]).toEqual(all);
      expectMatrix(rows, all, model, 'euclid', 2);

      const offsets = await api.searchMatrixOffsets({ collectionName: MATRIX, sample: 6n, limit: 2n, using: 'dot' });
      const result = offsets.result!;
      expect(result.ids).toHaveLength(6);
      expect(result.offsetsRow).toHaveLength(12);
      expect(result.offsetsRow.every((row) => typeof row === 'bigint' && row < 6n)).toBe(true);
      expect(result.offsetsCol.every((col, i) => col !== result.offsetsRow[i])).toBe(true);
      expect(result.scores).toHaveLength(12);
    });
  });
});
