import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { browserSuite, watchPageErrors } from './chromium.ts';
import { dashboardAgent, dashboardNode, openDashboard } from './dashboard-node.ts';

const focused = (page: Page) => page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName);

/** What names the view (the tab's title) and where the focus lands on arriving at it, however the reader came. */
describe('dashboard views: title, focus and links to other workspaces', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  it('names the view, plan or step in the tab title', async () => {
    const node = await dashboardNode(cleanups);
    const { page, errors } = await openDashboard(suite.browser, cleanups, node.url);
    const planner = await dashboardAgent(cleanups, node.url, 'planner');
    const { plan_id } = await planner.createPlan({ title: 'Ship 4.4', steps: ['Build'] });
    await poll(() => page.locator(`.plan[data-plan-id="${plan_id}"]`).count()).toBe(1);
    await poll(() => page.title()).toBe('PlanHub · ws');
    await page.evaluate(() => (window.location.hash = '#/ws/ws/events'));
    await poll(() => page.title()).toBe('Events · PlanHub · ws');
    await page.evaluate((id) => (window.location.hash = `#/ws/ws/plan/${id}`), plan_id);
    await poll(() => page.title()).toBe('Plan “Ship 4.4” · PlanHub · ws');
    await page.evaluate((id) => (window.location.hash = `#/ws/ws/plan/${id}/step/step_1`), plan_id);
    await poll(() => page.title()).toBe('step_1 of “Ship 4.4” · PlanHub · ws');
    expect(errors).toEqual([]);
  });

  it('shows bidi and control characters of a title or workspace name in the tab title, not their effect', async () => {
    const node = await dashboardNode(cleanups);
    const planner = await dashboardAgent(cleanups, node.url, 'planner');
    const { plan_id } = await planner.createPlan({ title: 'Pay \u202Eevorppa\u202C ok', steps: ['Build'] });
    const { page, errors } = await openDashboard(suite.browser, cleanups, node.url, {
      hash: `#/ws/ws/plan/${plan_id}`,
    });
    await page.locator('#page-h').waitFor();
    // A U+202E left as is would show "Pay approve ok" in the tab; an unclosed one reverses the rest of the title.
    await poll(() => page.title()).toMatch(/^Plan “Pay .*evorppa.* ok” · PlanHub · ws$/);
    expect(await page.title()).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    await page.evaluate(() => (window.location.hash = '#/ws/%E2%80%AEevil/plan/xyz'));
    await poll(() => page.locator('#elsewhere').isVisible()).toBe(true);
    await poll(() => page.title()).toMatch(/^Not “.*evil” · PlanHub · ws$/);
    expect(await page.title()).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
    expect(errors).toEqual([]);
  });

  it('focuses the heading of a plan page opened by a deep link or a reload', async () => {
    const node = await dashboardNode(cleanups);
    const planner = await dashboardAgent(cleanups, node.url, 'planner');
    const { plan_id } = await planner.createPlan({ title: 'Deep link', steps: ['Build'] });
    const { page, errors } = await openDashboard(suite.browser, cleanups, node.url, {
      hash: `#/ws/ws/plan/${plan_id}`,
    });
    await page.locator('#page-h').waitFor();
    await poll(() => focused(page)).toBe('page-h');
    await page.reload();
    await page.locator('#page-h').waitFor();
    await poll(() => focused(page)).toBe('page-h');
    expect(errors).toEqual([]);
  });

  it('gives back and forward to the events, graph and overview views a focus target', async () => {
    const node = await dashboardNode(cleanups);
    const planner = await dashboardAgent(cleanups, node.url, 'planner');
    const { plan_id } = await planner.createPlan({ title: 'Back and forth', steps: ['Build'] });
    const { page, errors } = await openDashboard(suite.browser, cleanups, node.url);
    for (const [view, target] of [
      ['events', 'events-h'],
      ['graph', 'dependencies-h'],
      ['', 'main'],
    ] as const) {
      await page.evaluate((hash) => (window.location.hash = hash), `#/ws/ws${view ? `/${view}` : ''}`);
      await page.evaluate((id) => (window.location.hash = `#/ws/ws/plan/${id}`), plan_id);
      await poll(() => focused(page)).toBe('page-h');
      await page.goBack();
      await poll(() => page.evaluate(() => document.getElementById('app')?.dataset.view)).toBe(view || 'overview');
      await poll(() => focused(page)).toBe(target);
    }
    expect(errors).toEqual([]);
  });

  it('says so when a link names another workspace, and offers to open it', async () => {
    const node = await dashboardNode(cleanups);
    const page = await suite.browser.newPage();
    cleanups.push(() => page.close());
    const errors = watchPageErrors(page);
    await page.goto(`${node.url}/dashboard?workspace=ws&agent=alice&role=user#/ws/other/plan/xyz`);
    await page.locator('#connection.live').waitFor();
    const told = page.locator('#elsewhere');
    await poll(() => told.textContent()).toContain('This link is for the workspace “other”');
    await poll(() => focused(page)).toBe('elsewhere-h');
    expect(await page.title()).toBe('Not “other” · PlanHub · ws');
    const open = page.locator('#elsewhere-open');
    expect(await open.getAttribute('href')).toBe('/dashboard?workspace=other&agent=alice&role=user#/ws/other/plan/xyz');
    // Back to a link of this workspace: the note goes.
    await page.evaluate(() => (window.location.hash = '#/ws/ws'));
    await poll(() => told.isHidden()).toBe(true);
    expect(errors).toEqual([]);
  });
});
