// Writes a screenshot of each main dashboard screen to docs/img/ (`npm run docs:screenshots`, which builds first).
// Boots the built server on free loopback ports with a throw-away data folder, fills it through the REST API, and
// drives Debian's headless Chromium (or VECTORSTORE_TEST_CHROMIUM) with playwright-core. Stops only its own server.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const root = join(import.meta.dirname, '..');
const out = join(root, 'docs', 'img');
const executablePath = process.env.VECTORSTORE_TEST_CHROMIUM || '/usr/bin/chromium';
if (!existsSync(executablePath)) {
  console.error(`No Chromium at ${executablePath}: apt-get install -y --no-install-recommends chromium`);
  process.exit(1);
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

const dataDir = mkdtempSync(join(tmpdir(), 'vectorstore-screenshots-'));
const httpPort = await freePort();
const url = `http://127.0.0.1:${httpPort}`;
const admin = { email: 'admin@example.com', password: 'screenshot-password' };
const apiKey = 'screenshots-api-key-0123456789';
const server = spawn(process.execPath, [join(root, 'dist', 'apps', 'server', 'src', 'main.js')], {
  env: {
    PATH: process.env.PATH,
    TZ: 'UTC',
    VECTORSTORE_HOST: '127.0.0.1',
    VECTORSTORE_HTTP_PORT: String(httpPort),
    VECTORSTORE_GRPC_PORT: String(await freePort()),
    VECTORSTORE_DATA_DIR: dataDir,
    VECTORSTORE_LOG_LEVEL: 'warn',
    VECTORSTORE_ADMIN_EMAIL: admin.email,
    VECTORSTORE_ADMIN_PASSWORD: admin.password,
    VECTORSTORE_API_KEY: apiKey,
  },
  stdio: ['ignore', 'inherit', 'inherit'],
});

async function api(method, route, body) {
  const response = await fetch(`${url}${route}`, {
    method,
    headers: { 'api-key': apiKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${route}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** Deterministic pseudo-random numbers (mulberry32), so the pictures do not change between runs. */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let browser;
try {
  for (let tries = 0; ; tries++) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (tries > 300) throw new Error('the server did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  const next = random(42);
  const cities = ['Berlin', 'London', 'Paris', 'Madrid', 'Rome'];
  const topics = ['databases', 'search', 'compilers', 'networks'];
  await api('PUT', '/collections/articles', { vectors: { size: 8, distance: 'Cosine' } });
  // A small graph built at once (m 4), so that the search-quality screen has something to show.
  await api('PUT', '/collections/images', {
    vectors: { size: 16, distance: 'Euclid' },
    hnsw_config: { m: 4, ef_construct: 8, full_scan_threshold: 10 },
    optimizers_config: { indexing_threshold: 1 },
  });
  const labels = ['cat', 'dog', 'bird', 'fish', 'horse'];
  await api('PUT', '/collections/images/points?wait=true', {
    points: Array.from({ length: 1500 }, (_, i) => ({
      id: i + 1,
      vector: Array.from({ length: 16 }, (_, j) => (j % 5 === i % 5 ? 3 : 0) + next() * 2),
      payload: { label: labels[i % 5], width: 320 + (i % 7) * 64 },
    })),
  });
  await api('PUT', '/collections/articles/points?wait=true', {
    points: Array.from({ length: 60 }, (_, i) => ({
      id: i + 1,
      vector: Array.from({ length: 8 }, () => Number(next().toFixed(3))),
      payload: { title: `Article ${i + 1}`, city: cities[i % 5], topic: topics[i % 4], year: 2015 + (i % 10) },
    })),
  });
  await api('PUT', '/collections/articles/index?wait=true', { field_name: 'city', field_schema: 'keyword' });
  await api('PUT', '/collections/articles/index?wait=true', { field_name: 'year', field_schema: 'integer' });
  await api('POST', '/collections/aliases', {
    actions: [{ create_alias: { collection_name: 'articles', alias_name: 'articles-latest' } }],
  });

  mkdirSync(out, { recursive: true });
  browser = await chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const shot = (name, fullPage = false) => page.screenshot({ path: join(out, `dashboard-${name}.png`), fullPage });

  await page.goto(`${url}/dashboard`);
  await page.getByTestId('sign-in-form').waitFor();
  await page.fill('input[name=email]', admin.email);
  await shot('sign-in');
  await page.fill('input[name=password]', admin.password);
  await page.click('[data-testid=sign-in-form] button[type=submit]');
  await page.getByTestId('collection-row-articles').waitFor();
  await shot('collections');

  await page.goto(`${url}/dashboard#/collections/articles`);
  await page.getByTestId('points-count').waitFor();
  await shot('collection', true);

  await page.goto(`${url}/dashboard#/collections/articles/points`);
  await page.fill('textarea[name=filter]', '{"must": [{"key": "city", "match": {"value": "Berlin"}}]}');
  await page.click('[data-testid=filter-form] button[type=submit]');
  await page.getByTestId('point-6').waitFor();
  await shot('points');

  await page.goto(`${url}/dashboard#/collections/articles/query`);
  await page.fill('[data-testid=query-form] input[name=query]', '[0.9, 0.1, 0.4, 0.3, 0.8, 0.2, 0.5, 0.7]');
  await page.fill('[data-testid=query-form] input[name=limit]', '5');
  await page.fill(
    '[data-testid=query-form] textarea[name=filter]',
    '{"must": [{"key": "year", "range": {"gte": 2020}}]}',
  );
  await page.click('[data-testid=query-form] button[type=submit]');
  await page.getByTestId('query-results').waitFor();
  await shot('query');

  await page.goto(`${url}/dashboard#/collections/articles/points/6`);
  await page.getByTestId('vector-default').waitFor();
  await shot('point');

  await page.goto(`${url}/dashboard#/collections/images/map`);
  await page.fill('input[name=sample]', '1500');
  await page.fill('input[name=colour_by]', 'label');
  await page.click('[data-testid=map-form] button[type=submit]');
  await page.getByTestId('map-svg').waitFor();
  // PCA paints first; the map shown is UMAP's, computed in its worker.
  await page.selectOption('select[name=projection]', 'umap');
  await page.locator('[data-testid=map-svg][data-projection=umap]').waitFor({ timeout: 120_000 });
  await page.getByTestId('map-svg').focus();
  await page.keyboard.press('ArrowRight');
  await page.getByTestId('map-neighbours').click();
  await page.getByTestId('map-neighbours-summary').waitFor();
  await shot('map', true);

  await page.goto(`${url}/dashboard#/collections/images/quality`);
  await page.fill('input[name=hnsw_ef]', '1, 4, 8, 16, 32, 64, 128');
  await page.click('[data-testid=quality-form] button[type=submit]');
  await page.getByTestId('quality-result').waitFor();
  await shot('quality');

  await page.goto(`${url}/dashboard#/console`);
  await page.fill('input[name=path]', '/collections/articles/points/query');
  await page.fill('textarea[name=body]', '{"query": [0.9, 0.1, 0.4, 0.3, 0.8, 0.2, 0.5, 0.7], "limit": 3}');
  await page.click('[data-testid=console-form] button[type=submit]');
  await page.getByTestId('console-points').waitFor();
  await page.fill('input[name=path]', '/collections/articles/points/s');
  await page.getByTestId('path-suggestions').waitFor();
  await shot('console', true);

  await page.goto(`${url}/dashboard#/collections/articles/snapshots`);
  await page.getByTestId('snapshot-create').click();
  await page.getByTestId('snapshot-notice').waitFor();
  await shot('snapshots');

  await page.goto(`${url}/dashboard#/users`);
  await page.getByTestId('users-table').waitFor();
  await shot('users');

  await page.goto(`${url}/dashboard#/cluster`);
  // Some traffic for the charts: a few samples of /metrics while queries run.
  for (let i = 0; i < 20; i++) {
    await Promise.all(
      Array.from({ length: 5 + (i % 10) * 3 }, () =>
        api('POST', '/collections/articles/points/query', { query: [1, 0, 0, 0, 0, 0, 0, 1], limit: 3 }),
      ),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  await page.getByTestId('shards-articles').waitFor();
  await shot('cluster', true);
  console.log(`screenshots written to ${out}`);
} finally {
  await browser?.close();
  await new Promise((resolve) => {
    server.once('exit', resolve);
    server.kill('SIGTERM');
  });
  rmSync(dataDir, { recursive: true, force: true });
}
