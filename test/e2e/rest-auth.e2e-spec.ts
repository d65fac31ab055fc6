import { login, runUserCli } from './support/auth-helpers';
import { RestRoute, restRoutes } from './support/rest-routes';
import { RunningServer, startServer } from './support/server-harness';

jest.setTimeout(60_000);

/** Every route, with path parameters naming things that do not exist (access is checked first). */
const ROUTES = restRoutes((param) => (param === 'peer_id' ? '7' : `missing_${param}`)).filter(
  (route) => !route.pattern.startsWith('/api/auth'),
);
const label = (route: RestRoute) => `${route.method} ${route.pattern}`;
const PROTECTED = ROUTES.filter((route) => !route.isPublic);
const WRITES = PROTECTED.filter((route) => route.access !== 'read');
const READS = PROTECTED.filter((route) => route.access === 'read');

async function call(server: RunningServer, route: RestRoute, headers: Record<string, string>) {
  const response = await fetch(`${server.httpUrl}${route.path}`, {
    method: route.method,
    headers: { 'content-type': 'application/json', ...headers },
    body: route.method === 'GET' || route.method === 'DELETE' ? undefined : '{}',
  });
  return { status: response.status, text: await response.text(), type: response.headers.get('content-type') ?? '' };
}

describe('REST access by operation (e2e)', () => {
  let server: RunningServer;
  let readerToken: string;
  let adminToken: string;

  beforeAll(async () => {
    server = await startServer();
    const added = await runUserCli(
      server.dataDir,
      ['add', 'reader@example.com', '--role', 'reader'],
      'reader-pw-1234567\n',
    );
    expect(added.code).toBe(0);
    readerToken = (await login(server.httpUrl, 'reader@example.com', 'reader-pw-1234567')).tokens.access_token;
    adminToken = (await login(server.httpUrl, server.adminEmail, server.adminPassword)).tokens.access_token;
  });

  const readAccess = (): Array<Record<string, string>> => [
    { 'api-key': server.readOnlyApiKey },
    { authorization: `Bearer ${readerToken}` },
  ];

  afterAll(async () => {
    await server?.stop();
  });

  it('should know both kinds of route from the operation table', () => {
    expect(WRITES.map(label)).toEqual(
      expect.arrayContaining(['PUT /collections/:collection_name', 'POST /collections/aliases']),
    );
    expect(READS.map(label)).toEqual(expect.arrayContaining(['GET /collections', 'GET /metrics', 'GET /telemetry']));
  });

  it.each(PROTECTED.map((route) => [label(route), route] as const))(
    '%s should answer 401 in plain text without a credential, or with an unknown one',
    async (_, route) => {
      const variants: Array<Record<string, string>> = [
        {},
        { 'api-key': 'not-a-key-at-all-000000' },
        { authorization: 'Bearer nope' },
      ];
      for (const headers of variants) {
        const answer = await call(server, route, headers);
        expect([answer.status, answer.type]).toEqual([401, expect.stringContaining('text/plain')]);
      }
    },
  );

  it('should answer an unknown URL or a wrong verb 401 without a valid credential, 404 with one', async () => {
    const unknown = [
      { method: 'GET', path: '/nope' },
      { method: 'POST', path: '/collections/exact' },
      { method: 'PATCH', path: '/aliases' },
    ] as RestRoute[];
    for (const route of unknown) {
      for (const headers of [{}, { 'api-key': 'not-a-key-at-all-000000' }] as Array<Record<string, string>>) {
        const answer = await call(server, route, headers);
        expect([route.path, answer.status, answer.text]).toEqual([
          route.path,
          401,
          expect.stringMatching(/API key|Authorization/),
        ]);
      }
      const known = await call(server, route, { 'api-key': server.readOnlyApiKey });
      expect([route.path, known.status, known.text]).toEqual([route.path, 404, '']);
    }
    // Qdrant opens /readyz* and /livez* by prefix: unknown paths there stay 404 without a key.
    const open = await call(server, { method: 'GET', path: '/readyz/extra' } as RestRoute, {});
    expect(open.status).toBe(404);
  });

  it.each(WRITES.map((route) => [label(route), route] as const))(
    '%s should refuse the read-only key and a reader token with 403 and Qdrant’s JSON error',
    async (_, route) => {
      for (const headers of readAccess()) {
        const answer = await call(server, route, headers);
        expect(answer.status).toBe(403);
        expect(JSON.parse(answer.text)).toEqual({
          status: { error: 'Forbidden: Global manage access is required' },
          time: 0,
        });
      }
    },
  );

  it.each(READS.map((route) => [label(route), route] as const))(
    '%s should let read access through (any answer below 500 but 401/403)',
    async (_, route) => {
      for (const headers of readAccess()) {
        const answer = await call(server, route, headers);
        expect([401, 403]).not.toContain(answer.status);
        expect(answer.status).toBeLessThan(500);
      }
    },
  );

  it.each(WRITES.map((route) => [label(route), route] as const))(
    '%s should let manage access through: the rw key, an admin token, either header',
    async (_, route) => {
      const manage: Array<Record<string, string>> = [
        { 'api-key': server.apiKey },
        { authorization: `Bearer ${server.apiKey}` },
        { authorization: `Bearer ${adminToken}` },
      ];
      for (const headers of manage) {
        const answer = await call(server, route, headers);
        expect([401, 403]).not.toContain(answer.status);
        expect(answer.status).toBeLessThan(500);
      }
    },
  );

  it('should read api-key before authorization, as Qdrant does', async () => {
    const route = WRITES.find((r) => label(r) === 'PUT /collections/:collection_name')!;
    const answer = await call(server, route, {
      'api-key': server.readOnlyApiKey,
      authorization: `Bearer ${server.apiKey}`,
    });
    expect(answer.status).toBe(403);
  });

  it.each(['/', '/healthz', '/livez', '/readyz'])('should keep %s open', async (path) => {
    expect((await fetch(`${server.httpUrl}${path}`)).status).toBe(200);
  });
});
