// The dashboard's search-quality screen (issue 30) in headless Chromium against the real server: precision@k of the
// HNSW index against exact search, by hnsw_ef, for a random sample of points, each value equal to the one this test
// computes itself from the API's exact and approximate answers for the same sample; drawn as a chart with axes.
import type { Page } from 'playwright-core';
import { describeInBrowser } from './support/chromium';
import { type DashboardRig, startDashboardRig, until } from './support/dashboard-browser';

jest.setTimeout(180_000);

const DIM = 8;
const COUNT = 600;
const EFS = [1, 4, 16, 64];
const K = 10;

describeInBrowser('dashboard: search quality (e2e)', (executablePath) => {
  let rig: DashboardRig;
  let page: Page;

  /** Top-k ids of one query as the API answers it. */
  const topIds = async (vector: number[], params: Record<string, unknown>, using?: string): Promise<string[]> => {
    const answer = await rig.api('POST', '/collections/vectors/points/query', {
      query: vector,
      using,
      limit: K,
      params,
    });
    expect(answer.status).toBe(200);
    return (answer.body as { result: { points: { id: number }[] } }).result.points.map((p) => String(p.id));
  };

  beforeAll(async () => {
    rig = await startDashboardRig(executablePath);
    // A small, sparse graph (m 4, ef_construct 4) built at once, so that a low hnsw_ef misses neighbours.
    const created = await rig.api('PUT', '/collections/vectors', {
      vectors: { size: DIM, distance: 'Euclid' },
      hnsw_config: { m: 4, ef_construct: 4, full_scan_threshold: 10 },
      optimizers_config: { indexing_threshold: 1, default_segment_number: 1 },
    });
    expect(created.status).toBe(200);
    let seed = 7;
    const next = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const points = Array.from({ length: COUNT }, (_, i) => ({
      id: i + 1,
      vector: Array.from({ length: DIM }, () => next()),
    }));
    expect((await rig.api('PUT', '/collections/vectors/points?wait=true', { points })).status).toBe(200);
    // The optimizer has built the index when every vector is indexed and the collection is green.
    await until(
      async () => {
        const info = (await rig.api('GET', '/collections/vectors')).body as {
          result: { status: string; indexed_vectors_count: number };
        };
        return info.result.status === 'green' && info.result.indexed_vectors_count >= COUNT;
      },
      true,
      60_000,
    );
    page = await rig.signedIn(rig.server.adminEmail, rig.server.adminPassword, '#/collections/vectors/quality');
  });

  afterAll(() => rig?.stop());
  afterEach(() => expect(rig.pageErrors.splice(0)).toEqual([]));

  it('should measure precision@k by hnsw_ef equal to the value computed here from exact search', async () => {
    await page.fill('input[name=sample]', '25');
    await page.fill('input[name=k]', String(K));
    await page.fill('input[name=hnsw_ef]', EFS.join(', '));
    await page.click('[data-testid=quality-form] button[type=submit]');
    await page.getByTestId('quality-result').waitFor({ timeout: 60_000 });

    const sampleText = (await page.getByTestId('quality-sample').textContent()) ?? '';
    const sample = sampleText.split(', ').map(Number);
    expect(sample).toHaveLength(25);
    expect(new Set(sample).size).toBe(25);
    const retrieved = (await rig.api('POST', '/collections/vectors/points', { ids: sample, with_vector: true }))
      .body as { result: { id: number; vector: number[] }[] };
    const vectorOf = new Map(retrieved.result.map((p) => [p.id, p.vector]));
    const exact = await Promise.all(sample.map((id) => topIds(vectorOf.get(id) ?? [], { exact: true })));
    const precisions: number[] = [];
    for (const ef of EFS) {
      const approximate = await Promise.all(sample.map((id) => topIds(vectorOf.get(id) ?? [], { hnsw_ef: ef })));
      const shares = exact.map((truth, i) => truth.filter((id) => approximate[i].includes(id)).length / truth.length);
      const expected = shares.reduce((a, b) => a + b, 0) / shares.length;
      precisions.push(expected);
      const shown = Number(
        await page.getByTestId(`quality-ef-${ef}`).locator('td[data-precision]').getAttribute('data-precision'),
      );
      expect(shown).toBeCloseTo(expected, 12);
      await expect(page.getByTestId(`quality-ef-${ef}`).locator('td').nth(1).textContent()).resolves.toBe(
        expected.toFixed(4),
      );
    }
    console.log(`precision@${K} by hnsw_ef ${EFS.join('/')}: ${precisions.map((p) => p.toFixed(3)).join(' / ')}`);
    // The widest search finds at least as much as the narrowest.
    expect(precisions[precisions.length - 1]).toBeGreaterThanOrEqual(precisions[0]);
  });

  it('should draw the precisions on a chart with hnsw_ef and precision axes', async () => {
    const chart = page.getByTestId('quality-chart');
    await expect(chart.locator('circle.series').count()).resolves.toBe(EFS.length);
    const texts = await chart.locator('svg text').allTextContents();
    expect(texts).toEqual(
      expect.arrayContaining(['hnsw_ef (log scale)', `precision@${K}`, '0', '1', ...EFS.map(String)]),
    );
  });

  it('should say when the sampled points have no vector of the name asked for', async () => {
    await page.fill('input[name=using]', 'nope');
    await page.click('[data-testid=quality-form] button[type=submit]');
    await expect(page.getByTestId('quality-error').textContent()).resolves.toBe(
      'The sampled points have no vector named "nope": it has only the default vector.',
    );
    await page.fill('input[name=using]', '');
  });
});
