import { RunningServer, startServer } from './support/server-harness';

jest.setTimeout(60_000);

// The official client, unchanged, on the /qdrant.* paths (CommonJS build; runs on Node 20 despite its engines field).
const { QdrantClient, Distance, FieldType, UpdateStatus, RetrievedPointSchema, CollectionInfoSchema } =
  require('@qdrant/js-client-grpc') as typeof import('@qdrant/js-client-grpc');
// protobuf-es v2 messages are plain objects; canonical JSON (uint64 as string) comes from toJson(schema, message).
const { toJson } = require('@bufbuild/protobuf') as typeof import('@bufbuild/protobuf');

type Client = InstanceType<typeof QdrantClient>;

const COLLECTION = 'test_collection';
const BIG_ID = BigInt(Number.MAX_SAFE_INTEGER) + 2n; // 9007199254740993, above 2^53
const DUP_UUID = '98a9a4b1-4ef2-46fb-8315-a97d874fe1d7';
const QUERY = [0.2, 0.1, 0.9, 0.7];

// protobuf-es v2 init shapes: oneofs as {case, value}, 64-bit integers as bigint, enums as numbers.
const str = (value: string) => ({ kind: { case: 'stringValue' as const, value } });
const list = (...values: Array<ReturnType<typeof str> | { kind: { case: 'integerValue'; value: bigint } }>) => ({
  kind: { case: 'listValue' as const, value: { values } },
});
const int = (value: bigint) => ({ kind: { case: 'integerValue' as const, value } });
const num = (value: bigint) => ({ pointIdOptions: { case: 'num' as const, value } });
const uuid = (value: string) => ({ pointIdOptions: { case: 'uuid' as const, value } });
const vector = (data: number[]) => ({ vectorsOptions: { case: 'vector' as const, value: { data } } });
const londonFilter = {
  should: [
    {
      conditionOneOf: {
        case: 'field' as const,
        value: { key: 'city', match: { matchValue: { case: 'keyword' as const, value: 'London' } } },
      },
    },
  ],
};

