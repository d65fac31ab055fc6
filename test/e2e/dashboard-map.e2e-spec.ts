// The dashboard's vector map (issue 30) in headless Chromium against the real server: a random sample drawn as N
// points projected by PCA, coloured by a payload field (each point the colour of its value, the legend's counts the
// API's), clusters kept apart, hover showing the payload, keyboard selection, "Neighbours" drawing the API's nearest
// points, and Enter opening the point.
import type { Page } from 'playwright-core';
import { describeInBrowser } from './support/chromium';
import { type DashboardRig, startDashboardRig, until } from './support/dashboard-browser';

jest.setTimeout(120_000);

const CITIES = ['Berlin', 'Paris', 'Rome'];
const COUNT = 240;

describeInBrowser('dashboard: vector map (e2e)', (executablePath) => {
  let rig: DashboardRig;
  let page: Page;
  const cityOf = (id: number): string => CITIES[id % 3];

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
    page = await rig.signedIn(rig.server.adminEmail, rig.server.adminPassword, '#/collections/places/map');
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
    const dots = await page.locator('[data-testid=map-svg] circle.dot').evaluateAll((circles) =>
      circles.map((c) => ({
        id: Number(c.getAttribute('data-id')),
        fill: c.getAttribute('fill') ?? '',
        x: Number(c.getAttribute('cx')),
        y: Number(c.getAttribute('cy')),
      })),
    );
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
    const centre = (city: string): [number, number] => {
      const own = dots.filter((d) => cityOf(d.id) === city);
      return [own.reduce((s, d) => s + d.x, 0) / own.length, own.reduce((s, d) => s + d.y, 0) / own.length];
    };
    const centres = new Map(CITIES.map((c) => [c, centre(c)]));
    for (const dot of dots) {
      const distance = (c: string): number => Math.hypot(dot.x - centres.get(c)![0], dot.y - centres.get(c)![1]);
      const nearest = CITIES.reduce((a, b) => (distance(a) <= distance(b) ? a : b));
      expect(nearest).toBe(cityOf(dot.id));
    }
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
});
