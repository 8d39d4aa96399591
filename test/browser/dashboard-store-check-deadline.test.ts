import type { Route } from 'playwright-core';
import { it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { browserSuite } from './chromium.ts';
import { dashboardNode } from './dashboard-node.ts';

const suite = browserSuite();

/**
 * The page asks /readyz every 5 s while its socket is up, one request at a time. A request that never ended (held
 * by a proxy, or by a node frozen mid-answer) stopped every later check, so the page said "live" for good while the
 * node could not reach its store.
 */
it('gives up a store check that never ends, and the next check reports the store', async () => {
  const { url } = await dashboardNode(suite.cleanups);
  const page = await suite.browser.newPage({ viewport: { width: 1280, height: 860 } });
  suite.cleanups.push(() => page.close());
  const held: Route[] = [];
  suite.cleanups.push(() => Promise.all(held.map((route) => route.abort().catch(() => undefined))));
  await page.route('**/readyz', async (route) => {
    // The first check hangs for good; every later one says the store is unreachable.
    if (held.length === 0) return void held.push(route);
    await route.fulfill({
      status: 503,
      contentType: 'application/json',
      body: JSON.stringify({
        status: 'unavailable',
        reason: 'store_unreachable',
        message: 'Redis is unreachable; calls answer UNAVAILABLE until it is back.',
      }),
    });
  });
  await page.goto(`${url}/dashboard?workspace=ws&agent=alice&role=user`);
  await poll(() => held.length).toBe(1);
  await poll(() => page.locator('#connection').textContent()).toBe('store unreachable');
});
