// The dashboard's points browser and query console (issue 30) in headless Chromium against the real server: the
// total and page position, a refused filter shown as its error (not "No points."), find similar from a row, a payload
// edited as JSON, a point deleted, the point page with dense, sparse and multi vectors in full, and every Query API
// form the console offers (nearest, recommend, discover, context, prefetch + fusion, groups) with exact, hnsw_ef,
// score_threshold and with_vectors, each answer equal to the API's for the same request.
import type { Page } from 'playwright-core';
import { describeInBrowser } from './support/chromium';
import { type DashboardRig, startDashboardRig, until } from './support/dashboard-browser';

jest.setTimeout(120_000);

const WRITER = { email: 'writer@example.com', password: 'writer-password-1' };
const CITIES = ['Berlin', 'Paris', 'Rome'];

describeInBrowser('dashboard: points and query console (e2e)', (executablePath) => {
  let rig: DashboardRig;
  let page: Page;

  const ids = (table: string): Promise<string[]> =>
    page.locator(`[data-testid=${table}] tbody tr td:first-child code`).allTextContents();
  /** The ids the API answers for a query body, in order. */
  const apiIds = async (collection: string, body: unknown, route = 'query'): Promise<string[]> => {
    const answer = await rig.api('POST', `/collections/${collection}/points/${route}`, body);
    expect(answer.status).toBe(200);
    return (answer.body as { result: { points: { id: number }[] } }).result.points.map((p) => String(p.id));
  };
  const submit = (): Promise<void> => page.click('[data-testid=query-form] button[type=submit]');
  const requestSent = async (): Promise<unknown> =>
    JSON.parse((await page.getByTestId('query-request').textContent()) ?? 'null');

  beforeAll(async () => {
    rig = await startDashboardRig(executablePath);
    expect((await rig.api('PUT', '/collections/plain', { vectors: { size: 4, distance: 'Dot' } })).status).toBe(200);
    const points = Array.from({ length: 25 }, (_, i) => ({
      id: i + 1,
      vector: [Math.cos(i), Math.sin(i), (i % 5) / 5, 1],
      payload: { city: CITIES[i % 3], n: i + 1 },
    }));
    expect((await rig.api('PUT', '/collections/plain/points?wait=true', { points })).status).toBe(200);
    const multi = await rig.api('PUT', '/collections/multi', {
      vectors: {
        text: { size: 3, distance: 'Cosine' },
        colbert: { size: 2, distance: 'Dot', multivector_config: { comparator: 'max_sim' } },
      },
      sparse_vectors: { keywords: {} },
    });
    expect(multi.status).toBe(200);
    const upsert = await rig.api('PUT', '/collections/multi/points?wait=true', {
      points: [1, 2, 3].map((id) => ({
        id,
        vector: {
          text: [id, 0.5, -0.25],
          colbert: [
            [id, 1],
            [0.5, id],
          ],
          keywords: { indices: [id, 10 + id], values: [0.5, 0.25 * id] },
        },
        payload: { id },
      })),
    });
    expect(upsert.status).toBe(200);
    const writer = await rig.api('POST', '/api/auth/users', {
      ...WRITER,
      role: 'reader',
      collections: [
        { collection: 'plain', access: 'rw' },
        { collection: 'multi', access: 'r' },
      ],
    });
    expect(writer.status).toBe(201);
    page = await rig.signedIn(rig.server.adminEmail, rig.server.adminPassword, '#/collections/plain/points');
  });

  afterAll(() => rig?.stop());
  afterEach(() => expect(rig.pageErrors.splice(0)).toEqual([]));

  it('should show the total and the page position', async () => {
    await until(() => page.getByTestId('points-position').textContent(), 'Points 1–10 of 25 · page 1 of 3');
    await page.getByTestId('next-page').click();
    await until(() => page.getByTestId('points-position').textContent(), 'Points 11–20 of 25 · page 2 of 3');
    await page.fill('textarea[name=filter]', '{"must": [{"key": "city", "match": {"value": "Rome"}}]}');
    await page.click('[data-testid=filter-form] button[type=submit]');
    await until(() => page.getByTestId('points-position').textContent(), 'Points 1–8 of 8 · page 1 of 1');
  });

  it('should show a refused filter as its error, not as "No points."', async () => {
    await page.fill('textarea[name=filter]', '{"must": [{"key": "city", "match": {"valu": "Rome"}}]}');
    await page.click('[data-testid=filter-form] button[type=submit]');
    await expect(page.getByTestId('error-filter').textContent()).resolves.toContain('filter.must[0].match');
    await expect(page.getByTestId('points-table').count()).resolves.toBe(0);
    await expect(page.getByText('No points.').count()).resolves.toBe(0);
    await page.fill('textarea[name=filter]', '');
    await page.click('[data-testid=filter-form] button[type=submit]');
    await until(() => page.getByTestId('points-position').textContent(), 'Points 1–10 of 25 · page 1 of 3');
  });

  it('should find points similar to a row, as the API does', async () => {
    await page.getByTestId('point-4').getByTestId('find-similar').click();
    await page.getByTestId('query-results').waitFor();
    expect(page.url()).toMatch(/#\/collections\/plain\/query\?similar=4$/);
    await expect(page.locator('[data-testid=query-form] input[name=query]').inputValue()).resolves.toBe('4');
    const expected = await apiIds('plain', { query: 4, limit: 10 });
    await until(() => ids('query-results'), expected);
    expect(expected).not.toContain('4');
  });

  it('should edit a payload as JSON, refusing invalid JSON first', async () => {
    await page.goto(`${rig.server.httpUrl}/dashboard#/collections/plain/points`);
    const row = page.getByTestId('point-2');
    await row.getByTestId('edit-payload').click();
    const editor = row.locator('textarea[name=payload]');
    expect(JSON.parse(await editor.inputValue())).toEqual({ city: 'Paris', n: 2 });
    await editor.fill('{"city": "Rome",');
    await row.getByTestId('save-payload').click();
    await expect(row.getByTestId('point-error').textContent()).resolves.toMatch(/^Invalid JSON/);
    await editor.fill('{"city": "Lisbon", "tags": ["a", "b"], "big": 18446744073709551615}');
    await row.getByTestId('save-payload').click();
    await until(async () => (await row.locator('textarea[name=payload]').count()) === 0, true);
    const stored = await fetch(`${rig.server.httpUrl}/collections/plain/points/2`, {
      headers: { 'api-key': rig.server.apiKey },
    }).then((r) => r.text());
    // The u64 went out as its digits, not rounded.
    expect(stored).toContain('"big":18446744073709551615');
    expect(stored).toContain('"city":"Lisbon"');
    await expect(row.locator('pre.json').textContent()).resolves.toContain('"Lisbon"');
  });

  it('should delete a point, and the total follows', async () => {
    const row = page.getByTestId('point-3');
    await row.getByTestId('delete-point').click();
    await row.getByTestId('delete-point-confirm').click();
    await until(() => page.getByTestId('points-position').textContent(), 'Points 1–10 of 24 · page 1 of 3');
    expect((await rig.api('GET', '/collections/plain/points/3')).status).toBe(404);
  });

  it('should show a point page with dense, sparse and multi vectors in full', async () => {
    await page.goto(`${rig.server.httpUrl}/dashboard#/collections/multi/points/2`);
    await page.getByTestId('vector-text').waitFor();
    await expect(page.getByTestId('point-id').textContent()).resolves.toBe('2');
    await expect(page.getByTestId('vector-text').getByTestId('vector-kind').textContent()).resolves.toBe(
      'dense, 3 dimensions',
    );
    const stored = (await rig.api('GET', '/collections/multi/points/2')).body as {
      result: { vector: { text: number[] } };
    };
    await expect(page.getByTestId('vector-text').getByTestId('vector-values').textContent()).resolves.toBe(
      stored.result.vector.text.join(', '),
    );
    await expect(page.getByTestId('vector-keywords').getByTestId('vector-kind').textContent()).resolves.toBe(
      'sparse, 2 non-zero values',
    );
    await expect(page.locator('[data-testid=vector-keywords] tbody td').allTextContents()).resolves.toEqual([
      '2',
      '0.5',
      '12',
      '0.5',
    ]);
    await expect(page.getByTestId('vector-colbert').getByTestId('vector-kind').textContent()).resolves.toBe(
      'multivector, 2 vectors of 2 dimensions',
    );
    await expect(page.locator('[data-testid=vector-colbert] li').allTextContents()).resolves.toEqual([
      '2, 1',
      '0.5, 2',
    ]);
    await expect(page.getByTestId('point-summary').textContent()).resolves.toContain('"id": 2');
  });

  it('should run a sparse nearest query with search params, sending them as asked', async () => {
    await page.goto(`${rig.server.httpUrl}/dashboard#/collections/multi/query`);
    await page.fill('[data-testid=query-form] input[name=query]', '{"indices": [3, 13], "values": [1, 1]}');
    await page.fill('[data-testid=query-form] input[name=using]', 'keywords');
    await page.fill('[data-testid=query-form] input[name=limit]', '2');
    await page.check('[data-testid=query-form] input[name=exact]');
    await page.uncheck('[data-testid=query-form] input[name=with_vectors]');
    await page.fill('[data-testid=query-form] input[name=score_threshold]', '0.1');
    await submit();
    await page.getByTestId('query-results').waitFor();
    const body = {
      query: { indices: [3, 13], values: [1, 1] },
      using: 'keywords',
      limit: 2,
      params: { exact: true },
      score_threshold: 0.1,
      with_payload: true,
      with_vector: false,
    };
    expect(await requestSent()).toEqual(body);
    await until(() => ids('query-results'), await apiIds('multi', body));
    await expect(page.locator('[data-testid=query-results] pre.vector').first().textContent()).resolves.toBe('—');
  });

  it.each([
    [
      'recommend',
      async () => {
        await page.fill('input[name=positive]', '1, 5');
        await page.fill('input[name=negative]', '9');
        await page.selectOption('select[name=strategy]', 'best_score');
      },
      { query: { recommend: { positive: [1, 5], negative: [9], strategy: 'best_score' } } },
    ],
    [
      'discover',
      async () => {
        await page.fill('input[name=target]', '[1, 0, 0, 1]');
        await page.fill('textarea[name=context]', '[{"positive": 6, "negative": 7}]');
      },
      { query: { discover: { target: [1, 0, 0, 1], context: [{ positive: 6, negative: 7 }] } } },
    ],
    [
      'context',
      async () => {
        await page.fill(
          'textarea[name=context]',
          '[{"positive": 10, "negative": 11}, {"positive": 12, "negative": 4}]',
        );
      },
      {
        query: {
          context: [
            { positive: 10, negative: 11 },
            { positive: 12, negative: 4 },
          ],
        },
      },
    ],
    [
      'fusion',
      async () => {
        await page.fill('textarea[name=prefetch]', '[{"query": [1, 0, 0, 0], "limit": 8}, {"query": 5, "limit": 8}]');
        await page.selectOption('select[name=fusion]', 'dbsf');
      },
      {
        prefetch: [
          { query: [1, 0, 0, 0], limit: 8 },
          { query: 5, limit: 8 },
        ],
        query: { fusion: 'dbsf' },
      },
    ],
  ])('should run a %s query as the API answers it', async (mode, fill, expected) => {
    await page.goto(`${rig.server.httpUrl}/dashboard#/collections/plain/query`);
    await page.selectOption('select[name=mode]', mode);
    await fill();
    await page.fill('[data-testid=query-form] input[name=limit]', '5');
    await page.fill('[data-testid=query-form] input[name=hnsw_ef]', '64');
    await submit();
    await page.getByTestId('query-results').waitFor();
    const body = { ...expected, limit: 5, params: { hnsw_ef: 64 }, with_payload: true, with_vector: true };
    expect(await requestSent()).toEqual(body);
    const expectedIds = await apiIds('plain', body);
    expect(expectedIds.length).toBeGreaterThan(0);
    await until(() => ids('query-results'), expectedIds);
  });

  it('should group results by a payload field', async () => {
    await page.goto(`${rig.server.httpUrl}/dashboard#/collections/plain/query`);
    await page.selectOption('select[name=mode]', 'nearest');
    await page.fill('[data-testid=query-form] input[name=query]', '[0, 1, 0, 0]');
    await page.fill('[data-testid=query-form] input[name=group_by]', 'city');
    await page.fill('[data-testid=query-form] input[name=group_size]', '2');
    await page.fill('[data-testid=query-form] input[name=limit]', '3');
    // The form keeps its fields while the hash changes: the last test's hnsw_ef is still there.
    await page.fill('[data-testid=query-form] input[name=hnsw_ef]', '');
    await submit();
    await page.getByTestId('query-groups').waitFor();
    const body = {
      query: [0, 1, 0, 0],
      limit: 3,
      group_by: 'city',
      group_size: 2,
      with_payload: true,
      with_vector: true,
    };
    expect(await requestSent()).toEqual(body);
    const answer = (await rig.api('POST', '/collections/plain/points/query/groups', body)).body as {
      result: { groups: { id: string; hits: { id: number }[] }[] };
    };
    for (const group of answer.result.groups) {
      await expect(
        page.locator(`[data-testid="group-${group.id}"] tbody tr td:first-child code`).allTextContents(),
      ).resolves.toEqual(group.hits.map((h) => String(h.id)));
    }
    await expect(page.locator('[data-testid=query-groups] > .card').count()).resolves.toBe(answer.result.groups.length);
  });

  it('should show the server message for a bad query in the field it names', async () => {
    await page.goto(`${rig.server.httpUrl}/dashboard#/collections/plain/query`);
    await page.selectOption('select[name=mode]', 'nearest');
    await page.fill('[data-testid=query-form] input[name=query]', '[1, 0]');
    await submit();
    await expect(page.getByTestId('error-query').textContent()).resolves.toMatch(/dimension/i);
    await page.fill('[data-testid=query-form] input[name=query]', '[1, 0, 0, 0]');
    await page.fill('[data-testid=query-form] input[name=hnsw_ef]', 'many');
    await submit();
    await expect(page.getByTestId('error-hnsw_ef').textContent()).resolves.toBe('A whole number');
  });

  it('should let a reader with an rw grant edit payloads there, and only read where granted r', async () => {
    const writer = await rig.signedIn(WRITER.email, WRITER.password, '#/collections/plain/points');
    try {
      await writer.getByTestId('point-1').waitFor();
      await expect(writer.getByTestId('grants-badge').textContent()).resolves.toBe('2 collections');
      const row = writer.getByTestId('point-1');
      await row.getByTestId('edit-payload').click();
      await row.locator('textarea[name=payload]').fill('{"city": "Oslo"}');
      await row.getByTestId('save-payload').click();
      await until(async () => (await row.locator('textarea[name=payload]').count()) === 0, true);
      const stored = (await rig.api('GET', '/collections/plain/points/1')).body as { result: { payload: unknown } };
      expect(stored.result.payload).toEqual({ city: 'Oslo' });
      await writer.goto(`${rig.server.httpUrl}/dashboard#/collections/multi/points`);
      await writer.getByTestId('point-1').waitFor();
      await expect(writer.getByTestId('edit-payload').count()).resolves.toBe(0);
      await expect(writer.getByTestId('delete-point').count()).resolves.toBe(0);
      await expect(writer.getByTestId('find-similar').count()).resolves.toBe(3);
    } finally {
      await writer.context().close();
    }
  });
});
