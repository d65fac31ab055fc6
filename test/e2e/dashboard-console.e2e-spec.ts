// The dashboard's API console (issue 30) in headless Chromium against the real server: the server's /openapi.json
// (generated from its routes and decoders) completes the path and the body fields, a query's answer shows as JSON
// and as a table of points equal to the API's, history survives a reload, and a reader's write is refused by the
// server, its 403 shown.
import type { Page } from 'playwright-core';
import { describeInBrowser } from './support/chromium';
import { type DashboardRig, startDashboardRig, until } from './support/dashboard-browser';

jest.setTimeout(120_000);

const READER = { email: 'reader@example.com', password: 'reader-password-1' };

describeInBrowser('dashboard: API console (e2e)', (executablePath) => {
  let rig: DashboardRig;
  let page: Page;
  let description: { paths: Record<string, Record<string, unknown>> };

  const suggestions = (p: Page = page): Promise<string[]> =>
    p.locator('[data-testid=path-suggestions] li').allTextContents();

  beforeAll(async () => {
    rig = await startDashboardRig(executablePath);
    expect((await rig.api('PUT', '/collections/docs', { vectors: { size: 3, distance: 'Dot' } })).status).toBe(200);
    const points = Array.from({ length: 12 }, (_, i) => ({ id: i + 1, vector: [i, 1, -i], payload: { n: i } }));
    expect((await rig.api('PUT', '/collections/docs/points?wait=true', { points })).status).toBe(200);
    expect((await rig.api('POST', '/api/auth/users', { ...READER, role: 'reader' })).status).toBe(201);
    // Served without a credential, as JSON.
    const served = await fetch(`${rig.server.httpUrl}/openapi.json`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/^application\/json/);
    description = (await served.json()) as typeof description;
    page = await rig.signedIn(rig.server.adminEmail, rig.server.adminPassword, '#/console');
  });

  afterAll(() => rig?.stop());
  afterEach(() => expect(rig.pageErrors.splice(0)).toEqual([]));

  it('should complete the path from the served description, by keyboard', async () => {
    await page.getByTestId('nav-console').waitFor();
    await page.selectOption('select[name=method]', 'POST');
    await page.fill('input[name=path]', '/collections/docs/points/q');
    const expected = Object.entries(description.paths)
      .filter(([path, methods]) => 'post' in methods && path.startsWith('/collections/{collection_name}/points/q'))
      .map(([path]) => path.replace('{collection_name}', 'docs'))
      .sort();
    expect(expected).toEqual([
      '/collections/docs/points/query',
      '/collections/docs/points/query/batch',
      '/collections/docs/points/query/groups',
    ]);
    await until(suggestions, expected);
    await page.press('input[name=path]', 'ArrowDown');
    await page.press('input[name=path]', 'Enter');
    await expect(page.locator('input[name=path]').inputValue()).resolves.toBe('/collections/docs/points/query');
    await expect(page.getByTestId('route-info').textContent()).resolves.toBe(
      'POST /collections/{collection_name}/points/query · needs read access',
    );
  });

  it("should offer the body fields of the route's decoder, and add one", async () => {
    const schema = (
      description.paths['/collections/{collection_name}/points/query'].post as {
        requestBody: { content: { 'application/json': { schema: { properties: Record<string, unknown> } } } };
      }
    ).requestBody.content['application/json'].schema;
    const offered = await page.locator('[data-testid=body-fields] button').allTextContents();
    expect(offered).toEqual(Object.keys(schema.properties));
    expect(offered).toEqual(expect.arrayContaining(['query', 'filter', 'limit', 'params', 'with_payload']));
    await page.fill('textarea[name=body]', '{"query": [1, 1, 1]}');
    await until(
      async () => (await page.locator('[data-testid=body-fields] button').allTextContents()).includes('query'),
      false,
    );
    await page.getByTestId('field-limit').click();
    expect(JSON.parse(await page.locator('textarea[name=body]').inputValue())).toEqual({ query: [1, 1, 1], limit: 10 });
    // One level down: once there is a "params" object, its fields as the description gives them.
    const params = schema.properties.params as { properties: Record<string, unknown> };
    await page.getByTestId('field-params').click();
    await until(
      () => page.locator('[data-testid=body-fields] button[data-testid^="field-params."]').allTextContents(),
      Object.keys(params.properties).map((sub) => `params.${sub}`),
    );
    await page.getByTestId('field-params.hnsw_ef').click();
    expect(JSON.parse(await page.locator('textarea[name=body]').inputValue())).toEqual({
      query: [1, 1, 1],
      limit: 10,
      params: { hnsw_ef: 10 },
    });
  });

  it('should send the request and show the answer as JSON and as a table of points equal to the API', async () => {
    await page.fill('textarea[name=body]', '{"query": [1, 1, 1], "limit": 4, "with_payload": true}');
    await page.click('[data-testid=console-form] button[type=submit]');
    await page.getByTestId('console-points').waitFor();
    const api = (
      await rig.api('POST', '/collections/docs/points/query', { query: [1, 1, 1], limit: 4, with_payload: true })
    ).body as { result: { points: { id: number }[] } };
    const expectedIds = api.result.points.map((p) => String(p.id));
    await expect(
      page.locator('[data-testid=console-points] tbody tr td:first-child code').allTextContents(),
    ).resolves.toEqual(expectedIds);
    const shown = JSON.parse((await page.getByTestId('console-json').textContent()) ?? 'null') as {
      points: { id: number }[];
    };
    expect(shown.points.map((p) => String(p.id))).toEqual(expectedIds);
  });

  it('should send a GET without a body, and refuse invalid JSON before sending', async () => {
    await page.selectOption('select[name=method]', 'GET');
    await page.fill('input[name=path]', '/collections/docs');
    await expect(page.locator('textarea[name=body]').count()).resolves.toBe(0);
    await page.click('[data-testid=console-form] button[type=submit]');
    await until(
      async () => (await page.getByTestId('console-json').textContent())?.includes('"points_count": 12') ?? false,
      true,
    );
    await page.selectOption('select[name=method]', 'POST');
    await page.fill('input[name=path]', '/collections/docs/points/count');
    await page.fill('textarea[name=body]', '{"exact": ');
    await page.click('[data-testid=console-form] button[type=submit]');
    await expect(page.getByTestId('error-body').textContent()).resolves.toMatch(/^Invalid JSON/);
  });

  it('should keep the history in the browser across a reload, and restore an entry', async () => {
    await page.reload();
    const history = page.locator('[data-testid=console-history] li');
    await history.first().waitFor();
    await expect(history.allTextContents()).resolves.toEqual([
      'GET /collections/docs',
      'POST /collections/docs/points/query',
    ]);
    await history.nth(1).locator('button').click();
    await expect(page.locator('input[name=path]').inputValue()).resolves.toBe('/collections/docs/points/query');
    expect(JSON.parse(await page.locator('textarea[name=body]').inputValue())).toEqual({
      query: [1, 1, 1],
      limit: 4,
      with_payload: true,
    });
  });

  it("should show a reader the server's refusal of a write, and answer its reads", async () => {
    const reader = await rig.signedIn(READER.email, READER.password, '#/console');
    try {
      await reader.selectOption('select[name=method]', 'PUT');
      await reader.fill('input[name=path]', '/collections/docs/points');
      await reader.fill('textarea[name=body]', '{"points": [{"id": 99, "vector": [1, 2, 3]}]}');
      await expect(reader.getByTestId('route-info').textContent()).resolves.toContain('needs manage access');
      await reader.click('[data-testid=console-form] button[type=submit]');
      await expect(reader.getByTestId('console-error').textContent()).resolves.toMatch(/^Permission missing/);
      expect((await rig.api('GET', '/collections/docs/points/99')).status).toBe(404);
      await reader.selectOption('select[name=method]', 'POST');
      await reader.fill('input[name=path]', '/collections/docs/points/count');
      await reader.fill('textarea[name=body]', '{}');
      await reader.click('[data-testid=console-form] button[type=submit]');
      await until(async () => JSON.parse((await reader.getByTestId('console-json').textContent()) ?? 'null'), {
        count: 12,
      });
    } finally {
      await reader.context().close();
    }
  });
});
