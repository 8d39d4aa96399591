import type { ServerConfigInput } from '@planhub/server';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { dashboardAgent, dashboardNode, openDashboard } from './dashboard-node.ts';
import { browserSuite } from './chromium.ts';
import { seriousA11yFindings } from './dashboard-checks.ts';

/** Where the keyboard focus is: the focused element's id, or its tag when it has none ("body" once it is lost). */
const focusOf = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    return el?.id || el?.tagName.toLowerCase();
  });

/** A keyboard user's focus after what they pressed changes the page: kept, or moved to the next place to act. */
describe('the dashboard’s keyboard focus', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  const start = async (config: ServerConfigInput = {}) => (await dashboardNode(cleanups, config)).url;
  const agent = (url: string, agentId: string) => dashboardAgent(cleanups, url, agentId);
  const open = (url: string, hash = '') => openDashboard(suite.browser, cleanups, url, { hash });

  it('moves to the next card’s Approve after a decision from the keyboard, and to the heading after the last', async () => {
    const url = await start();
    const { page, errors } = await open(url);
    const planner = await agent(url, 'planner');
    const cleaner = await agent(url, 'cleaner');
    const first = await planner.createPlan({ title: 'Roll out', steps: ['Canary'] });
    await planner.startPlan({ wait: false });
    const second = await cleaner.createPlan({ title: 'Clean up', steps: ['Drop the old table'] });
    await cleaner.startPlan({ wait: false });
    const cards = page.locator('.approval');
    await poll(() => cards.evaluateAll((all) => all.map((c) => c.getAttribute('data-plan-id')))).toEqual([
      first.plan_id,
      second.plan_id,
    ]);

    await cards.first().locator('button.approve').focus();
    await page.keyboard.press('Enter');
    await poll(() => cards.count()).toBe(1);
    await poll(() => focusOf(page)).toBe(`approval--${second.plan_id}--approve`);

    await page.keyboard.press('Shift+Tab');
    await page.keyboard.type('not today');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await focusOf(page)).toBe(`approval--${second.plan_id}--reject`);
    await page.keyboard.press('Enter');
    await poll(() => cards.count()).toBe(0);
    await poll(() => focusOf(page)).toBe('approvals-h');
    expect((await planner.getPlanStatus({ plan_id: first.plan_id })).status).toBe('in_progress');
    expect((await cleaner.getPlanStatus({ plan_id: second.plan_id })).status).toBe('rejected');
    expect(errors).toEqual([]);
  });

  it('focuses the heading of a plan page the dashboard had not loaded yet once it is drawn', async () => {
    const url = await start({ approvalPolicy: 'auto' });
    const worker = await agent(url, 'worker');
    const { plan_id } = await worker.createPlan({ title: 'Implement login', steps: ['Write', 'Test'] });
    await worker.startPlan({});
    const { page, errors } = await open(url);
    const link = page.locator(`.plan[data-plan-id="${plan_id}"] h4 a`);
    await link.focus();
    await page.keyboard.press('Enter');
    await poll(() => page.locator('#page-h').textContent()).toBe('Implement login');
    await poll(() => focusOf(page)).toBe('page-h');

    // And a page it has loaded, as before: back to the overview, then to it again.
    await page.goBack();
    await poll(() => page.locator('#app').getAttribute('data-view')).toBe('overview');
    await link.focus();
    await page.keyboard.press('Enter');
    await poll(() => focusOf(page)).toBe('page-h');
    expect(errors).toEqual([]);
  });

  it('keeps the focus on “Load older” while it loads, and on the note that replaces it at the oldest event', async () => {
    const url = await start({ approvalPolicy: 'auto' });
    const worker = await agent(url, 'worker');
    // More events than the page reads on load (100), so "Load older" reads pages from the server.
    await worker.createPlan({ title: 'Many parts', steps: Array.from({ length: 70 }, (_, i) => `Part ${i + 1}`) });
    await worker.startPlan({});
    for (let i = 1; i <= 70; i++) {
      await worker.setStepStatus({ step_id: `step_${i}`, status: 'in_progress' });
      await worker.setStepStatus({ step_id: `step_${i}`, status: 'completed' });
    }
    const { page, errors } = await open(url, '#/ws/ws/events');
    const count = page.locator('#feed-count');
    await poll(() => count.textContent()).toBe('Showing all 100 matching events loaded.');

    await page.locator('#feed-older').focus();
    for (let press = 0; press < 5 && (await page.locator('#feed-end').count()) === 0; press++) {
      const before = await count.textContent();
      expect(await focusOf(page)).toBe('feed-older');
      await page.keyboard.press('Enter');
      await poll(
        async () => (await count.textContent()) !== before || (await page.locator('#feed-end').count()) > 0,
      ).toBe(true);
      await poll(() => page.locator('#feed-older[aria-disabled="true"]').count()).toBe(0);
      expect(['feed-older', 'feed-end']).toContain(await focusOf(page));
    }
    expect(await page.locator('#feed-end').count()).toBe(1);
    expect(await focusOf(page)).toBe('feed-end');
    expect(await count.textContent()).toMatch(/^Showing all 1\d\d matching events loaded\.$/);
    expect(errors).toEqual([]);
  });

  it('keeps a finished plan’s fold one control: its page link opens with it, not inside its summary', async () => {
    const url = await start({ approvalPolicy: 'auto' });
    const worker = await agent(url, 'worker');
    const done = await worker.createPlan({ title: 'Shipped', steps: ['one'] });
    await worker.startPlan({});
    await worker.completePlan({ status: 'completed', summary: 'done' });
    await worker.createPlan({ title: 'Next', steps: ['two'] });
    const { page, errors } = await open(url);
    const fold = page.locator(`details.plan.finished[data-plan-id="${done.plan_id}"]`);
    await fold.waitFor();
    expect(await fold.locator('summary a').count()).toBe(0);
    expect(await seriousA11yFindings(page)).toEqual([]);
    await fold.locator('summary').click();
    await fold.locator('a.plan-link').click();
    await poll(() => page.locator('#app').getAttribute('data-view')).toBe('plan');
    expect(errors).toEqual([]);
  });
});
