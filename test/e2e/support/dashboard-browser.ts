import { isDeepStrictEqual } from 'node:util';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { httpJson, type HttpAnswer } from './auth-helpers';
import { launchChromium } from './chromium';
import { type RunningServer, startServer, type StartOptions } from './server-harness';

/**
 * One server and one browser for a dashboard screen's tests (dashboard-*.e2e-spec.ts): pages that record script
 * errors and Content-Security-Policy violations, sign-in, the API with the manage key, and a polling wait.
 */
export interface DashboardRig {
  server: RunningServer;
  browser: Browser;
  /** Script errors and CSP violations seen on any page opened through {@link DashboardRig.open}. */
  pageErrors: string[];
  api(method: string, route: string, body?: unknown, headers?: Record<string, string>): Promise<HttpAnswer>;
  open(context: BrowserContext, hash?: string): Promise<Page>;
  /** A fresh context and page signed in with email and password, at `hash` once the collections show. */
  signedIn(email: string, password: string, hash?: string): Promise<Page>;
  stop(): Promise<void>;
}

export async function startDashboardRig(executablePath: string, options: StartOptions = {}): Promise<DashboardRig> {
  const server = await startServer(options);
  const browser = await launchChromium(executablePath);
  const pageErrors: string[] = [];
  const rig: DashboardRig = {
    server,
    browser,
    pageErrors,
    api: (method, route, body, headers) =>
      httpJson(server.httpUrl, method, route, body, headers ?? { 'api-key': server.apiKey }),
    async open(context, hash = '') {
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      page.on('pageerror', (error) => pageErrors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error' && /Content[- ]Security[- ]Policy|Trusted ?Type/i.test(message.text()))
          pageErrors.push(message.text());
      });
      await page.goto(`${server.httpUrl}/dashboard${hash}`);
      await page.locator('body[data-ready=true]').waitFor();
      return page;
    },
    async signedIn(email, password, hash = '') {
      const page = await rig.open(await browser.newContext({ acceptDownloads: true }));
      await page.fill('input[name=email]', email);
      await page.fill('input[name=password]', password);
      await page.click('[data-testid=sign-in-form] button[type=submit]');
      await page.getByTestId('collections-table').waitFor();
      if (hash !== '') await page.goto(`${server.httpUrl}/dashboard${hash}`);
      return page;
    },
    async stop() {
      await browser.close().catch(() => undefined);
      await server.stop();
    },
  };
  return rig;
}

/** Waits until `read()` gives `expected` (deep equality), failing with the last value read. */
export async function until<T>(read: () => Promise<T>, expected: T, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (isDeepStrictEqual(value, expected)) return;
    if (Date.now() > deadline) return expect(value).toEqual(expected);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Records in the page whether an element matching `selector` was ever on screen (a progress bar that flashes). */
export async function watchFor(page: Page, selector: string): Promise<() => Promise<boolean>> {
  await page.evaluate((wanted) => {
    const flag = `seen:${wanted}`;
    (window as unknown as Record<string, boolean>)[flag] = false;
    new MutationObserver(() => {
      if (document.querySelector(wanted)) (window as unknown as Record<string, boolean>)[flag] = true;
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  }, selector);
  return () => page.evaluate((wanted) => (window as unknown as Record<string, boolean>)[`seen:${wanted}`], selector);
}
