import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';

/**
 * The Chromium to drive: the binary VECTORSTORE_TEST_CHROMIUM names (only that one, when set), else Debian's
 * (`apt-get install chromium`) at /usr/bin/chromium; undefined when it is not there.
 */
export function chromiumPath(): string | undefined {
  const wanted = process.env.VECTORSTORE_TEST_CHROMIUM || '/usr/bin/chromium';
  return existsSync(wanted) ? wanted : undefined;
}

/**
 * `describe` for browser tests. Without Chromium they fail under CI (any CI value but '', 'false' or '0') (a missing browser must not pass as
 * green) and otherwise are skipped with a warning on the console: never silently.
 */
export function describeInBrowser(name: string, body: (executablePath: string) => void): void {
  const executablePath = chromiumPath();
  if (executablePath !== undefined) {
    describe(name, () => body(executablePath));
    return;
  }
  const reason =
    "No Chromium: install Debian's (`apt-get install -y --no-install-recommends chromium`) or set VECTORSTORE_TEST_CHROMIUM";
  if (isCi()) {
    describe(name, () => {
      it('needs Chromium under CI=true', () => {
        throw new Error(`${reason}. Browser tests never skip under CI=true.`);
      });
    });
    return;
  }
  console.warn(`SKIPPING browser tests "${name}": ${reason}.`);
  describe.skip(name, () => body(''));
}

/** Headless Chromium from `executablePath`; no download, no sandbox (the tests run as root in CI). */
export function launchChromium(executablePath: string): Promise<Browser> {
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/** Whether this is a CI run: CI set to anything but '', 'false' or '0' (as the cluster suites decide). */
function isCi(): boolean {
  const ci = process.env.CI;
  return ci !== undefined && ci !== '' && ci !== 'false' && ci !== '0';
}
