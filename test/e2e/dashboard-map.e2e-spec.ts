// The dashboard's vector map (issue 30) in headless Chromium against the real server: a random sample drawn as N
// points projected by PCA, coloured by a payload field (each point the colour of its value, the legend's counts the
// API's), clusters kept apart, hover showing the payload, keyboard selection, "Neighbours" drawing the API's nearest
// points, and Enter opening the point. Then UMAP: computed in a worker loaded only when chosen (under the CSP's one
// Trusted Types policy), redrawing the same points with the clusters apart, and cancelled by the page.
import type { Page, Worker } from 'playwright-core';
import { describeInBrowser } from './support/chromium';
import { type DashboardRig, startDashboardRig, until, watchFor } from './support/dashboard-browser';

jest.setTimeout(120_000);

const CITIES = ['Berlin', 'Paris', 'Rome'];
const COUNT = 240;
/** Points of the collection UMAP takes seconds on, long enough to cancel it under way. */
const LARGE = 3000;

interface Dot {
  id: number;
  fill: string;
  x: number;
  y: number;
}

/** The map's circles as drawn. */
function dotsOf(page: Page): Promise<Dot[]> {
  return page.locator('[data-testid=map-svg] circle.dot').evaluateAll((circles) =>
    circles.map((c) => ({
      id: Number(c.getAttribute('data-id')),
      fill: c.getAttribute('fill') ?? '',
      x: Number(c.getAttribute('cx')),
      y: Number(c.getAttribute('cy')),
    })),
  );
}

/** Each point is nearer its own city's centre on the map than any other city's. */
function expectClustersApart(dots: Dot[], cityOf: (id: number) => string): void {
  const centre = (city: string): [number, number] => {
    const own = dots.filter((d) => cityOf(d.id) === city);
    return [own.reduce((s, d) => s + d.x, 0) / own.length, own.reduce((s, d) => s + d.y, 0) / own.length];
  };
  const centres = new Map(CITIES.map((c) => [c, centre(c)]));
  for (const dot of dots) {
    const distance = (c: string): number => Math.hypot(dot.x - centres.get(c)![0], dot.y - centres.get(c)![1]);
    const nearest = CITIES.reduce((a, b) => (distance(a) <= distance(b) ? a : b));
    expect([dot.id, nearest]).toEqual([dot.id, cityOf(dot.id)]);
  }
}

