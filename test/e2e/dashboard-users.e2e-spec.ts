// The dashboard's Users screen (issue 26, part 2) in headless Chromium against the real server: an administrator
// creates a reader granted one collection, who then signs in and sees only that collection; grants, role, password
// and activation change through the screen, the server's 400/409/412 messages shown as they came; readers never see
// the screen, and the users API refuses them.
import { isDeepStrictEqual } from 'node:util';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { httpJson } from './support/auth-helpers';
import { describeInBrowser, launchChromium } from './support/chromium';
import { RunningServer, startServer } from './support/server-harness';

jest.setTimeout(120_000);

const ANN = { email: 'ann@example.com', name: 'Ann Reader', password: 'ann-password-1234' };
const READER = { email: 'reader@example.com', password: 'reader-password-1' };

interface UserBody {
  id: string;
  email: string;
  role: string;
  collections?: { collection: string; access: string }[];
  is_active: boolean;
}

describeInBrowser('dashboard: users screen (e2e)', (executablePath) => {
  let server: RunningServer;
  let browser: Browser;
  let adminContext: BrowserContext;
  let admin: Page;
  const pageErrors: string[] = [];

  const api = (method: string, route: string, body?: unknown) =>
    httpJson(server.httpUrl, method, route, body, { 'api-key': server.apiKey });
  const usersByApi = async (): Promise<UserBody[]> =>
    ((await api('GET', '/api/auth/users')).body as { users: UserBody[] }).users;

  async function open(context: BrowserContext, hash = ''): Promise<Page> {
    const opened = await context.newPage();
    opened.on('pageerror', (error) => pageErrors.push(error.message));
    opened.on('console', (message) => {
      if (message.type() === 'error' && /Content[- ]Security[- ]Policy/i.test(message.text()))
        pageErrors.push(message.text());
    });
    await opened.goto(`${server.httpUrl}/dashboard${hash}`);
    await opened.locator('body[data-ready=true]').waitFor();
    return opened;
  }

  async function signIn(target: Page, email: string, password: string): Promise<void> {
    await target.fill('input[name=email]', email);
    await target.fill('input[name=password]', password);
    await target.click('[data-testid=sign-in-form] button[type=submit]');
  }

  /** The access token a page sends, read off its next API request (the page keeps it in memory only). */
  async function accessTokenOf(target: Page): Promise<string> {
    const sent = target.waitForRequest((r) => r.headers().authorization !== undefined);
    await target.reload();
    return ((await sent).headers().authorization ?? '').replace(/^Bearer /, '');
  }

  /**
   * Waits until `read()` gives `expected`, failing with the last value: the list reloads after each change, and a
   * read of several elements is two steps (find, then read), so it can catch the list in the middle of an update.
   */
  async function until<T>(read: () => Promise<T>, expected: T, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (isDeepStrictEqual(value, expected)) return;
      if (Date.now() > deadline) return expect(value).toEqual(expected);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const row = (email: string): Locator => admin.getByTestId(`user-row-${email}`);
  const panel = (email: string): Locator => admin.getByTestId(`user-panel-${email}`);
  const grantsOf = (email: string): Promise<string[]> =>
    row(email).locator('[data-testid=user-grants] li').allTextContents();

  beforeAll(async () => {
    server = await startServer();
    for (const name of ['alpha', 'beta']) {
      const created = await api('PUT', `/collections/${name}`, { vectors: { size: 4, distance: 'Cosine' } });
      expect(created.status).toBe(200);
    }
    const reader = await api('POST', '/api/auth/users', { ...READER, role: 'reader' });
    expect(reader.status).toBe(201);
    browser = await launchChromium(executablePath);
    adminContext = await browser.newContext();
    admin = await open(adminContext);
    await signIn(admin, server.adminEmail, server.adminPassword);
    await admin.getByTestId('collections-table').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  afterEach(() => {
    // No script error and no Content-Security-Policy violation on any page.
    expect(pageErrors.splice(0)).toEqual([]);
  });

  it('should show an admin the Users screen in the navigation, listing the users', async () => {
    await admin.getByTestId('nav-users').click();
    await row(server.adminEmail).waitFor();
    expect(admin.url()).toMatch(/#\/users$/);
    await expect(admin.getByTestId('nav-users').getAttribute('aria-current')).resolves.toBe('page');
    await expect(row(server.adminEmail).locator('select[name=role]').inputValue()).resolves.toBe('admin');
    await expect(row(server.adminEmail).textContent()).resolves.toContain('every collection (manage)');
    await expect(row(server.adminEmail).locator('.badge').textContent()).resolves.toBe('you');
    await expect(row(READER.email).textContent()).resolves.toContain('every collection (read)');
    await until(() => row(READER.email).getByTestId('user-active').textContent(), 'active');
  });

  it('should show the server messages next to the fields (400, 409), creating nothing', async () => {
    const form = admin.getByTestId('create-user-form');
    await form.locator('input[name=email]').fill('not-an-email');
    await form.locator('input[name=password]').fill(ANN.password);
    await form.locator('button[type=submit]').click();
    await expect(admin.getByTestId('error-new-email').textContent()).resolves.toBe(
      'Validation error in body: [email: must be a valid email address]',
    );
    await form.locator('input[name=email]').fill(ANN.email);
    await form.locator('input[name=password]').fill('short');
    await form.locator('button[type=submit]').click();
    await expect(admin.getByTestId('error-new-password').textContent()).resolves.toBe(
      'Validation error in body: [password: must be at least 12 characters]',
    );
    await expect(admin.getByTestId('error-new-email').count()).resolves.toBe(0);
    await form.locator('input[name=email]').fill(READER.email);
    await form.locator('input[name=password]').fill(ANN.password);
    await form.locator('button[type=submit]').click();
    await expect(admin.getByTestId('error-new-email').textContent()).resolves.toBe(
      `User ${READER.email} already exists`,
    );
    expect((await usersByApi()).map((u) => u.email)).toEqual([server.adminEmail, READER.email]);
  });

  it('should create a reader with a grant on one collection, and list it', async () => {
    const form = admin.getByTestId('create-user-form');
    await form.locator('input[name=email]').fill(ANN.email);
    await form.locator('input[name=full_name]').fill(ANN.name);
    await form.locator('input[name=password]').fill(ANN.password);
    await expect(form.locator('select[name=role]').inputValue()).resolves.toBe('reader');
    // The collections offered are the ones the server lists.
    await expect(form.locator('select[name=grant-collection] option').allTextContents()).resolves.toEqual([
      'alpha',
      'beta',
    ]);
    await form.locator('select[name=grant-collection]').selectOption('alpha');
    await form.locator('select[name=grant-new-access]').selectOption('r');
    await form.getByTestId('grant-add').click();
    await form.getByTestId('grant-alpha').waitFor();
    await expect(form.locator('select[name=grant-collection] option').allTextContents()).resolves.toEqual(['beta']);
    await form.locator('button[type=submit]').click();
    await expect(admin.getByTestId('create-user-notice').textContent()).resolves.toBe(`Created ${ANN.email}.`);

    await row(ANN.email).waitFor();
    await expect(row(ANN.email).locator('td').nth(1).textContent()).resolves.toBe(ANN.name);
    await expect(row(ANN.email).locator('select[name=role]').inputValue()).resolves.toBe('reader');
    await until(() => grantsOf(ANN.email), ['alpha r']);
    await until(() => row(ANN.email).getByTestId('user-active').textContent(), 'active');
    // The form is empty again, its grants too.
    await expect(form.locator('input[name=email]').inputValue()).resolves.toBe('');
    await expect(form.locator('input[name=password]').inputValue()).resolves.toBe('');
    await expect(form.locator('[data-testid^=grant-alpha]').count()).resolves.toBe(0);

    const ann = (await usersByApi()).find((u) => u.email === ANN.email);
    expect(ann).toMatchObject({ role: 'reader', is_active: true, collections: [{ collection: 'alpha', access: 'r' }] });
  });

  it('should let the new user sign in and see only the granted collection, without the Users screen', async () => {
    const annContext = await browser.newContext();
    try {
      const ann = await open(annContext);
      await signIn(ann, ANN.email, ANN.password);
      await ann.getByTestId('collection-row-alpha').waitFor();
      await expect(ann.locator('[data-testid=collections-table] tbody tr').count()).resolves.toBe(1);
      await expect(ann.getByTestId('collection-row-beta').count()).resolves.toBe(0);
      await expect(ann.getByTestId('read-only-badge').isVisible()).resolves.toBe(true);
      await expect(ann.getByTestId('nav-users').count()).resolves.toBe(0);
      // A user limited to collections has no global access: the users API refuses it.
      const token = await accessTokenOf(ann);
      const refused = await httpJson(server.httpUrl, 'GET', '/api/auth/users', undefined, {
        authorization: `Bearer ${token}`,
      });
      expect(refused.status).toBe(403);
    } finally {
      await annContext.close();
    }
  });

  it('should edit the grants: add a collection with rw, change its access, remove one', async () => {
    await row(ANN.email).getByTestId('edit-grants').click();
    const editor = panel(ANN.email).getByTestId('grants-panel');
    await editor.locator('select[name=grant-collection]').selectOption('beta');
    await editor.locator('select[name=grant-new-access]').selectOption('rw');
    await editor.getByTestId('grant-add').click();
    await editor.getByTestId('save-grants').click();
    await expect(panel(ANN.email).getByTestId('user-notice').textContent()).resolves.toBe(
      `Collection grants of ${ANN.email} saved.`,
    );
    await until(() => grantsOf(ANN.email), ['alpha r', 'beta rw']);
    expect((await usersByApi()).find((u) => u.email === ANN.email)?.collections).toEqual([
      { collection: 'alpha', access: 'r' },
      { collection: 'beta', access: 'rw' },
    ]);

    await row(ANN.email).getByTestId('edit-grants').click();
    await editor.getByTestId('grant-alpha').locator('select[name=grant-access]').selectOption('rw');
    await editor.getByTestId('grant-remove-beta').click();
    await editor.getByTestId('grant-beta').waitFor({ state: 'detached' });
    await editor.getByTestId('save-grants').click();
    await expect(panel(ANN.email).getByTestId('user-notice').textContent()).resolves.toBe(
      `Collection grants of ${ANN.email} saved.`,
    );
    await until(() => grantsOf(ANN.email), ['alpha rw']);
    expect((await usersByApi()).find((u) => u.email === ANN.email)?.collections).toEqual([
      { collection: 'alpha', access: 'rw' },
    ]);
  });

  it("should show the server's 412 when the last active admin would be demoted, keeping the role", async () => {
    await row(server.adminEmail).locator('select[name=role]').selectOption('reader');
    await expect(panel(server.adminEmail).getByTestId('user-error').textContent()).resolves.toBe(
      `Failed precondition: ${server.adminEmail} is the last active admin; make another user admin first`,
    );
    await expect(row(server.adminEmail).locator('select[name=role]').inputValue()).resolves.toBe('admin');
    await row(server.adminEmail).getByTestId('deactivate').click();
    await row(server.adminEmail).getByTestId('deactivate-confirm').click();
    await expect(panel(server.adminEmail).getByTestId('user-error').textContent()).resolves.toContain(
      'is the last active admin',
    );
    await until(() => row(server.adminEmail).getByTestId('user-active').textContent(), 'active');
    // Still an admin, still on the Users screen.
    await expect(admin.getByTestId('nav-users').isVisible()).resolves.toBe(true);
  });

  it('should change the role: a reader made admin and back', async () => {
    await row(READER.email).locator('select[name=role]').selectOption('admin');
    await expect(panel(READER.email).getByTestId('user-notice').textContent()).resolves.toBe(
      `${READER.email} is now an admin.`,
    );
    await row(READER.email).getByText('every collection (manage)').waitFor();
    await expect(row(READER.email).getByTestId('edit-grants').count()).resolves.toBe(0);
    expect((await usersByApi()).find((u) => u.email === READER.email)?.role).toBe('admin');
    await row(READER.email).locator('select[name=role]').selectOption('reader');
    await expect(panel(READER.email).getByTestId('user-notice').textContent()).resolves.toBe(
      `${READER.email} is now a reader.`,
    );
    await row(READER.email).getByText('every collection (read)').waitFor();
    expect((await usersByApi()).find((u) => u.email === READER.email)?.role).toBe('reader');
  });

  it("should reset a password: the server's rule shown at the field, then the new one signs in", async () => {
    await row(ANN.email).getByTestId('reset-password').click();
    const form = panel(ANN.email).getByTestId('reset-password-form');
    await form.locator('input[name=new-password]').fill('too-short');
    await form.locator('button[type=submit]').click();
    await expect(panel(ANN.email).getByTestId('error-reset-password').textContent()).resolves.toBe(
      'Validation error in body: [password: must be at least 12 characters]',
    );
    await form.locator('input[name=new-password]').fill('ann-new-password-99');
    await form.locator('button[type=submit]').click();
    await expect(panel(ANN.email).getByTestId('user-notice').textContent()).resolves.toBe(
      `New password set for ${ANN.email}; its sessions have ended.`,
    );
    expect(
      (await httpJson(server.httpUrl, 'POST', '/api/auth/login', { email: ANN.email, password: ANN.password })).status,
    ).toBe(401);
    expect(
      (
        await httpJson(server.httpUrl, 'POST', '/api/auth/login', {
          email: ANN.email,
          password: 'ann-new-password-99',
        })
      ).status,
    ).toBe(200);
    ANN.password = 'ann-new-password-99';
  });

  it('should deactivate the user: its open session ends and sign-in is refused; activate brings it back', async () => {
    const annContext = await browser.newContext();
    try {
      const ann = await open(annContext);
      await signIn(ann, ANN.email, ANN.password);
      await ann.getByTestId('collection-row-alpha').waitFor();

      await row(ANN.email).getByTestId('deactivate').click();
      await row(ANN.email).getByTestId('deactivate-confirm').click();
      await expect(panel(ANN.email).getByTestId('user-notice').textContent()).resolves.toBe(
        `${ANN.email} is deactivated; its sessions have ended.`,
      );
      await until(() => row(ANN.email).getByTestId('user-active').textContent(), 'inactive');
      expect((await usersByApi()).find((u) => u.email === ANN.email)?.is_active).toBe(false);

      // The open page is signed out at its next call; signing in again is refused.
      await ann.goto(`${server.httpUrl}/dashboard#/cluster`);
      await ann.getByTestId('sign-in-form').waitFor();
      await signIn(ann, ANN.email, ANN.password);
      await expect(ann.getByTestId('sign-in-error').textContent()).resolves.toBe('Invalid email or password');

      await row(ANN.email).getByTestId('activate').click();
      await until(() => row(ANN.email).getByTestId('user-active').textContent(), 'active');
      await signIn(ann, ANN.email, ANN.password);
      await ann.getByTestId('who').waitFor();
      await expect(ann.getByTestId('who').textContent()).resolves.toContain(ANN.email);
    } finally {
      await annContext.close();
    }
  });

  it('should turn the screens read-only at once for an admin who demotes themselves', async () => {
    const id = (await usersByApi()).find((u) => u.email === READER.email)?.id ?? '';
    expect((await api('PATCH', `/api/auth/users/${id}`, { role: 'admin' })).status).toBe(200);
    const selfContext = await browser.newContext();
    try {
      const self = await open(selfContext, '#/users');
      await signIn(self, READER.email, READER.password);
      const own = self.getByTestId(`user-row-${READER.email}`);
      await own.locator('.badge').waitFor();
      await own.locator('select[name=role]').selectOption('reader');
      // The session reads /api/auth/me again: no Users screen, read-only badge, no write controls.
      await self.getByTestId('users-admins-only').waitFor();
      await expect(self.getByTestId('nav-users').count()).resolves.toBe(0);
      await expect(self.getByTestId('read-only-badge').isVisible()).resolves.toBe(true);
      expect((await usersByApi()).find((u) => u.email === READER.email)?.role).toBe('reader');
    } finally {
      await selfContext.close();
    }
  });

  it('should not show a reader the Users screen, and the users API answers it 403', async () => {
    const readerContext = await browser.newContext();
    try {
      const reader = await open(readerContext);
      await signIn(reader, READER.email, READER.password);
      await reader.getByTestId('collection-row-beta').waitFor();
      await expect(reader.getByTestId('nav-users').count()).resolves.toBe(0);
      // Typed in by hand, the route explains instead of calling the API.
      await reader.goto(`${server.httpUrl}/dashboard#/users`);
      await reader.getByTestId('users-admins-only').waitFor();
      await expect(reader.getByTestId('users-table').count()).resolves.toBe(0);
      const token = await accessTokenOf(reader);
      const bearer = { authorization: `Bearer ${token}` };
      const listed = await httpJson(server.httpUrl, 'GET', '/api/auth/users', undefined, bearer);
      expect(listed.status).toBe(403);
      expect(listed.body).toMatchObject({ status: { error: 'Forbidden: Global manage access is required' } });
      const created = await httpJson(
        server.httpUrl,
        'POST',
        '/api/auth/users',
        { email: 'sneaky@example.com', password: 'sneaky-password-1' },
        bearer,
      );
      expect(created.status).toBe(403);
      expect((await usersByApi()).map((u) => u.email)).not.toContain('sneaky@example.com');
    } finally {
      await readerContext.close();
    }
  });

  it('should show the Users screen to the manage API key and not to the read-only key', async () => {
    const keyContext = await browser.newContext();
    try {
      const keyPage = await open(keyContext);
      await keyPage.getByTestId('api-key-tab').click();
      await keyPage.fill('input[name=api-key]', server.readOnlyApiKey);
      await keyPage.click('[data-testid=sign-in-form] button[type=submit]');
      await keyPage.getByTestId('read-only-badge').waitFor();
      await expect(keyPage.getByTestId('nav-users').count()).resolves.toBe(0);
      await keyPage.getByTestId('sign-out').click();
      await keyPage.getByTestId('api-key-tab').click();
      await keyPage.fill('input[name=api-key]', server.apiKey);
      await keyPage.click('[data-testid=sign-in-form] button[type=submit]');
      await keyPage.getByTestId('nav-users').click();
      await keyPage.getByTestId(`user-row-${ANN.email}`).waitFor();
      // An API key is no user: no row is marked as the signed-in one.
      await expect(keyPage.locator('[data-testid=users-table] .badge').count()).resolves.toBe(0);
    } finally {
      await keyContext.close();
    }
  });
});
