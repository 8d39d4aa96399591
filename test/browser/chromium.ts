import { mkdirSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

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
