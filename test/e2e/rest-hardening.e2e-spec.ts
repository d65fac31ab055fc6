// What an anonymous or careless client can make the REST server do: nothing expensive before its
// credential is checked, no unbounded metric labels, no payload the storage cannot walk later.
import { RunningServer, startServer } from './support/server-harness';

describe('REST hardening (e2e)', () => {
  let server: RunningServer;
  const call = (path: string, init: RequestInit & { key?: string | null } = {}) =>
    fetch(`${server.httpUrl}${path}`, {
      ...init,
      headers: {
        'content-type': 'application/json',
        ...(init.key === null ? {} : { 'api-key': init.key ?? server.apiKey }),
        ...(init.headers as Record<string, string> | undefined),
      },
    });

  beforeAll(async () => {
    server = await startServer();
    const created = await call('/collections/c', {
      method: 'PUT',
      body: JSON.stringify({ vectors: { size: 2, distance: 'Dot' } }),
    });
    expect(created.status).toBe(200);
  });
  afterAll(async () => server?.stop());

  it('answers 401 to an anonymous 30 MB body without parsing it, and to a wrong key', async () => {
    const big = JSON.stringify({ points: [{ id: 1, vector: [1, 2], payload: { s: 'x'.repeat(30 * 1024 * 1024) } }] });
    const anonymous = await call('/collections/c/points', { method: 'PUT', body: big, key: null });
    expect(anonymous.status).toBe(401);
    const wrong = await call('/collections/c/points', { method: 'PUT', body: '{not json', key: 'wrong-key' });
    expect(wrong.status).toBe(401);
  });

  it('labels request metrics with a collection only for answers that succeeded', async () => {
    for (let i = 0; i < 5; i++) {
      const refused = await call(`/collections/evil${i}/points/scroll`, { method: 'POST', body: '{}', key: null });
      expect(refused.status).toBe(401);
    }
    const missing = await call('/collections/nosuch/points/scroll', { method: 'POST', body: '{}' });
    expect(missing.status).toBe(404);
    const metrics = await (await call('/metrics?per_collection=true')).text();
    expect(metrics).not.toMatch(/evil\d/);
    expect(metrics).not.toMatch(/collection="nosuch"/);
  });

  it('refuses nesting deeper than 128 and numbers beyond the double range with 400, and stays healthy', async () => {
    const deep = '['.repeat(2500) + ']'.repeat(2500);
    const nested = await call('/collections/c/points?wait=true', {
      method: 'PUT',
      body: `{"points":[{"id":1,"vector":[1,2],"payload":{"a":${deep}}}]}`,
    });
    expect(nested.status).toBe(400);
    expect(await nested.text()).toContain('recursion limit exceeded');

    const infinite = await call('/collections/c/points?wait=true', {
      method: 'PUT',
      body: '{"points":[{"id":7,"vector":[1,2],"payload":{"e":1e400}}]}',
    });
    expect(infinite.status).toBe(400);
    expect(await infinite.text()).toContain('number out of range');

    const notUtf8 = await call('/collections/c/points?wait=true', {
      method: 'PUT',
      body: Buffer.concat([
        Buffer.from('{"points":[{"id":2,"vector":[1,2],"payload":{"s":"'),
        Buffer.from([0xff, 0xfe]),
        Buffer.from('"}}]}'),
      ]),
    });
    expect(notUtf8.status).toBe(400);

    const count = await call('/collections/c/points/count', { method: 'POST', body: '{"exact":true}' });
    expect(count.status).toBe(200);
    expect(((await count.json()) as { result: { count: number } }).result.count).toBe(0);
  });
});
