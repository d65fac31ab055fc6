import * as grpc from '@grpc/grpc-js';
import {
  CollectionsClient,
  createCollectionsClient,
  createPointsClient,
  credentials,
  unary,
} from './support/grpc-clients';
import { ScoredPoint, caller, fromPayload, idOf, keyOf, pid, toPayload } from './support/points-helpers';
import { Rng } from '../support/seeded-random';
import { RunningServer, startServer } from './support/server-harness';

jest.setTimeout(90_000);

const DIM = 16;
const RUN_MS = 8_000;

/**
 * Searches while upserts, deletes and optimizer swaps run: every answer is ordered, has no duplicate, never
 * holds a point whose delete was acknowledged before the search was sent, and shows each point with the
 * payload of a version that was written (`gen` matches the vector's first component).
 */
describe('Search consistency under concurrent writes and optimizations (e2e)', () => {
  let server: RunningServer;
  let points: grpc.Client;
  let collections: CollectionsClient;
  let call: ReturnType<typeof caller>;
  const rng = new Rng(4242);

  beforeAll(async () => {
    server = await startServer();
    points = createPointsClient(server.grpcAddress, credentials(server.apiKey));
    collections = createCollectionsClient(server.grpcAddress, credentials(server.apiKey));
    call = caller(points);
  });

  afterAll(async () => {
    points?.close();
    collections?.close();
    await server?.stop();
  });

  it('should answer consistently while points are upserted, deleted and segments rebuilt', async () => {
    // 10 KB of 16-d vectors is 160 points: the optimizer rolls and rebuilds segments all the time.
    await unary(collections, 'Create', {
      collectionName: 'busy',
      vectorsConfig: { params: { size: DIM, distance: 'Dot' } },
      optimizersConfig: { indexingThreshold: 10, defaultSegmentNumber: 2 },
    });
    const pointOf = (id: number, gen: number) => {
      const vector = [gen, ...rng.vector(DIM - 1)];
      return { id: pid(id), vectors: { vector: { dense: { data: vector } } }, payload: toPayload({ gen }) };
    };
    await call('Upsert', {
      collectionName: 'busy',
      wait: true,
      points: Array.from({ length: 1000 }, (_, i) => pointOf(i, 1)),
    });

    const deletedAt = new Map<string, number>();
    const problems: string[] = [];
    let nextId = 1000;
    let searches = 0;
    const stopAt = Date.now() + RUN_MS;

    const writer = async () => {
      let round = 0;
      while (Date.now() < stopAt) {
        round++;
        const fresh = Array.from({ length: 50 }, () => pointOf(nextId++, (round % 7) + 1));
        const rewritten = Array.from({ length: 20 }, () => pointOf(Math.floor(rng.next() * nextId), (round % 7) + 1));
        // Forgotten before sending: an id written again may be back in any answer from now on.
        for (const p of rewritten) deletedAt.delete(idOf(p.id));
        await call('Upsert', { collectionName: 'busy', wait: true, points: [...fresh, ...rewritten] });
        const doomed = Array.from({ length: 30 }, () => Math.floor(rng.next() * nextId));
        await call('Delete', {
          collectionName: 'busy',
          wait: true,
          points: { points: { ids: doomed.map(pid) } },
        });
        // Only now is the delete acknowledged.
        const acked = Date.now();
        for (const id of doomed) deletedAt.set(keyOf(id), acked);
      }
    };

    const reader = async () => {
      while (Date.now() < stopAt) {
        const sent = Date.now();
        const deletedBefore = new Set([...deletedAt].filter(([, at]) => at < sent).map(([key]) => key));
        const hits = (
          await call<{ result: ScoredPoint[] }>('Search', {
            collectionName: 'busy',
            vector: [1, ...rng.vector(DIM - 1)],
            limit: 30,
            withPayload: { enable: true },
            withVectors: { enable: true },
          })
        ).result;
        searches++;
        const keys = hits.map((h) => idOf(h.id));
        if (new Set(keys).size !== keys.length) problems.push(`duplicate ids: ${keys.join(',')}`);
        for (let i = 1; i < hits.length; i++) {
          if (hits[i].score > hits[i - 1].score) problems.push(`not ordered at ${i}`);
        }
        for (const hit of hits) {
          const key = idOf(hit.id);
          // Deleted before the search was sent and not written since: must not appear.
          if (deletedBefore.has(key) && (deletedAt.get(key) ?? Infinity) < sent) {
            problems.push(`deleted point ${key} returned`);
          }
          const gen = fromPayload(hit.payload as Record<string, Record<string, unknown>>).gen;
          const first = (hit.vectors as { vector?: { dense?: { data?: number[] } } } | undefined)?.vector?.dense
            ?.data?.[0];
          if (first !== undefined && gen !== first)
            problems.push(`${key}: payload gen ${String(gen)}, vector ${first}`);
        }
      }
    };

    await Promise.all([writer(), reader(), reader(), reader()]);
    expect(problems.slice(0, 10)).toEqual([]);
    expect(searches).toBeGreaterThan(50);
    const info = (await unary<object, { result: { status: string } }>(collections, 'Get', { collectionName: 'busy' }))
      .result;
    expect(['Green', 'Yellow']).toContain(info.status);
  });
});
