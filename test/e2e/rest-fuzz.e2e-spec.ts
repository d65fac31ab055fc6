import { RestRoute, restRoutes } from './support/rest-routes';
import { RunningServer, startServer } from './support/server-harness';

jest.setTimeout(120_000);

/** Bodies a client can send: malformed, mistyped, deeply nested, with numbers no field can hold. */
const BODIES: Array<[string, string]> = [
  ['malformed JSON', '{"vectors": {"size": 4,'],
  ['not JSON at all', '\u0000\u0001garbage'],
  ['a JSON array', '[1, 2, 3]'],
  ['a JSON string', '"collections"'],
  ['null', 'null'],
  [
    'wrong types',
    '{"vectors": "x", "shard_number": "2", "actions": {}, "field_name": 7, "field_schema": [], "shard_key": {}}',
  ],
  ['nested types', '{"vectors": {"size": -1, "distance": 3}, "hnsw_config": {"m": 1.5}, "metadata": [1]}'],
  ['deep arrays', '['.repeat(200_000) + ']'.repeat(200_000)],
  ['deep objects', '{"metadata": ' + '{"a": '.repeat(50_000) + '1' + '}'.repeat(50_000) + '}'],
  ['huge numbers', '{"vectors": {"size": 1e400, "distance": "Dot"}, "shard_number": 184467440737095516150000}'],
  ['huge u64', '{"shard_key": 18446744073709551616, "timeout": 99999999999999999999}'],
  ['unicode keys', '{"__proto__": {"polluted": true}, "constructor": {"prototype": {}}, "\ud800": 1}'],
];

const ROUTES = restRoutes((param) => (param === 'peer_id' ? '1' : 'fuzz')).filter(
  (route) => !route.pattern.startsWith('/api/auth'),
);

describe('REST fuzz: every route, hostile bodies (e2e)', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer();
    // A real collection named like the path parameters, so handlers get past "not found".
    const created = await fetch(`${server.httpUrl}/collections/fuzz`, {
      method: 'PUT',
      headers: { 'api-key': server.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ vectors: { size: 4, distance: 'Dot' } }),
    });
    expect(created.status).toBe(200);
  });

  afterAll(async () => {
    await server?.stop();
  });

  async function send(route: RestRoute, body: string, query = ''): Promise<{ status: number; text: string }> {
    const response = await fetch(`${server.httpUrl}${route.path}${query}`, {
      method: route.method,
      headers: { 'api-key': server.apiKey, 'content-type': 'application/json' },
      body: route.method === 'GET' ? undefined : body,
    });
    return { status: response.status, text: await response.text() };
  }

  it.each(ROUTES.map((route) => [`${route.method} ${route.pattern}`, route] as const))(
    '%s should answer every hostile body with a 4xx (or a success), never a 500 or a stack trace',
    async (_, route) => {
      for (const [name, body] of BODIES) {
        const answer = await send(route, body);
        expect([name, answer.status < 500]).toEqual([name, true]);
        expect(answer.text).not.toMatch(/\bat \S+ \(|node_modules|TypeError|RangeError/);
      }
      for (const query of [
        '?wait=1',
        '?timeout=-1',
        '?timeout=abc',
        '?timeout=99999999999999999999',
        '?wait=true&wait=false',
      ]) {
        const answer = await send(route, '{}', query);
        expect([query, answer.status < 500]).toEqual([query, true]);
      }
      const health = await fetch(`${server.httpUrl}/healthz`);
      expect(health.status).toBe(200);
    },
  );
});