describeInBrowser('dashboard: vector map (e2e)', (executablePath) => {
  let rig: DashboardRig;
  let page: Page;
  const cityOf = (id: number): string => CITIES[id % 3];
  /** Every URL the page requested, and the workers it started. */
  const requested: string[] = [];
  const workers: Worker[] = [];
  /** `securitypolicyviolation` events the page's document saw. */
  const violations = (): Promise<string[]> =>
    page.evaluate(() => (window as unknown as { violations: string[] }).violations);

  beforeAll(async () => {
    rig = await startDashboardRig(executablePath);
    expect((await rig.api('PUT', '/collections/places', { vectors: { size: 6, distance: 'Euclid' } })).status).toBe(
      200,
    );
    let seed = 11;
    const noise = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31 - 0.5;
    };
    // Three clusters, one per city, far apart in the first coordinates.
    const points = Array.from({ length: COUNT }, (_, i) => {
      const c = i % 3;
      return {
        id: i,
        vector: Array.from({ length: 6 }, (_, j) => (j === c ? 10 : 0) + noise()),
        payload: { city: cityOf(i), n: i },
      };
    });
    expect((await rig.api('PUT', '/collections/places/points?wait=true', { points })).status).toBe(200);
    expect((await rig.api('PUT', '/collections/many', { vectors: { size: 32, distance: 'Euclid' } })).status).toBe(200);
    const many = Array.from({ length: LARGE }, (_, i) => ({
      id: i,
      vector: Array.from({ length: 32 }, (_, j) => (j === i % 3 ? 10 : 0) + noise()),
      payload: { city: cityOf(i) },
    }));
    expect((await rig.api('PUT', '/collections/many/points?wait=true', { points: many })).status).toBe(200);
    page = await rig.signedIn(rig.server.adminEmail, rig.server.adminPassword, '#/collections/places/map');
    page.on('request', (request) => requested.push(request.url()));
    page.on('worker', (worker) => workers.push(worker));
    // A violation in the document (a refused worker, a Trusted Types refusal), beside the console's reports.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { violations: string[] }).violations = seen;
      document.addEventListener('securitypolicyviolation', (event) =>
        seen.push(`${event.violatedDirective} ${event.blockedURI}`),
      );
    });
  });

  afterAll(() => rig?.stop());
  afterEach(() => expect(rig.pageErrors.splice(0)).toEqual([]));

  it('should draw every sampled point, coloured by the payload field, with the legend counting as the API', async () => {
    await page.fill('input[name=sample]', '5000');
    await page.fill('input[name=colour_by]', 'city');
    await page.click('[data-testid=map-form] button[type=submit]');
    await page.getByTestId('map-svg').waitFor();
    await expect(page.locator('[data-testid=map-svg] circle.dot').count()).resolves.toBe(COUNT);
    await expect(page.getByTestId('map-summary').textContent()).resolves.toMatch(new RegExp(`^${COUNT} points`));
    await expect(page.getByTestId('map-svg').getAttribute('data-projection')).resolves.toBe('pca');
    const dots = await dotsOf(page);
    expect(new Set(dots.map((d) => d.id)).size).toBe(COUNT);
    // One colour per city, every point the colour of its own city.
    const colourOf = new Map<string, string>();
    for (const dot of dots) {
      const city = cityOf(dot.id);
      if (!colourOf.has(city)) colourOf.set(city, dot.fill);
      expect(dot.fill).toBe(colourOf.get(city));
    }
    expect(new Set(colourOf.values()).size).toBe(3);
    const legend = await page.locator('[data-testid=map-legend] li').allTextContents();
    for (const city of CITIES) {
      const counted = await rig.api('POST', '/collections/places/points/count', {
        filter: { must: [{ key: 'city', match: { value: city } }] },
      });
      const count = (counted.body as { result: { count: number } }).result.count;
      expect(legend).toContain(` ${city} (${count})`);
    }
    // PCA keeps the clusters apart: each point is nearer its own city's centre than any other.
    expectClustersApart(dots, cityOf);
  });

  it('should recolour by another field without sampling again', async () => {
    await page.fill('input[name=colour_by]', 'n');
    await until(async () => (await page.locator('[data-testid=map-legend] li').count()) > 3, true);
    await expect(page.locator('[data-testid=map-svg] circle.dot').count()).resolves.toBe(COUNT);
    await page.fill('input[name=colour_by]', 'city');
  });

  it("should show a point's payload on hover", async () => {
    // Points overlap in a cluster: the event goes to this one, as the pointer entering it would send.
    await page.locator('[data-testid=map-svg] circle[data-id="7"]').dispatchEvent('mouseenter');
    await until(
      async () => (await page.getByTestId('map-point').textContent()) ?? '',
      `Point 7{\n  "city": "Paris",\n  "n": 7\n}`,
    );
    await page.locator('[data-testid=map-svg] circle[data-id="7"]').dispatchEvent('mouseleave');
  });

  it("should select by keyboard and draw the API's nearest points as neighbours, then open the point", async () => {
    await page.getByTestId('map-svg').focus();
    await page.keyboard.press('ArrowRight');
    const selected = Number(await page.locator('[data-testid=map-svg] circle.selected').getAttribute('data-id'));
    await page.getByTestId('map-neighbours').click();
    await page.getByTestId('map-neighbours-summary').waitFor();
    const answer = await rig.api('POST', '/collections/places/points/query', { query: selected, limit: 10 });
    const expected = (answer.body as { result: { points: { id: number }[] } }).result.points.map((p) => String(p.id));
    await expect(
      page
        .locator('[data-testid=map-svg] line.neighbour')
        .evaluateAll((lines) => lines.map((l) => l.getAttribute('data-id'))),
    ).resolves.toEqual(expected);
    await expect(page.getByTestId('map-neighbours-summary').textContent()).resolves.toBe(
      '10 of the 10 nearest are in the sample.',
    );
    await page.getByTestId('map-svg').focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('point-id').waitFor();
    expect(page.url()).toMatch(new RegExp(`#/collections/places/points/${selected}$`));
  });
  it('should not load the UMAP worker or umap-js before UMAP is chosen', async () => {
    expect(requested.filter((url) => url.includes('map-worker'))).toEqual([]);
    expect(workers).toEqual([]);
    const app = await (await fetch(`${rig.server.httpUrl}/dashboard/app.js`)).text();
    const worker = await (await fetch(`${rig.server.httpUrl}/dashboard/map-worker.js`)).text();
    // umap-js's own error text marks its code: in the worker's file, not in the page's bundle.
    expect(worker).toContain('Not enough data points');
    expect(app).not.toContain('Not enough data points');
    expect(app).toContain('map-worker.js');
  });

  it('should refuse UMAP options out of range beside their fields', async () => {
    await page.goto(`${rig.server.httpUrl}/dashboard#/collections/places/map`);
    await page.getByTestId('map-form').waitFor();
    await page.selectOption('select[name=projection]', 'umap');
    await page.fill('input[name=neighbours]', '1');
    await page.fill('input[name=min_dist]', '1.5');
    await page.click('[data-testid=map-form] button[type=submit]');
    await expect(page.getByTestId('error-neighbours').textContent()).resolves.toBe('A whole number from 2 to 200');
    await expect(page.getByTestId('error-min_dist').textContent()).resolves.toBe('A number from 0 to 1');
    await expect(page.getByTestId('map-svg').count()).resolves.toBe(0);
    expect(workers).toEqual([]);
  });

  it('should paint PCA at once, then redraw the same points by UMAP from its worker, clusters apart', async () => {
    await page.goto(`${rig.server.httpUrl}/dashboard#/collections/places/map`);
    // Keyboard reachable: the projection is a labelled select.
    await page.getByLabel('Projection').focus();
    await page.keyboard.press('ArrowDown');
    await expect(page.getByLabel('Projection').inputValue()).resolves.toBe('umap');
    await page.fill('input[name=sample]', '5000');
    await page.fill('input[name=colour_by]', 'city');
    await page.fill('input[name=neighbours]', '15');
    await page.fill('input[name=min_dist]', '0.1');
    await page.fill('input[name=seed]', '7');
    const sawProgress = await watchFor(page, '[data-testid=map-umap-progress] progress');
    const pca = new Map<number, Dot>();
    await page.click('[data-testid=map-form] button[type=submit]');
    await page.getByTestId('map-svg').waitFor();
    for (const dot of await dotsOf(page)) pca.set(dot.id, dot);
    await page.locator('[data-testid=map-svg][data-projection=umap]').waitFor({ timeout: 60_000 });
    expect(await sawProgress()).toBe(true);
    await expect(page.getByTestId('map-umap-progress').count()).resolves.toBe(0);
    expect(workers.map((w) => new URL(w.url()).pathname)).toEqual(['/dashboard/map-worker.js']);
    const dots = await dotsOf(page);
    expect(dots).toHaveLength(COUNT);
    expect(new Set(dots.map((d) => d.id))).toEqual(new Set(pca.keys()));
    // The same circles, colours kept, in new places.
    for (const dot of dots) expect(dot.fill).toBe(pca.get(dot.id)!.fill);
    expect(dots.filter((d) => d.x !== pca.get(d.id)!.x || d.y !== pca.get(d.id)!.y).length).toBeGreaterThan(COUNT / 2);
    expectClustersApart(dots, cityOf);
    await expect(page.getByTestId('map-summary').textContent()).resolves.toMatch(
      new RegExp(`^${COUNT} points, projected by UMAP \\(15 neighbours, minimum distance 0.1, seed 7\\)`),
    );
    // Hover and neighbours work on the new layout.
    await page.locator('[data-testid=map-svg] circle[data-id="7"]').dispatchEvent('mouseenter');
    await until(async () => (await page.getByTestId('map-point').locator('h3').textContent()) ?? '', 'Point 7');
    await page.locator('[data-testid=map-svg] circle[data-id="7"]').dispatchEvent('mouseleave');
    await page.locator('[data-testid=map-svg] circle[data-id="7"]').dispatchEvent('click');
    await page.getByTestId('map-neighbours').click();
    await page.getByTestId('map-neighbours-summary').waitFor();
    await expect(page.locator('[data-testid=map-svg] line.neighbour').count()).resolves.toBe(10);
    // PCA again at once, and back to the UMAP layout without computing it again.
    await page.getByLabel('Projection').selectOption('pca');
    await expect(page.getByTestId('map-svg').getAttribute('data-projection')).resolves.toBe('pca');
    await expect(page.locator('[data-testid=map-svg] circle.dot').count()).resolves.toBe(COUNT);
    await page.getByLabel('Projection').selectOption('umap');
    await expect(page.getByTestId('map-svg').getAttribute('data-projection')).resolves.toBe('umap');
    expect(workers).toHaveLength(1);
    await expect(page.getByTestId('map-umap-error').count()).resolves.toBe(0);
    expect(await violations()).toEqual([]);
  });

  it('should give the same UMAP layout for the same sample and seed', async () => {
    const before = await dotsOf(page);
    await page.getByTestId('map-umap-rerun').click();
    await page.getByTestId('map-umap-progress').waitFor();
    await page.getByTestId('map-umap-progress').waitFor({ state: 'detached', timeout: 60_000 });
    expect(workers).toHaveLength(2);
    await expect(dotsOf(page)).resolves.toEqual(before);
  });

  it("should show the worker's failure on the page, not as an uncaught error", async () => {
    // The worker's script, replaced by one that throws at once (as a broken build would).
    await page.route('**/dashboard/map-worker.js', (route) =>
      route.fulfill({ contentType: 'text/javascript', body: 'throw new Error("broken worker")' }),
    );
    try {
      await page.getByTestId('map-umap-rerun').click();
      await until(async () => (await page.getByTestId('map-umap-error').count()) > 0, true);
      await expect(page.getByTestId('map-umap-error').textContent()).resolves.toMatch(
        /^The UMAP worker failed: .*broken worker/,
      );
      await expect(page.getByTestId('map-umap-progress').count()).resolves.toBe(0);
      await expect(page.getByTestId('map-svg').getAttribute('data-projection')).resolves.toBe('umap');
    } finally {
      await page.unroute('**/dashboard/map-worker.js');
    }
  });

  it('should end the worker when UMAP is cancelled, a new sample is drawn or the page is left', async () => {
    await page.goto(`${rig.server.httpUrl}/dashboard#/collections/many/map`);
    await page.getByTestId('map-form').waitFor();
    await page.fill('input[name=sample]', String(LARGE));
    await page.selectOption('select[name=projection]', 'umap');
    const closed = (worker: Worker): Promise<void> => new Promise((resolve) => worker.once('close', () => resolve()));
    const started = workers.length;

    await page.click('[data-testid=map-form] button[type=submit]');
    await page.getByTestId('map-umap-progress').waitFor();
    await until(async () => workers.length, started + 1);
    const cancelled = closed(workers[started]);
    await page.getByTestId('map-umap-cancel').click();
    await cancelled;
    await expect(page.getByTestId('map-umap-progress').count()).resolves.toBe(0);
    await expect(page.getByTestId('map-svg').getAttribute('data-projection')).resolves.toBe('pca');
    await expect(page.locator('[data-testid=map-svg] circle.dot').count()).resolves.toBe(LARGE);

    // A new sample ends the run under way and starts its own.
    await page.getByTestId('map-umap-rerun').click();
    await until(async () => workers.length, started + 2);
    const replaced = closed(workers[started + 1]);
    await page.click('[data-testid=map-form] button[type=submit]');
    await replaced;
    await until(async () => workers.length, started + 3);
    await page.getByTestId('map-umap-progress').waitFor();

    // Leaving the page ends it too.
    const left = closed(workers[started + 2]);
    await page.goto(`${rig.server.httpUrl}/dashboard#/collections`);
    await left;
    await page.getByTestId('collections-table').waitFor();
    expect(await violations()).toEqual([]);
  });
});
