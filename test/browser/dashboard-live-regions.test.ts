import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { dashboardAgent, dashboardNode, openDashboard } from './dashboard-node.ts';
import { browserSuite } from './chromium.ts';

/**
 * Counts, from now on, the writes to the content of the elements with these ids: a screen reader announces a live
 * region's text each time it is written, even with the same words.
 */
const countWrites = (page: Page, ids: string[]) =>
  page.evaluate((all) => {
    const counts: Record<string, number> = Object.fromEntries(all.map((id) => [id, 0]));
    (window as unknown as { planhubWrites: Record<string, number> }).planhubWrites = counts;
    for (const id of all)
      new MutationObserver((records) => (counts[id]! += records.length)).observe(document.getElementById(id)!, {
        childList: true,
        characterData: true,
        subtree: true,
      });
  }, ids);

const writes = (page: Page) =>
  page.evaluate(() => ({ ...(window as unknown as { planhubWrites: Record<string, number> }).planhubWrites }));

const lastDrawn = (page: Page) => page.locator('#app').getAttribute('data-last-event');

/** The page's live regions speak when something new happens, and only then. */
describe('the dashboard’s live regions', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  it('says a decision’s answer once, leaves it alone while events arrive, and takes it away later', async () => {
    const { url } = await dashboardNode(cleanups);
    const { page, errors } = await openDashboard(suite.browser, cleanups, url);
    const planner = await dashboardAgent(cleanups, url, 'planner');
    const worker = await dashboardAgent(cleanups, url, 'worker');
    await worker.createPlan({ title: 'Busy', steps: ['a', 'b', 'c'] });
    await worker.startPlan({ wait: false });
    await worker.plan_approve({});
    const rollOut = await planner.createPlan({ title: 'Roll out', steps: ['Canary'] });
    await planner.startPlan({ wait: false });
    // The worker's card can still be shown (the page may not have heard of its approval yet): press the planner's.
    await page.locator(`#approval--${rollOut.plan_id}--approve`).click();
    const notice = page.locator('#notice');
    await poll(() => notice.textContent()).not.toBe('');

    await countWrites(page, ['notice']);
    for (const step of ['step_1', 'step_2', 'step_3']) {
      const before = await lastDrawn(page);
      await worker.setStepStatus({ step_id: step, status: 'in_progress' });
      await poll(() => lastDrawn(page)).not.toBe(before);
    }
    expect(await writes(page)).toEqual({ notice: 0 });

    // Gone on its own after a while, and at once when the reader moves to another view.
    await poll(() => notice.textContent()).toBe('');
    const fixer = await dashboardAgent(cleanups, url, 'fixer');
    const rollBack = await fixer.createPlan({ title: 'Roll back', steps: ['Revert'] });
    await fixer.startPlan({ wait: false });
    await page.locator(`#approval--${rollBack.plan_id}--approve`).click();
    await poll(() => notice.textContent()).not.toBe('');
    await page.locator('nav a[data-view="graph"]').click();
    await poll(() => notice.textContent()).toBe('');
    expect(errors).toEqual([]);
  });

  it('writes the connection’s state once while the node stays down, not at each reconnection attempt', async () => {
    const node = await dashboardNode(cleanups);
    const { page } = await openDashboard(suite.browser, cleanups, node.url);
    await node.close();
    await page.locator('#connection.reconnecting').waitFor();
    await countWrites(page, ['connection', 'stale']);
    // The banner's age ticks each second: three ticks are three chances for the pill to be written again.
    await poll(async () => (await writes(page)).stale).toBeGreaterThanOrEqual(3);
    expect((await writes(page)).connection).toBe(0);
    expect(await page.locator('#connection').textContent()).toBe('reconnecting…');
  });
});
