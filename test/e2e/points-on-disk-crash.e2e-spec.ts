import * as grpc from '@grpc/grpc-js';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import {
  CollectionsClient,
  createCollectionsClient,
  createPointsClient,
  credentials,
  unary,
} from './support/grpc-clients';
import {
  JsonObject,
  RetrievedPoint,
  caller,
  fetchPoints,
  fromPayload,
  pid,
  pointProblems,
  pollUntil,
  toPayload,
} from './support/points-helpers';
import { Rng } from '../support/seeded-random';
import { filesUnder } from './support/data-files';
import { RunningServer, startServer } from './support/server-harness';

jest.setTimeout(180_000);

const DIM = 16;
const NAME = 'disk-crash';

/** The vector and payload of point `id`: a pure function of the id, so the check needs no record of what was sent. */
function pointOf(id: number): { vector: number[]; payload: JsonObject } {
  const rng = new Rng(id * 104729 + 7);
  return { vector: rng.vector(DIM), payload: { i: id, big: 9007199254740993n + BigInt(id), tag: `t${id % 5}` } };
}

const struct = (id: number) => {
  const p = pointOf(id);
  return { id: pid(id), vectors: { vector: { dense: { data: p.vector } } }, payload: toPayload(p.payload) };
};

/**
 * SIGKILL while the optimizer keeps writing on-disk segments (vectors and payloads in their own
 * files): tiny indexing threshold and segment target, so builds, merges and file cleanups run all
 * the time. After each restart every acknowledged point is there, unchanged, and no segment file is
 * missing or left over.
 */
describe('On-disk segments under SIGKILL (e2e)', () => {
  let server: RunningServer;
  let points: grpc.Client;
  let collections: CollectionsClient;
  let call: ReturnType<typeof caller>;
  const acknowledged: number[] = [];
  let nextId = 1;
  let sideFilesSeen = 0;

  const connect = () => {
    points?.close();
    collections?.close();
    points = createPointsClient(server.grpcAddress, credentials(server.apiKey));
    collections = createCollectionsClient(server.grpcAddress, credentials(server.apiKey));
    call = caller(points);
  };

  const fetchAll = (ids: number[]) => fetchPoints(points, NAME, ids);

  const problems = (found: Map<string, RetrievedPoint>, ids: number[]) => pointProblems(found, ids, pointOf);

  /** Segment ids each shard's manifest lists, and the .vec/.pay files on disk. */
  async function segmentFiles(): Promise<{ listed: Set<string>; side: string[] }> {
    const files = await filesUnder(path.join(server.dataDir, 'collections'));
    const listed = new Set<string>();
    for (const file of files.filter((f) => path.basename(f) === 'manifest.json')) {
      const manifest = JSON.parse(await fs.readFile(file, 'utf8')) as { segments: Array<{ id: string }> };
      for (const segment of manifest.segments) listed.add(segment.id);
    }
    return { listed, side: files.map((f) => path.basename(f)).filter((name) => /\.(vec|pay)$/.test(name)) };
  }

  /** Streams acknowledged upserts from 4 clients until the server is killed after `ms`. */
  async function streamThenKill(ms: number): Promise<void> {
    let stop = false;
    const worker = async () => {
      while (!stop) {
        const batch = Array.from({ length: 40 }, () => nextId++);
        try {
          const response = await call('Upsert', { collectionName: NAME, wait: false, points: batch.map(struct) });
          if (response.result.status !== 'Acknowledged' && response.result.status !== 'Completed') return;
          acknowledged.push(...batch);
        } catch {
          return; // the server is gone
        }
      }
    };
    const workers = Array.from({ length: 4 }, worker);
    await new Promise((resolve) => setTimeout(resolve, ms));
    await server.kill();
    stop = true;
    await Promise.all(workers);
  }

  beforeAll(async () => {
    server = await startServer();
    connect();
    await unary(collections, 'Create', {
      collectionName: NAME,
      vectorsConfig: { params: { size: DIM, distance: 'Dot', onDisk: true } },
      onDiskPayload: true,
      // 3 KB = 48 vectors of 16 dims: the optimizer indexes and merges continuously
      optimizersConfig: { indexingThreshold: 3, defaultSegmentNumber: 2, flushIntervalSec: 1 },
    });
  });

  afterAll(async () => {
    if (process.env.E2E_SERVER_LOG) process.stdout.write(server?.output() ?? '');
    points?.close();
    collections?.close();
    await server?.stop();
  });

  it.each([1200, 2100, 3300])('should find every acknowledged point after a SIGKILL at %i ms', async (ms) => {
    await streamThenKill(ms);
    server = await server.restart();
    connect();
    expect(problems(await fetchAll(acknowledged), acknowledged).slice(0, 20)).toEqual([]);
    const { listed, side } = await segmentFiles();
    sideFilesSeen += side.length;
    for (const file of side) expect(listed).toContain(file.slice(0, file.indexOf('.')));
  });

  it('should settle Green with every point intact and no stray segment files', async () => {
    // at least one kill landed while on-disk segments existed (a slow machine may build none by the first)
    expect(sideFilesSeen).toBeGreaterThan(0);
    await call('Upsert', { collectionName: NAME, wait: true, points: [struct(nextId)] });
    acknowledged.push(nextId++);
    const settled = await pollUntil(async () => {
      const info = (await unary<object, { result: { status: string } }>(collections, 'Get', { collectionName: NAME }))
        .result;
      return info.status === 'Green';
    }, 60_000);
    expect(settled).toBe(true);
    expect(problems(await fetchAll(acknowledged), acknowledged).slice(0, 20)).toEqual([]);
    const { listed, side } = await segmentFiles();
    for (const file of side) expect(listed).toContain(file.slice(0, file.indexOf('.')));
    const count = await call<{ result: { count: string } }>('Count', {
      collectionName: NAME,
      exact: true,
      filter: { must: [{ field: { key: 'tag', match: { keyword: 't2' } } }] },
    });
    const present = await fetchAll(Array.from({ length: nextId }, (_, i) => i + 1));
    expect(Number(count.result.count)).toBe(
      [...present.values()].filter((p) => fromPayload(p.payload).tag === 't2').length,
    );
  });
});
