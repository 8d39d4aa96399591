import { expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { browserSuite } from './chromium.ts';
import { dashboardNode } from './dashboard-node.ts';

const suite = browserSuite();

/**
 * A node whose Redis serves calls but refuses its event subscription answers /readyz 503 `store_events_down`
 * (test/chaos/subscriber-refused.test.ts). The page knew only "unreachable" and "full", so it said "live" while
 * other agents' events reached it late.
 */
it('says events are delayed while the node reports its event feed down, and live once it is back', async () => {
  const { url } = await dashboardNode(suite.cleanups);
  const page = await suite.browser.newPage({ viewport: { width: 1280, height: 860 } });
  suite.cleanups.push(() => page.close());
  let eventsDown = true;
  await page.route('**/readyz', (route) =>
    eventsDown
      ? route.fulfill({
          status: 503,
          contentType: 'application/json',
          body: JSON.stringify({
            status: 'unavailable',
            reason: 'store_events_down',
            message: "Redis answers, but this node's event subscription to it is down: calls work.",
          }),
        })
      : route.continue(),
  );
  await page.goto(`${url}/dashboard?workspace=ws&agent=alice&role=user`);
  const chrome = async () => ({
    pill: await page.locator('#connection').textContent(),
    title: await page.title(),
    icon: await page.locator('link[rel="icon"]').getAttribute('data-state'),
  });
  await poll(chrome).toEqual({ pill: 'events delayed', title: 'Events delayed · PlanHub · ws', icon: 'store-events' });
  expect(await page.locator('#stale').textContent()).toMatch(/event feed from its store is down since .*work/);
  eventsDown = false;
  await poll(chrome).toEqual({ pill: 'live', title: 'PlanHub · ws', icon: 'quiet' });
  expect(await page.locator('#stale').isHidden()).toBe(true);
});
