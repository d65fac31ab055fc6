import { Rng } from '../support/seeded-random';
import { RunningServer, startServer } from './support/server-harness';

jest.setTimeout(120_000);

// The official clients, unchanged (CommonJS builds; they run on Node 20 despite their engines fields).
const Rest = (require('@qdrant/js-client-rest') as typeof import('@qdrant/js-client-rest')).QdrantClient;
const Grpc = (require('@qdrant/js-client-grpc') as typeof import('@qdrant/js-client-grpc')).QdrantClient;

const COLLECTION = 'concurrent';
const DIM = 16;
const STABLE = 2000; // ids 0..1999: written once, never changed
const RUN_MS = 8_000;
const LIMIT = 20;

interface Hit {
  id: number;
  score: number;
  gen?: number;
  first?: number;
}

/**
 * Searches run in parallel (so the server searches indexed segments on its worker threads) while points are
 * upserted, rewritten and deleted, and while the optimizer indexes, merges and rebuilds segments. Every
 * answer: ordered, no duplicate, never a point whose delete was acknowledged before the search was sent,
 * payload and vector of one written version; an exact search misses none of the never-changed points that
 * score better than its last hit.
 */
// 'always': every search of an indexed segment on a worker; 'auto' (the default): on a worker while the event
// loop is busy, inline otherwise, so both kinds run on the same indexes.
describe.each(['always', 'auto'])(
  'Searches on worker threads (%s) during writes and optimizer swaps (e2e)',
  (offload) => {
    let server: RunningServer;
    let rest: InstanceType<typeof Rest>;
    let grpc: InstanceType<typeof Grpc>;
    const rng = new Rng(1212);
    const stableVectors: number[][] = [];

    beforeAll(async () => {
      server = await startServer({ env: { VECTORSTORE_TEST_SEARCH_OFFLOAD: offload } });
      rest = new Rest({ url: server.httpUrl, apiKey: server.apiKey, checkCompatibility: false });
      grpc = new Grpc({
        host: '127.0.0.1',
        port: server.grpcPort,
        https: false,
        apiKey: server.apiKey,
        checkCompatibility: false,
        timeout: 20_000,
      });
    });

    afterAll(async () => {
      await server?.stop();
    });

    it('should answer consistently while points change and segments are swapped', async () => {
      // 40 KB of 16-d float vectors is 640 points: the optimizer indexes, merges and swaps all the time.
      await rest.createCollection(COLLECTION, {
        vectors: { size: DIM, distance: 'Euclid' },
        optimizers_config: { indexing_threshold: 40, default_segment_number: 2 },
      });
      const pointOf = (id: number, gen: number) => ({ id, vector: [gen, ...rng.vector(DIM - 1)], payload: { gen } });
      for (let start = 0; start < STABLE; start += 500) {
        const batch = Array.from({ length: 500 }, (_, i) => pointOf(start + i, 0));
        batch.forEach((p) => (stableVectors[p.id] = p.vector));
        await rest.upsert(COLLECTION, { wait: true, points: batch });
      }
      await waitGreen();
      expect((await rest.getCollection(COLLECTION)).indexed_vectors_count).toBeGreaterThan(0);

      const deletedAt = new Map<number, number>();
      const problems: string[] = [];
      let nextId = 100_000;
      let searches = 0;
      let swaps = 0;
      const stopAt = Date.now() + RUN_MS;

      const writer = async () => {
        let round = 0;
        while (Date.now() < stopAt) {
          round++;
          const gen = (round % 5) + 1;
          const fresh = Array.from({ length: 60 }, () => pointOf(nextId++, gen));
          const rewritten = Array.from({ length: 20 }, () =>
            pointOf(100_000 + Math.floor(rng.next() * (nextId - 100_000)), gen),
          );
          // Forgotten before sending: an id written again may be back in any answer from now on.
          for (const p of rewritten) deletedAt.delete(p.id);
          await rest.upsert(COLLECTION, { wait: true, points: [...fresh, ...rewritten] });
          const doomed = Array.from({ length: 30 }, () => 100_000 + Math.floor(rng.next() * (nextId - 100_000)));
          await rest.delete(COLLECTION, { wait: true, points: doomed });
          const acked = Date.now(); // only now is the delete acknowledged
          for (const id of doomed) deletedAt.set(id, acked);
        }
      };

      // Rebuilds every indexed segment (a config mismatch) twice during the run: large optimizer swaps.
      const rebuilder = async () => {
        for (const m of [8, 16]) {
          await sleep(RUN_MS / 3);
          await rest.updateCollection(COLLECTION, { hnsw_config: { m } });
          swaps++;
        }
      };

      const check = (hits: Hit[], sent: number, query: number[], exact: boolean) => {
        searches++;
        const ids = hits.map((h) => h.id);
        if (new Set(ids).size !== ids.length) problems.push(`duplicate ids: ${ids.join(',')}`);
        if (hits.length !== LIMIT) problems.push(`${hits.length} hits, not ${LIMIT}`);
        for (let i = 1; i < hits.length; i++) {
          if (hits[i].score < hits[i - 1].score) problems.push(`not ordered at ${i}`);
        }
        for (const hit of hits) {
          const at = deletedAt.get(hit.id);
          if (at !== undefined && at < sent) problems.push(`point ${hit.id} deleted before the search was returned`);
          if (hit.gen !== undefined && hit.first !== undefined && hit.gen !== hit.first)
            problems.push(`${hit.id}: payload gen ${hit.gen}, vector ${hit.first}`);
          if (hit.id < STABLE && Math.abs(distance(query, stableVectors[hit.id]) - hit.score) > 1e-3)
            problems.push(`${hit.id}: score ${hit.score}, expected ${distance(query, stableVectors[hit.id])}`);
        }
        if (!exact || hits.length === 0) return;
        // Never-changed points closer than the last hit are all there (a margin for float rounding).
        const last = hits[hits.length - 1].score;
        const returned = new Set(ids);
        for (let id = 0; id < STABLE; id++) {
          if (distance(query, stableVectors[id]) < last - 1e-3 && !returned.has(id))
            problems.push(`stable point ${id} missing from an exact search`);
        }
      };

      const restReader = async (exact: boolean) => {
        while (Date.now() < stopAt) {
          const sent = Date.now();
          const query = [rng.next() * 6, ...rng.vector(DIM - 1)];
          const { points: hits } = await rest.query(COLLECTION, {
            query,
            limit: LIMIT,
            with_payload: true,
            with_vector: true,
            params: { exact },
          });
          check(
            hits.map((h) => ({
              id: Number(h.id),
              score: h.score,
              gen: (h.payload as { gen: number }).gen,
              first: (h.vector as number[])[0],
            })),
            sent,
            query,
            exact,
          );
        }
      };

      const grpcReader = async (exact: boolean) => {
        while (Date.now() < stopAt) {
          const sent = Date.now();
          const query = [rng.next() * 6, ...rng.vector(DIM - 1)];
          const { result } = await grpc.api('points').search({
            collectionName: COLLECTION,
            vector: query,
            limit: BigInt(LIMIT),
            withPayload: { selectorOptions: { case: 'enable', value: true } },
            params: { exact },
          });
          check(
            result.map((h) => {
              const gen = h.payload.gen?.kind;
              const id = h.id?.pointIdOptions;
              return {
                id: id?.case === 'num' ? Number(id.value) : -1,
                score: h.score,
                gen: gen?.case === 'integerValue' ? Number(gen.value) : undefined,
              };
            }),
            sent,
            query,
            exact,
          );
        }
      };

      await Promise.all([
        writer(),
        rebuilder(),
        restReader(true),
        restReader(false),
        grpcReader(true),
        grpcReader(false),
        grpcReader(false),
      ]);
      expect(problems.slice(0, 10)).toEqual([]);
      expect(swaps).toBe(2);
      expect(searches).toBeGreaterThan(200);

      // Once quiet, the answer is what the collection holds: every deleted point gone, exact order.
      await waitGreen();
      const query = [3, ...rng.vector(DIM - 1)];
      const { points: hits } = await rest.query(COLLECTION, { query, limit: LIMIT, params: { exact: true } });
      for (const h of hits) expect(deletedAt.has(Number(h.id))).toBe(false);
    });

    it('should still refuse bad searches with the same errors', async () => {
      await expect(rest.query(COLLECTION, { query: [1, 2, 3], limit: 5 })).rejects.toMatchObject({ status: 400 });
      await expect(
        grpc.api('points').search({ collectionName: COLLECTION, vector: [1, 2, 3], limit: 5n }),
      ).rejects.toThrow(/InvalidArgument|invalid_argument|dimension/i);
      await expect(
        rest.query(COLLECTION, { query: new Array<number>(DIM).fill(0.5), limit: 5, params: { hnsw_ef: 0 } }),
      ).rejects.toMatchObject({ status: 422 });
    });

    async function waitGreen(): Promise<void> {
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline) {
        if ((await rest.getCollection(COLLECTION)).status === 'green') return;
        await sleep(100);
      }
      throw new Error('collection not green within 60 s');
    }
  },
);

function distance(a: number[], b: number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] - b[i]) ** 2;
  return Math.sqrt(sum);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
