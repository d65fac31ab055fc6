// The dashboard's Snapshots screen (issue 30) in headless Chromium against the real server: snapshots of a
// collection, of a shard and of the whole node are created, listed, downloaded (bytes equal to the API's), restored
// (a deleted point comes back), uploaded with progress and deleted; a reader with an `rw` grant may create and delete
// its collection's snapshots but not restore, a reader without one sees the list only.
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describeInBrowser } from './support/chromium';
import { type DashboardRig, startDashboardRig, until, watchFor } from './support/dashboard-browser';

jest.setTimeout(120_000);

const WRITER = { email: 'writer@example.com', password: 'writer-password-1' };

describeInBrowser('dashboard: snapshots screen (e2e)', (executablePath) => {
  let rig: DashboardRig;
  let admin: Page;

  const names = async (route: string): Promise<string[]> =>
    ((await rig.api('GET', route)).body as { result: { name: string }[] }).result.map((s) => s.name).sort();
  const rows = (page: Page): Promise<string[]> =>
    page.locator('[data-testid=snapshots-table] tbody tr td:first-child').allTextContents();
  const pointExists = async (id: number): Promise<boolean> =>
    (await rig.api('GET', `/collections/alpha/points/${id}`)).status === 200;

  beforeAll(async () => {
    rig = await startDashboardRig(executablePath);
    for (const name of ['alpha', 'beta']) {
      expect((await rig.api('PUT', `/collections/${name}`, { vectors: { size: 4, distance: 'Dot' } })).status).toBe(
        200,
      );
    }
    const points = Array.from({ length: 30 }, (_, i) => ({ id: i + 1, vector: [i, 1, 2, 3], payload: { n: i } }));
    expect((await rig.api('PUT', '/collections/alpha/points?wait=true', { points })).status).toBe(200);
    const writer = await rig.api('POST', '/api/auth/users', {
      ...WRITER,
      role: 'reader',
      collections: [
        { collection: 'alpha', access: 'rw' },
        { collection: 'beta', access: 'r' },
      ],
    });
    expect(writer.status).toBe(201);
    admin = await rig.signedIn(rig.server.adminEmail, rig.server.adminPassword);
  });

  afterAll(() => rig?.stop());
  afterEach(() => expect(rig.pageErrors.splice(0)).toEqual([]));

  it('should create, list and download a collection snapshot, the bytes equal to the API download', async () => {
    await admin.goto(`${rig.server.httpUrl}/dashboard#/collections/alpha/snapshots`);
    await admin.getByTestId('snapshots-table').waitFor();
    await expect(admin.locator('select[name=scope-collection]').count()).resolves.toBe(0);
    await admin.getByTestId('snapshot-create').click();
    await admin.getByTestId('snapshot-notice').waitFor();
    const [created] = await names('/collections/alpha/snapshots');
    expect(created).toMatch(/^alpha-.+\.snapshot$/);
    await until(() => rows(admin), [created]);
    await expect(admin.getByTestId('snapshot-notice').textContent()).resolves.toBe(`Created ${created}.`);

    const downloading = admin.waitForEvent('download');
    await admin.getByTestId(`snapshot-${created}`).getByTestId('snapshot-download').click();
    const download = await downloading;
    expect(download.suggestedFilename()).toBe(created);
    const viaBrowser = readFileSync(await download.path());
    const viaApi = Buffer.from(
      await (
        await fetch(`${rig.server.httpUrl}/collections/alpha/snapshots/${encodeURIComponent(created)}`, {
          headers: { 'api-key': rig.server.apiKey },
        })
      ).arrayBuffer(),
    );
    expect(viaBrowser.length).toBeGreaterThan(0);
    expect(viaBrowser.equals(viaApi)).toBe(true);
  });

  it('should restore a listed snapshot: a point deleted after it comes back', async () => {
    const [created] = await names('/collections/alpha/snapshots');
    expect((await rig.api('POST', '/collections/alpha/points/delete?wait=true', { points: [7] })).status).toBe(200);
    expect(await pointExists(7)).toBe(false);
    const sawProgress = await watchFor(admin, '[data-testid=snapshot-progress] progress');
    const row = admin.getByTestId(`snapshot-${created}`);
    await row.getByTestId('snapshot-restore').click();
    await row.getByTestId('snapshot-restore-confirm').click();
    await until(() => admin.getByTestId('snapshot-notice').textContent(), `Restored collection alpha from ${created}.`);
    expect(await sawProgress()).toBe(true);
    expect(await pointExists(7)).toBe(true);
    expect((await rig.api('POST', '/collections/alpha/points/count', { exact: true })).body).toMatchObject({
      result: { count: 30 },
    });
  });

  it('should upload a snapshot file with progress and restore from it', async () => {
    const [created] = await names('/collections/alpha/snapshots');
    const file = Buffer.from(
      await (
        await fetch(`${rig.server.httpUrl}/collections/alpha/snapshots/${encodeURIComponent(created)}`, {
          headers: { 'api-key': rig.server.apiKey },
        })
      ).arrayBuffer(),
    );
    expect((await rig.api('POST', '/collections/alpha/points/delete?wait=true', { points: [8, 9] })).status).toBe(200);
    const sawProgress = await watchFor(admin, '[data-testid=snapshot-progress] progress');
    await admin
      .locator('[data-testid=snapshot-upload-form] input[type=file]')
      .setInputFiles({ name: 'upload.snapshot', mimeType: 'application/octet-stream', buffer: file });
    await admin.locator('[data-testid=snapshot-upload-form] button[type=submit]').click();
    await until(
      () => admin.getByTestId('snapshot-notice').textContent(),
      'Restored collection alpha from upload.snapshot.',
    );
    expect(await sawProgress()).toBe(true);
    expect(await pointExists(8)).toBe(true);
    expect(await pointExists(9)).toBe(true);
  });

  it('should show a recover error from the server next to the form', async () => {
    await admin.fill('[data-testid=snapshot-recover-form] input[name=location]', '/not/a/url.snapshot');
    await admin.locator('[data-testid=snapshot-recover-form] button[type=submit]').click();
    await expect(admin.getByTestId('snapshot-action-error').textContent()).resolves.toContain('is not a URL');
  });

  it('should delete a snapshot', async () => {
    const [created] = await names('/collections/alpha/snapshots');
    const row = admin.getByTestId(`snapshot-${created}`);
    await row.getByTestId('snapshot-delete').click();
    await row.getByTestId('snapshot-delete-confirm').click();
    await until(() => rows(admin), []);
    expect(await names('/collections/alpha/snapshots')).toEqual([]);
  });

  it('should create and delete a shard snapshot and a full node snapshot', async () => {
    await admin.getByTestId('nav-snapshots').click();
    await admin.locator('select[name=scope-collection]').selectOption('alpha');
    await admin.locator('select[name=scope-shard] option[value="0"]').waitFor({ state: 'attached' });
    await admin.locator('select[name=scope-shard]').selectOption('0');
    await admin.getByText('Snapshots of shard 0 of alpha').waitFor();
    await admin.getByTestId('snapshot-create').click();
    await admin.getByTestId('snapshot-notice').waitFor();
    const [shardSnapshot] = await names('/collections/alpha/shards/0/snapshots');
    expect(shardSnapshot).toBeDefined();
    await until(() => rows(admin), [shardSnapshot]);
    await admin.getByTestId('snapshot-delete').click();
    await admin.getByTestId('snapshot-delete-confirm').click();
    await until(() => rows(admin), []);

    await admin.locator('select[name=scope-collection]').selectOption('');
    await admin.getByText('Snapshots of the whole node').waitFor();
    await admin.getByTestId('snapshot-create').click();
    await admin.getByTestId('snapshot-notice').waitFor();
    const [full] = await names('/snapshots');
    await until(() => rows(admin), [full]);
    const downloading = admin.waitForEvent('download');
    await admin.getByTestId('snapshot-download').click();
    expect((await downloading).suggestedFilename()).toBe(full);
    await admin.getByTestId('snapshot-delete').click();
    await admin.getByTestId('snapshot-delete-confirm').click();
    await until(() => rows(admin), []);
    expect(await names('/snapshots')).toEqual([]);
  });

  it('should let a reader with an rw grant create and delete its snapshots, but not restore; read-only elsewhere', async () => {
    const writer = await rig.signedIn(WRITER.email, WRITER.password, '#/collections/alpha/snapshots');
    try {
      await writer.getByTestId('snapshot-create').click();
      await writer.getByTestId('snapshot-notice').waitFor();
      const [created] = await names('/collections/alpha/snapshots');
      const row = writer.getByTestId(`snapshot-${created}`);
      await row.waitFor();
      await expect(row.getByTestId('snapshot-restore').count()).resolves.toBe(0);
      await expect(writer.getByTestId('snapshot-upload-form').count()).resolves.toBe(0);
      await row.getByTestId('snapshot-delete').click();
      await row.getByTestId('snapshot-delete-confirm').click();
      await until(() => rows(writer), []);

      await writer.goto(`${rig.server.httpUrl}/dashboard#/collections/beta/snapshots`);
      await writer.getByTestId('snapshots-table').waitFor();
      await expect(writer.getByTestId('snapshot-create').count()).resolves.toBe(0);
    } finally {
      await writer.context().close();
    }
  });
});
