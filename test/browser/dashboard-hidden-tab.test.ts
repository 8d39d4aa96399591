import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { browserSuite, watchPageErrors } from './chromium.ts';
import { dashboardAgent, dashboardNode } from './dashboard-node.ts';

declare global {
  interface Window {
    hideTab(): void;
    showTab(): void;
  }
}

/**
 * A page Playwright drives is always visible. This makes it hidden on demand as a background tab is: `hidden` true,
 * and no animation frame runs (callbacks wait, as Chromium's do, until the tab is shown again).
 */
const emulateBackgroundTab = () => {
  let hidden = false;
  let held: FrameRequestCallback[] = [];
  const frame = window.requestAnimationFrame.bind(window);
  Object.defineProperty(document, 'hidden', { get: () => hidden });
  Object.defineProperty(document, 'visibilityState', { get: () => (hidden ? 'hidden' : 'visible') });
  window.requestAnimationFrame = (callback) => (hidden ? held.push(callback) + 1_000_000 : frame(callback));
  const switchTo = (nowHidden: boolean) => {
    hidden = nowHidden;
    document.dispatchEvent(new Event('visibilitychange'));
    if (hidden) return;
    const due = held;
    held = [];
    for (const callback of due) frame(callback);
  };
  window.hideTab = () => switchTo(true);
  window.showTab = () => switchTo(false);
};

const iconState = (page: Page) => page.locator('link[rel="icon"]').getAttribute('data-state');

/** docs/dashboard.md "Background tab": the title and icon follow decisions and the connection in a hidden tab. */
describe('the dashboard in a background tab', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  it('keeps its title and icon current while hidden, and draws everything once shown', async () => {
    const node = await dashboardNode(cleanups);
    const page = await suite.browser.newPage({ viewport: { width: 1280, height: 860 } });
    cleanups.push(() => page.close());
    const errors = watchPageErrors(page);
    await page.addInitScript(emulateBackgroundTab);
    await page.goto(`${node.url}/dashboard?workspace=ws&agent=alice&role=user`);
    await page.locator('#connection.live').waitFor();
    await poll(() => page.title()).toBe('PlanHub · ws');

    await page.evaluate(() => window.hideTab());
    const planner = await dashboardAgent(cleanups, node.url, 'planner');
    const { plan_id } = await planner.createPlan({ title: 'Ship', steps: ['Build'] });
    await planner.startPlan({ wait: false });
    await poll(() => page.title()).toBe('(1) PlanHub · ws');
    expect(await iconState(page)).toBe('waiting');
    // No frame ran: the sections still show the page as it was when hidden.
    expect(await page.locator(`.approval[data-plan-id="${plan_id}"]`).count()).toBe(0);

    await page.evaluate(() => window.showTab());
    await page.locator(`.approval[data-plan-id="${plan_id}"] button.approve`).waitFor();

    await page.evaluate(() => window.hideTab());
    await node.close();
    await poll(() => page.title()).toBe('(1) Disconnected · PlanHub · ws');
    expect(await iconState(page)).toBe('disconnected');
    expect(await page.locator('#connection.live').count()).toBe(1);

    await page.evaluate(() => window.showTab());
    await page.locator('#connection.reconnecting').waitFor();
    await page.locator('#stale:not([hidden])').waitFor();
    // The browser's own report of the refused reconnections; the page itself threw nothing.
    expect(errors.filter((e) => !e.includes('WebSocket'))).toEqual([]);
  });
});
