import { FIXTURE } from '../../support/fuzz/proto-arbitrary';
import { RunningServer } from './server-harness';

async function call(server: RunningServer, method: string, route: string, body?: unknown): Promise<number> {
  const response = await fetch(`${server.httpUrl}${route}`, {
    method,
    headers: { 'api-key': server.apiKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.status;
}

const POINTS = [1, 2, 3, '6f0f5b9a-1b1e-4c2f-9a8e-6c1e1f2a3b4c'].map((id, i) => ({
  id,
  vector: [i + 1, -i, 0.5, 1 / (i + 1)],
  payload: { city: ['London', 'Paris'][i % 2], n: i, tags: ['a', 'b'].slice(i % 2), when: '2024-01-0' + (i + 1) },
}));

/**
 * The fuzz specs' collections, made again whenever a fuzzed request deleted one: `fuzz` (one unnamed 4-d vector,
 * points with payload, a keyword index) and `fuzz_named` (named dense and sparse vectors).
 */
export async function ensureFuzzFixture(server: RunningServer): Promise<void> {
  if ((await call(server, 'GET', `/collections/${FIXTURE.collection}`)) !== 200) {
    await call(server, 'DELETE', `/collections/${FIXTURE.collection}`);
    expect(
      await call(server, 'PUT', `/collections/${FIXTURE.collection}`, {
        vectors: { size: FIXTURE.dim, distance: 'Dot' },
      }),
    ).toBe(200);
    expect(await call(server, 'PUT', `/collections/${FIXTURE.collection}/points?wait=true`, { points: POINTS })).toBe(
      200,
    );
    expect(
      await call(server, 'PUT', `/collections/${FIXTURE.collection}/index?wait=true`, {
        field_name: 'city',
        field_schema: 'keyword',
      }),
    ).toBe(200);
  }
  if ((await call(server, 'GET', `/collections/${FIXTURE.named}`)) !== 200) {
    await call(server, 'DELETE', `/collections/${FIXTURE.named}`);
    const created = await call(server, 'PUT', `/collections/${FIXTURE.named}`, {
      vectors: { dense: { size: FIXTURE.dim, distance: 'Cosine' } },
      sparse_vectors: { sparse: {} },
    });
    expect(created).toBe(200);
    const points = POINTS.map(({ id, vector, payload }) => ({
      id,
      vector: { dense: vector, sparse: { indices: [1, 7], values: [0.5, 1] } },
      payload,
    }));
    expect(await call(server, 'PUT', `/collections/${FIXTURE.named}/points?wait=true`, { points })).toBe(200);
  }
}

/** The server still answers: liveness and a real search on the fixture. */
export async function expectServerAnswers(server: RunningServer): Promise<void> {
  expect(await call(server, 'GET', '/healthz')).toBe(200);
  await ensureFuzzFixture(server);
  const search = (): Promise<number> =>
    call(server, 'POST', `/collections/${FIXTURE.collection}/points/search`, { vector: [1, 0, 0, 0], limit: 2 });
  const searched = await search();
  if (searched === 200) return;
  // A fuzzed request may have changed the fixture legitimately (strict mode, a new vector size): made again, it
  // must answer.
  expect(searched).toBeLessThan(500);
  await call(server, 'DELETE', `/collections/${FIXTURE.collection}`);
  await call(server, 'DELETE', `/collections/${FIXTURE.named}`);
  await ensureFuzzFixture(server);
  expect(await search()).toBe(200);
}
