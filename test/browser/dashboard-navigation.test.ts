import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { startHarness, type Harness } from '../helpers/servers.ts';
import { browserSuite, watchPageErrors } from './chromium.ts';
import { seriousA11yFindings } from './dashboard-checks.ts';

/** Moving around the page by keyboard and by address: the skip link and hashes the router cannot read. */
describe('dashboard navigation in Chromium', () => {
  const suite = browserSuite();
  let h: Harness;
  const errors: string[][] = [];

  beforeAll(async () => {
    h = await startHarness('memory', { approvalPolicy: 'auto' });
  });
  afterAll(async () => {
    await h.close();
  });
  afterEach(() => {
    expect(errors.splice(0).flat()).toEqual([]);
  });

  const open = async (hash: string) => {
    const page = await suite.browser.newPage({ viewport: { width: 1280, height: 860 } });
    suite.cleanups.push(() => page.close());
    errors.push(watchPageErrors(page));
    await page.goto(`${h.url}/dashboard?workspace=ws&agent=board${hash}`);
    await page.locator('#connection.live').waitFor();
    return page;
  };
  const view = (page: Page) => page.locator('#app').getAttribute('data-view');

  it('skips to the main content of the view it is on, keeping the route, and passes axe’s skip-link rule there', async () => {
    for (const [hash, name] of [
      ['#/ws/ws/graph', 'graph'],
      ['#/ws/ws/timeline', 'timeline'],
      ['#/ws/ws', 'overview'],
    ] as const) {
      const page = await open(hash);
      await poll(() => view(page)).toBe(name);
      expect(await seriousA11yFindings(page), name).toEqual([]);
      await page.keyboard.press('Tab');
      expect(await page.evaluate(() => document.activeElement?.className)).toBe('skip');
      await page.keyboard.press('Enter');
      await poll(() => page.evaluate(() => document.activeElement?.id)).toBe('main');
      expect(await page.evaluate(() => window.location.hash)).toBe(hash);
      expect(await view(page)).toBe(name);
    }
  });

  it('shows the overview for a hash with a malformed escape and still follows later hashes', async () => {
    const page = await open('#/ws/ws/plan/%E0%A4%A');
    await poll(() => view(page)).toBe('overview');
    await page.evaluate(() => (window.location.hash = '#/ws/ws/plan/%'));
    await page.evaluate(() => (window.location.hash = '#/ws/ws/graph'));
    await poll(() => view(page)).toBe('graph');
    await page.evaluate(() => (window.location.hash = '#/ws/ws/events'));
    await poll(() => view(page)).toBe('events');
  });
});
