import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { connect } from '@planhub/client-sdk';
import { poll } from '../helpers/eventually.ts';
import { spendWindow } from '../helpers/spend-window.ts';
import { browserSuite, watchPageErrors } from './chromium.ts';
import { dashboardAgent, dashboardNode, openDashboard } from './dashboard-node.ts';
import { startTcpBalancer } from '../helpers/tcp-balancer.ts';

/** The tools the page calls from now on, one entry per call, read from the socket.io frames it sends. */
const callsSent = (page: Page) => {
  const tools: string[] = [];
  page.on('websocket', (ws) =>
    ws.on('framesent', ({ payload }) => {
      const tool = /"tool":"(\w+)"/.exec(String(payload))?.[1];
      if (tool) tools.push(tool);
    }),
  );
  return tools;
};

/** How plan pages are read: within the page's own call budget, and only the one shown after a reconnection. */
describe('dashboard plan pages', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  it('waits out a refusal for its rate with words for a person, then shows the plan by itself', async () => {
    const node = await dashboardNode(cleanups, { limits: { callsPerSecond: 2, rateWindowSeconds: 6 } });
    const { page, errors } = await openDashboard(suite.browser, cleanups, node.url);
    const planner = await dashboardAgent(cleanups, node.url, 'planner');
    const { plan_id } = await planner.createPlan({ title: 'Opened too fast', steps: ['one'] });
    await poll(() => page.locator(`.plan[data-plan-id="${plan_id}"]`).count()).toBe(1);

    // Another connection of the page's agent spends its window, as plan pages opened in quick succession did.
    const alice = await connect({ url: node.url, workspace: 'ws', agentId: 'alice', role: 'user', retries: 0 });
    cleanups.push(() => alice.close());
    expect((await spendWindow(alice)).code).toBe('RESOURCE_EXHAUSTED');
    await page.evaluate((id) => (window.location.hash = `#/ws/ws/plan/${id}`), plan_id);
    const body = page.locator('.page-body');
    await poll(() => body.textContent()).toContain('asked this page to slow down');
    expect(await body.textContent()).not.toContain('instead of polling');
    await page.locator(`.page[data-plan-id="${plan_id}"] #page-h`).waitFor({ timeout: 15_000 });
    expect(await body.textContent()).not.toContain('slow down');
    expect(errors).toEqual([]);
  });

  it('does not read a rate-refused plan again once the reader left it, but when it is opened again', async () => {
    const node = await dashboardNode(cleanups, { limits: { callsPerSecond: 2, rateWindowSeconds: 6 } });
    const page = await suite.browser.newPage();
    cleanups.push(() => page.close());
    const errors = watchPageErrors(page);
    // Listened to before the page opens its socket: the event names a socket when it opens.
    const tools = callsSent(page);
    await page.goto(`${node.url}/dashboard?workspace=ws&agent=alice&role=user`);
    await page.locator('#connection.live').waitFor();
    const planner = await dashboardAgent(cleanups, node.url, 'planner');
    const { plan_id } = await planner.createPlan({ title: 'Left while refused', steps: ['one'] });
    await poll(() => page.locator(`.plan[data-plan-id="${plan_id}"]`).count()).toBe(1);
    const alice = await connect({ url: node.url, workspace: 'ws', agentId: 'alice', role: 'user', retries: 0 });
    cleanups.push(() => alice.close());
    const refusal = await spendWindow(alice);
    const wait = (refusal.details as { retry_after_ms: number }).retry_after_ms;
    await page.evaluate((id) => (window.location.hash = `#/ws/ws/plan/${id}`), plan_id);
    await poll(() => page.locator('.page-body').textContent()).toContain('asked this page to slow down');
    const readsBefore = tools.filter((t) => t === 'getPlanStatus').length;
    await page.evaluate(() => (window.location.hash = '#/ws/ws'));
    // Past the time the refusal named: the retry would have been sent by now, for a page nobody looks at.
    await page.waitForTimeout(wait + 1500);
    expect(tools.filter((t) => t === 'getPlanStatus')).toHaveLength(readsBefore);
    await page.evaluate((id) => (window.location.hash = `#/ws/ws/plan/${id}`), plan_id);
    await page.locator(`.page[data-plan-id="${plan_id}"] #page-h`).waitFor({ timeout: 15_000 });
    expect(tools.filter((t) => t === 'getPlanStatus')).toHaveLength(readsBefore + 1);
    expect(errors).toEqual([]);
  });

  it('reads only the shown plan again after a reconnection, not every plan visited', async () => {
    const node = await dashboardNode(cleanups);
    const proxy = await startTcpBalancer([new URL(node.url)]);
    cleanups.push(() => proxy.close());
    const { page, errors } = await openDashboard(suite.browser, cleanups, proxy.url);
    const planner = await dashboardAgent(cleanups, node.url, 'planner');
    const ids: string[] = [];
    for (const title of ['First', 'Second', 'Third', 'Fourth'])
      ids.push((await planner.createPlan({ title, steps: ['one'] })).plan_id);
    for (const id of ids) {
      await page.evaluate((plan) => (window.location.hash = `#/ws/ws/plan/${plan}`), id);
      await page.locator(`.page[data-plan-id="${id}"] #page-h`).waitFor();
    }
    const tools = callsSent(page);
    proxy.down(0);
    proxy.cut();
    await poll(() => page.locator('#connection').getAttribute('class')).not.toContain('live');
    proxy.up(0);
    await page.locator('#connection.live').waitFor();
    await poll(() => tools.includes('subscribeToTasks')).toBe(true);
    await poll(() => tools.filter((t) => t === 'getPlanStatus').length).toBe(1);
    // Time for the reads of the other plans, had they been sent.
    await page.waitForTimeout(1000);
    expect(tools.filter((t) => t === 'getPlanStatus')).toHaveLength(1);
    expect(tools.filter((t) => t === 'getTaskEvents').length).toBeLessThanOrEqual(1);
    // An earlier plan opened again is read then.
    await page.evaluate((plan) => (window.location.hash = `#/ws/ws/plan/${plan}`), ids[0]!);
    await poll(() => page.locator('#page-h').textContent()).toContain('First');
    expect(errors).toEqual([]);
  });
});
