import { readdirSync } from 'node:fs';
import { request } from 'node:http';
import * as path from 'node:path';
import { DASHBOARD_CSP } from '../../apps/server/src/dashboard/dashboard-headers';
import { REPO_ROOT, RunningServer, startServer } from './support/server-harness';

jest.setTimeout(60_000);

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request with the path exactly as written (no URL normalisation by a client library). */
function raw(server: RunningServer, method: string, target: string, headers: Record<string, string> = {}) {
  return new Promise<Answer>((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port: server.httpPort, method, path: target, headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

/** The dashboard's security headers, as every one of its answers carries them. */
function expectDashboardHeaders(answer: Answer): void {
  expect(answer.headers['content-security-policy']).toBe(DASHBOARD_CSP);
  expect(answer.headers['x-frame-options']).toBe('DENY');
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
}

// Issue 28 item 9: a path under /dashboard/ that the dashboard does not serve is a 404 with its headers, whatever the
// verb or credential, and the page and its assets are served as before.
describe('dashboard paths over raw HTTP (e2e)', () => {
  let server: RunningServer;
  const bundle = readdirSync(path.join(REPO_ROOT, 'dist', 'dashboard'));
  const script = bundle.find((name) => name === 'app.js');

  beforeAll(async () => {
    server = await startServer();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('should serve the page at /dashboard and /dashboard/ and an asset at /dashboard/<name>, HEAD without a body', async () => {
    expect(script).toBeDefined();
    for (const target of ['/dashboard', '/dashboard/', '/DASHBOARD']) {
      const page = await raw(server, 'GET', target);
      expect([target, page.status]).toEqual([target, 200]);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.body).toContain(script);
      expectDashboardHeaders(page);
    }
    const asset = await raw(server, 'GET', `/dashboard/${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.body.length).toBeGreaterThan(1000);
    expectDashboardHeaders(asset);
    const head = await raw(server, 'HEAD', `/dashboard/${script}`);
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(Number(head.headers['content-length'])).toBe(Buffer.byteLength(asset.body));
    expectDashboardHeaders(head);
  });

  it("should serve the map's UMAP worker without a credential, as JavaScript with the dashboard headers", async () => {
    expect(bundle).toContain('map-worker.js');
    const worker = await raw(server, 'GET', '/dashboard/map-worker.js');
    expect(worker.status).toBe(200);
    expect(worker.headers['content-type']).toMatch(/^(application|text)\/javascript/);
    expect(worker.body).toContain('Not enough data points'); // umap-js is in the worker
    expectDashboardHeaders(worker);
    // The page's only Trusted Types policy makes the worker's URL; workers come from this origin only.
    expect(DASHBOARD_CSP).toContain("worker-src 'self'");
    expect(DASHBOARD_CSP).toContain('trusted-types vectorstore-worker');
    expect(DASHBOARD_CSP).not.toContain("trusted-types 'none'");
    expect(DASHBOARD_CSP).not.toMatch(/allow-duplicates|unsafe/);
  });

  it.each([
    ['GET', '/dashboard/collections/x'],
    ['GET', '/dashboard/collections/x/points'],
    ['HEAD', '/dashboard/collections/x'],
    ['GET', '/dashboard/missing.js'],
    ['GET', '/dashboard/index.html'],
    ['GET', '/dashboard/.env'],
    ['GET', '/dashboard/..%2f..%2fpackage.json'],
    ['GET', '/dashboard/%2e%2e/%2e%2e/package.json'],
    ['GET', '/dashboard/x/..'],
    ['POST', '/dashboard/collections/x'],
    ['PUT', '/dashboard/anything'],
    ['DELETE', '/dashboard/collections/x'],
    ['PATCH', '/dashboard/x'],
    ['OPTIONS', '/dashboard/x'],
    ['POST', '/dashboard'],
    ['DELETE', '/dashboard/'],
  ])(
    'should answer %s %s with a 404 and the dashboard headers, with or without a credential',
    async (method, target) => {
      for (const headers of [{}, { 'api-key': server.apiKey }, { 'api-key': 'wrong' }] as Array<
        Record<string, string>
      >) {
        const answer = await raw(server, method, target, headers);
        expect([method, target, answer.status]).toEqual([method, target, 404]);
        expectDashboardHeaders(answer);
        expect(answer.body).toBe(method === 'HEAD' ? '' : 'Not found');
      }
    },
  );

  it('should still answer an unknown path outside /dashboard like the API does (401 without a credential)', async () => {
    const answer = await raw(server, 'GET', '/dashboardx/collections');
    expect(answer.status).toBe(401);
    expect(answer.headers['content-security-policy']).toBeUndefined();
    expect((await raw(server, 'GET', '/healthz')).status).toBe(200);
  });
});
