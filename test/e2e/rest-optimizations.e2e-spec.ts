import { Rng } from '../support/seeded-random';
import { RunningServer, startServer } from './support/server-harness';

interface Segment {
  uuid: string;
  points_count: number;
}
interface Report {
  summary: Record<string, number>;
  running: unknown[];
  queued: unknown[];
  completed: Array<{ uuid: string }>;
  idle_segments: Segment[];
}

jest.setTimeout(120_000);

async function call(server: RunningServer, method: string, route: string, body?: unknown, apiKey = server.apiKey) {
  const response = await fetch(`${server.httpUrl}${route}`, {
    method,
    headers: { 'api-key': apiKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: (text ? JSON.parse(text) : {}) as { result?: Report; status?: unknown } };
}

describe('GET /collections/{c}/optimizations (e2e)', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('should report an indexing job while it runs or once it ended, and the segment it built as idle', async () => {
    // 10 KB of 64-d vectors is 40 points: 300 points make the optimizer index the segment.
    const created = await call(server, 'PUT', '/collections/opt', {
      vectors: { size: 64, distance: 'Dot' },
      optimizers_config: { indexing_threshold: 10, default_segment_number: 1 },
    });
    expect(created.status).toBe(200);
    const rng = new Rng(3);
    const points = Array.from({ length: 300 }, (_, i) => ({ id: i + 1, vector: rng.vector(64) }));
    expect((await call(server, 'PUT', '/collections/opt/points?wait=true', { points })).status).toBe(200);

    let report!: Report;
    for (let waited = 0; ; waited += 100) {
      report = (await call(server, 'GET', '/collections/opt/optimizations?with=queued,completed,idle_segments')).json
        .result!;
      if (report.running.length === 0 && report.completed.length > 0 && report.queued.length === 0) break;
      if (waited > 60_000) throw new Error(`the optimizer did not finish: ${JSON.stringify(report)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const [job] = report.completed;
    expect(job).toMatchObject({
      optimizer: 'indexing',
      status: 'done',
      segments: [expect.objectContaining({ points_count: 300 })],
      progress: { name: 'indexing', started_at: expect.any(String), finished_at: expect.any(String) },
    });
    // The new segment takes the job's id, as Qdrant says.
    expect(report.idle_segments).toContainEqual({ uuid: job.uuid, points_count: 300 });
    expect(report.summary).toEqual({
      queued_optimizations: 0,
      queued_segments: 0,
      queued_points: 0,
      idle_segments: report.idle_segments.length,
    });

    const plain = (await call(server, 'GET', '/collections/opt/optimizations', undefined, server.readOnlyApiKey)).json;
    expect(Object.keys(plain.result!).sort()).toEqual(['running', 'summary']);
    const limited = await call(server, 'GET', '/collections/opt/optimizations?with=completed&completed_limit=0');
    expect(limited.json.result!.completed).toEqual([]);
  });

  it('should refuse an unknown `with` field with 400 and a missing collection with 404', async () => {
    const unknown = await call(server, 'GET', '/collections/opt/optimizations?with=queued,everything');
    expect(unknown).toEqual({
      status: 400,
      json: expect.objectContaining({
        status: { error: "Bad request: Unknown field in 'with' parameter: everything" },
      }),
    });
    expect((await call(server, 'GET', '/collections/none/optimizations')).status).toBe(404);
    expect((await call(server, 'GET', '/collections/opt/optimizations?completed_limit=-1')).status).toBe(400);
  });
});
