// The dashboard's collection screens (issue 30) in headless Chromium against the real server: the search box of the
// collections list, the settings form that updates HNSW, optimizers, quantization and strict mode with PATCH (only
// the changed fields sent, the server's refusal shown at the field it names), a reader without the form, and the
// cluster screen's charts drawn with both axes.
import type { Page } from 'playwright-core';
import { describeInBrowser } from './support/chromium';
import { type DashboardRig, startDashboardRig, until } from './support/dashboard-browser';

jest.setTimeout(120_000);

const READER = { email: 'reader@example.com', password: 'reader-password-1' };

describeInBrowser('dashboard: collections list and settings (e2e)', (executablePath) => {
  let rig: DashboardRig;
  let page: Page;

  const config = async (name: string): Promise<Record<string, Record<string, unknown> | null | undefined>> =>
    ((await rig.api('GET', `/collections/${name}`)).body as { result: { config: Record<string, never> } }).result
      .config;
  const listed = (): Promise<string[]> =>
    page.locator('[data-testid=collections-table] tbody tr td:first-child').allTextContents();

  beforeAll(async () => {
    rig = await startDashboardRig(executablePath);
    for (const name of ['products', 'product-reviews', 'users-2024']) {
      expect((await rig.api('PUT', `/collections/${name}`, { vectors: { size: 4, distance: 'Cosine' } })).status).toBe(
        200,
      );
    }
    expect((await rig.api('POST', '/api/auth/users', { ...READER, role: 'reader' })).status).toBe(201);
    page = await rig.signedIn(rig.server.adminEmail, rig.server.adminPassword);
  });

  afterAll(() => rig?.stop());
  afterEach(() => expect(rig.pageErrors.splice(0)).toEqual([]));

  it('should filter the collections list by the search box, case-insensitively', async () => {
    await until(listed, ['product-reviews', 'products', 'users-2024']);
    await page.fill('input[name=search]', 'PRODUCT');
    await until(listed, ['product-reviews', 'products']);
    await page.fill('input[name=search]', 'review');
    await until(listed, ['product-reviews']);
    await page.fill('input[name=search]', 'nothing-like-it');
    await until(listed, []);
    await expect(page.getByTestId('no-match').textContent()).resolves.toBe(
      'No collection name contains “nothing-like-it”.',
    );
    await page.fill('input[name=search]', '');
    await until(listed, ['product-reviews', 'products', 'users-2024']);
  });

  it('should update HNSW, optimizers, quantization and strict mode with PATCH, sending only the changed fields', async () => {
    const before = await config('products');
    await page.goto(`${rig.server.httpUrl}/dashboard#/collections/products`);
    const form = page.getByTestId('settings-form');
    await form.waitFor();
    // The fields start at the current values.
    await expect(form.locator('input[name="hnsw_config.m"]').inputValue()).resolves.toBe(String(before.hnsw_config?.m));
    const sent: unknown[] = [];
    page.on('request', (request) => {
      if (request.method() === 'PATCH') sent.push(JSON.parse(request.postData() ?? 'null'));
    });
    await form.locator('input[name="hnsw_config.m"]').fill('24');
    await form.locator('input[name="optimizers_config.indexing_threshold"]').fill('5000');
    await form.locator('select[name="strict_mode_config.enabled"]').selectOption('true');
    await form.locator('input[name="strict_mode_config.max_query_limit"]').fill('50');
    await form.locator('select[name=quantization]').selectOption('scalar');
    await form.locator('input[name="quantization.quantile"]').fill('0.99');
    await form.locator('button[type=submit]').click();
    await until(
      () => page.getByTestId('settings-notice').textContent(),
      'Updated: hnsw_config, optimizers_config, strict_mode_config, quantization_config.',
    );
    expect(sent).toEqual([
      {
        hnsw_config: { m: 24 },
        optimizers_config: { indexing_threshold: 5000 },
        strict_mode_config: { enabled: true, max_query_limit: 50 },
        quantization_config: { scalar: { type: 'int8', quantile: 0.99 } },
      },
    ]);
    const after = await config('products');
    expect(after.hnsw_config).toEqual({ ...before.hnsw_config, m: 24 });
    expect(after.optimizer_config).toMatchObject({ indexing_threshold: 5000 });
    expect(after.strict_mode_config).toMatchObject({ enabled: true, max_query_limit: 50 });
    expect(after.quantization_config).toEqual({ scalar: { type: 'int8', quantile: 0.99 } });
    // The page reads the collection again: the config block shows the quantization, the form the new values.
    await until(
      async () =>
        /int8/.test((await page.locator('div.card', { hasText: 'Quantization' }).first().textContent()) ?? ''),
      true,
    );
    await expect(form.locator('input[name="hnsw_config.m"]').inputValue()).resolves.toBe('24');
    await expect(form.locator('input[name="optimizers_config.indexing_threshold"]').inputValue()).resolves.toBe('5000');
  });

  it('should remove quantization, and say so when nothing changed', async () => {
    const form = page.getByTestId('settings-form');
    await form.locator('button[type=submit]').click();
    await expect(page.getByTestId('settings-error').textContent()).resolves.toBe('Nothing changed.');
    await form.locator('select[name=quantization]').selectOption('Disabled');
    await form.locator('button[type=submit]').click();
    await until(() => page.getByTestId('settings-notice').textContent(), 'Updated: quantization_config.');
    expect((await config('products')).quantization_config ?? null).toBeNull();
  });

  it("should show the server's refusal at the field it names, and a syntax error before sending", async () => {
    const form = page.getByTestId('settings-form');
    await form.locator('input[name="hnsw_config.ef_construct"]').fill('many');
    await form.locator('button[type=submit]').click();
    await expect(page.getByTestId('error-hnsw_config.ef_construct').textContent()).resolves.toBe(
      'A whole number, 0 or more',
    );
    await form.locator('input[name="hnsw_config.ef_construct"]').fill('2');
    await form.locator('button[type=submit]').click();
    await until(
      async () =>
        /hnsw_config\.ef_construct/.test(
          (await page.getByTestId('error-hnsw_config.ef_construct').textContent()) ?? '',
        ),
      true,
    );
    expect((await config('products')).hnsw_config?.ef_construct).not.toBe(2);
  });

  it('should leave the settings form out for a reader', async () => {
    const reader = await rig.signedIn(READER.email, READER.password, '#/collections/products');
    try {
      await reader.getByTestId('collection-title').waitFor();
      await reader.locator('.card', { hasText: 'HNSW' }).first().waitFor();
      await expect(reader.getByTestId('settings-form').count()).resolves.toBe(0);
    } finally {
      await reader.context().close();
    }
  });

  it('should draw the request charts with labelled axes', async () => {
    await page.goto(`${rig.server.httpUrl}/dashboard#/cluster`);
    const chart = page.getByTestId('chart-requests per second');
    // Two samples of /metrics (2 s apart) make the first rate.
    await chart.locator('circle.series').first().waitFor({ timeout: 20_000 });
    const texts = await chart.locator('svg text').allTextContents();
    expect(texts).toEqual(expect.arrayContaining(['seconds ago', 'req/s', '0']));
    // y ticks are round numbers from 0 upwards.
    const yTicks = (await chart.locator('g.tick text').allTextContents()).map(Number);
    expect(yTicks[0]).toBe(0);
    expect(yTicks.length).toBeGreaterThanOrEqual(2);
    expect([...yTicks].sort((a, b) => a - b)).toEqual(yTicks);
    await expect(page.getByTestId('chart-mean latency').locator('svg text', { hasText: 'ms' }).count()).resolves.toBe(
      1,
    );
  });
});