describe('official @qdrant/js-client-grpc: points (integration steps 7-12, e2e)', () => {
  let server: RunningServer;
  let client: Client;

  beforeAll(async () => {
    server = await startServer();
    client = new QdrantClient({
      host: '127.0.0.1',
      port: server.grpcPort,
      https: false,
      apiKey: server.apiKey,
      checkCompatibility: false,
      timeout: 20_000,
    });
    const collections = client.api('collections');
    expect(typeof (await collections.delete({ collectionName: COLLECTION })).result).toBe('boolean');
    const created = await collections.create({
      collectionName: COLLECTION,
      vectorsConfig: { config: { case: 'params', value: { size: 4n, distance: Distance.Dot } } },
      optimizersConfig: { defaultSegmentNumber: 2n },
      replicationFactor: 2,
    });
    expect(created.result).toBe(true);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('step 7: should create keyword and integer indexes without wait (Acknowledged) and a geo index with wait (Completed)', async () => {
    const points = client.api('points');
    for (const [fieldName, fieldType] of [
      ['city', FieldType.FieldTypeKeyword],
      ['count', FieldType.FieldTypeInteger],
    ] as const) {
      const result = (await points.createFieldIndex({ collectionName: COLLECTION, fieldName, fieldType })).result!;
      expect(typeof result.operationId).toBe('bigint');
      expect(result.status).toBe(UpdateStatus.Acknowledged);
    }
    const geo = (
      await points.createFieldIndex({
        collectionName: COLLECTION,
        fieldName: 'coords',
        fieldType: FieldType.FieldTypeGeo,
        wait: true,
      })
    ).result!;
    expect(typeof geo.operationId).toBe('bigint');
    expect(geo.status).toBe(UpdateStatus.Completed);
  });

  it('step 8: should get the collection', async () => {
    const info = await client.api('collections').get({ collectionName: COLLECTION });
    expect(info.result).toBeDefined();
    expect(Object.keys(info.result!.payloadSchema).sort()).toEqual(['city', 'coords', 'count']);
  });

  it('step 9: should upsert 8 points (a uint64 above 2^53, a duplicate UUID) with wait (Completed)', async () => {
    const response = await client.api('points').upsert({
      collectionName: COLLECTION,
      wait: true,
      points: [
        {
          id: num(1n),
          vectors: vector([0.05, 0.61, 0.76, 0.74]),
          payload: {
            city: str('Berlin'),
            country: str('Germany'),
            count: int(1000000n),
            square: { kind: { case: 'doubleValue', value: 12.5 } },
            coords: {
              kind: {
                case: 'structValue',
                value: {
                  fields: {
                    lat: { kind: { case: 'doubleValue', value: 1.0 } },
                    lon: { kind: { case: 'doubleValue', value: 2.0 } },
                  },
                },
              },
            },
          },
        },
        {
          id: num(2n),
          vectors: vector([0.19, 0.81, 0.75, 0.11]),
          payload: { city: list(str('Berlin'), str('London')) },
        },
        {
          id: num(3n),
          vectors: vector([0.36, 0.55, 0.47, 0.94]),
          payload: { city: list(str('Berlin'), str('Moscow')) },
        },
        {
          id: num(4n),
          vectors: vector([0.18, 0.01, 0.85, 0.8]),
          payload: { city: list(str('London'), str('Moscow')) },
        },
        { id: num(BIG_ID), vectors: vector([0.18, 0.01, 0.85, 0.8]) },
        { id: uuid(DUP_UUID), vectors: vector([0.24, 0.18, 0.22, 0.44]), payload: { count: list(int(0n)) } },
        { id: uuid(DUP_UUID), vectors: vector([0.24, 0.18, 0.22, 0.44]), payload: { count: list(int(0n)) } },
        {
          id: uuid('f0e09527-b096-42a8-94e9-ea94d342b925'),
          vectors: vector([0.35, 0.08, 0.11, 0.44]),
          payload: { count: list(int(0n)) },
        },
      ],
    });
    expect(typeof response.result!.operationId).toBe('bigint');
    expect(response.result!.status).toBe(UpdateStatus.Completed);
  });

  it('step 10: should get a point by id with its payload listValue', async () => {
    const { result } = await client.api('points').get({
      collectionName: COLLECTION,
      ids: [num(2n)],
      withPayload: { selectorOptions: { case: 'enable', value: true } },
    });
    expect(result).toHaveLength(1);
    expect(toJson(RetrievedPointSchema, result[0])).toMatchObject({
      id: { num: '2' },
      payload: { city: { listValue: { values: [{ stringValue: 'Berlin' }, { stringValue: 'London' }] } } },
    });
  });

  it('step 10: should round-trip the uint64 id above 2^53', async () => {
    const { result } = await client.api('points').get({ collectionName: COLLECTION, ids: [num(BIG_ID)] });
    expect(result).toHaveLength(1);
    expect(result[0].id?.pointIdOptions).toEqual({ case: 'num', value: BIG_ID });
    expect(toJson(RetrievedPointSchema, result[0])).toMatchObject({ id: { num: BIG_ID.toString() } });
    const both = await client.api('points').get({ collectionName: COLLECTION, ids: [num(1n), num(2n)] });
    expect(both.result).toHaveLength(2);
  });

  it('step 11: should report pointsCount 7 (the duplicate UUID collapsed)', async () => {
    const info = (await client.api('collections').get({ collectionName: COLLECTION })).result!;
    expect(info.pointsCount).toBe(7n);
    expect(toJson(CollectionInfoSchema, info)).toMatchObject({ pointsCount: '7' });
    expect(info.payloadSchema.city?.points).toBe(4n);
  });

  it('step 12: should search with limit 3 (3 hits), with a keyword filter (2 hits), in a batch (2 lists) and by query (2 hits)', async () => {
    const points = client.api('points');
    const plain = await points.search({ collectionName: COLLECTION, vector: QUERY, limit: 3n });
    expect(plain.result).toHaveLength(3);
    for (let i = 1; i < plain.result.length; i++)
      expect(plain.result[i].score).toBeLessThanOrEqual(plain.result[i - 1].score);

    const filtered = await points.search({
      collectionName: COLLECTION,
      vector: QUERY,
      limit: 3n,
      filter: londonFilter,
    });
    expect(filtered.result.map((p) => p.id?.pointIdOptions.value).sort()).toEqual([2n, 4n]);

    const batch = await points.searchBatch({
      collectionName: COLLECTION,
      searchPoints: [
        {
          collectionName: COLLECTION,
          vector: QUERY,
          limit: 3n,
          withPayload: { selectorOptions: { case: 'enable', value: true } },
        },
        {
          collectionName: COLLECTION,
          vector: QUERY,
          limit: 3n,
          withPayload: { selectorOptions: { case: 'enable', value: true } },
          filter: londonFilter,
        },
      ],
    });
    expect(batch.result).toHaveLength(2);
    expect(batch.result[0].result).toHaveLength(3);
    expect(batch.result[1].result).toHaveLength(2);

    const queried = await points.query({
      collectionName: COLLECTION,
      query: { variant: { case: 'nearest', value: { variant: { case: 'dense', value: { data: QUERY } } } } },
      filter: londonFilter,
    });
    expect(queried.result).toHaveLength(2);
  });

  it('should scroll, count and delete through the official client', async () => {
    const points = client.api('points');
    const scrolled = await points.scroll({ collectionName: COLLECTION, limit: 10 });
    expect(scrolled.result).toHaveLength(7);
    expect(scrolled.nextPageOffset).toBeUndefined();
    expect((await points.count({ collectionName: COLLECTION, exact: true })).result?.count).toBe(7n);
    const deleted = await points.delete({
      collectionName: COLLECTION,
      wait: true,
      points: { pointsSelectorOneOf: { case: 'points', value: { ids: [uuid(DUP_UUID)] } } },
    });
    expect(deleted.result?.status).toBe(UpdateStatus.Completed);
    expect((await points.count({ collectionName: COLLECTION, exact: true })).result?.count).toBe(6n);
  });
});
