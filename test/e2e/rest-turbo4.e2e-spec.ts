import { Rng } from '../support/seeded-random';
import { RunningServer, startServer } from './support/server-harness';

// The official REST client, unchanged (CommonJS build; runs on Node 20 despite its engines field).
const { QdrantClient } = require('@qdrant/js-client-rest') as typeof import('@qdrant/js-client-rest');

jest.setTimeout(120_000);

const DIM = 48;
const cosine = (a: number[], b: number[]) => {
  const dot = a.reduce((s, x, i) => s + x * b[i], 0);
  return dot / (Math.hypot(...a) * Math.hypot(...b));
};

describe('turbo4 datatype and turbo quantization (REST e2e)', () => {
  let server: RunningServer;
  let client: InstanceType<typeof QdrantClient>;

  beforeAll(async () => {
    server = await startServer();
    client = new QdrantClient({ url: server.httpUrl, apiKey: server.apiKey, checkCompatibility: false });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('should store 4-bit vectors that keep direction and magnitude, read back the same across a restart', async () => {
    await client.createCollection('t4', {
      vectors: {
        dot: { size: DIM, distance: 'Dot', datatype: 'turbo4' as never },
        cos: {
          size: DIM,
          distance: 'Cosine',
          datatype: 'turbo4' as never,
          quantization_config: { turbo: { bits: 'bits2', always_ram: true } } as never,
        },
      },
    });
    const rng = new Rng(17);
    const originals = Array.from({ length: 30 }, () => ({ dot: rng.vector(DIM), cos: rng.vector(DIM) }));
    await client.upsert('t4', {
      wait: true,
      points: originals.map((vector, i) => ({ id: i + 1, vector })),
    });
    const info = await client.getCollection('t4');
    const params = info.config.params.vectors as Record<string, Record<string, unknown>>;
    expect(params.dot.datatype).toBe('turbo4');
    expect(params.cos.quantization_config).toEqual({ turbo: { bits: 'bits2', always_ram: true } });

    const [first] = await client.retrieve('t4', { ids: [1], with_vector: true });
    const stored = first.vector as Record<string, number[]>;
    expect(cosine(stored.dot, originals[0].dot)).toBeGreaterThan(0.97);
    expect(Math.hypot(...stored.dot) / Math.hypot(...originals[0].dot)).toBeGreaterThan(0.9);
    // Quantized: not the values written.
    expect(stored.dot).not.toEqual(originals[0].dot.map(Math.fround));
    expect(cosine(stored.cos, originals[0].cos)).toBeGreaterThan(0.97);
    expect(Math.hypot(...stored.cos)).toBeCloseTo(1, 4);

    const hits = await client.query('t4', { query: originals[4].dot, using: 'dot', limit: 3 });
    expect(hits.points[0].id).toBe(5);

    server = await server.restart();
    client = new QdrantClient({ url: server.httpUrl, apiKey: server.apiKey, checkCompatibility: false });
    const [again] = await client.retrieve('t4', { ids: [1], with_vector: true });
    expect(again.vector).toEqual(first.vector);
  });
});
