import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll } from 'vitest';

/** The system's Chromium (Debian package `chromium`); a browser is never downloaded. */
export const CHROMIUM = '/usr/bin/chromium';

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });

/**
 * One Chromium for a describe block's tests, and each test's cleanups (servers, clients, pages), run after it, last
 * first. Call it in the describe block.
 */
export const browserSuite = () => {
  let launched: Browser | undefined;
  const cleanups: (() => Promise<unknown> | void)[] = [];
  beforeAll(async () => {
    launched = await launchChromium();
  });
  afterAll(async () => {
    await launched?.close();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  return {
    cleanups,
    get browser(): Browser {
      if (!launched) throw new Error('Chromium is launched in beforeAll: use the browser inside a test');
      return launched;
    },
  };
};

export const ARTIFACTS = new URL('../artifacts/', import.meta.url).pathname;

/** Screenshots of the main views, kept as test artifacts (test/artifacts is not committed). */
export const screenshot = async (page: Page, name: string): Promise<void> => {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });
};

/** Fails the test on any error the page throws or logs, instead of letting a broken view pass unnoticed. */
export const watchPageErrors = (page: Page): string[] => {
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(msg.text());
  });
  return errors;
};
