import { connect } from '@planhub/client-sdk';
import { createServer, type PlanHubServer } from '@planhub/server';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { spendWindow } from '../helpers/spend-window.ts';
import { browserSuite, watchPageErrors } from './chromium.ts';

/** The page's agent may make this many calls per window: few enough to spend from a second connection at once. */
const LIMITS = { callsPerSecond: 2, rateWindowSeconds: 6 };

describe('dashboard catching up after a refused call', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  it('keeps trying while it stays connected, then shows what it missed instead of staying live and deaf', async () => {
    const server: PlanHubServer = createServer({ port: 0, logLevel: 'silent', approvalPolicy: 'auto', limits: LIMITS });
    const { url } = await server.listen();
    cleanups.push(() => server.close());
    // The board's window is spent from another connection of the same agent, so the page's first calls are refused.
    const board = await connect({ url, workspace: 'ws', agentId: 'board', role: 'dashboard', retries: 0 });
    cleanups.push(() => board.close());
    expect((await spendWindow(board)).code).toBe('RESOURCE_EXHAUSTED');

    const page: Page = await suite.browser.newPage();
    cleanups.push(() => page.close());
    const errors = watchPageErrors(page);
    await page.goto(`${url}/dashboard?workspace=ws&agent=board`);
    await page.locator('#connection.live').waitFor();
    await poll(() => page.locator('#notice').textContent()).toContain('Too many calls');

    // Committed while the page is still refused: it reaches the page by the catch-up's replay or live.
    const agent = await connect({ url, workspace: 'ws', agentId: 'main' });
    cleanups.push(() => agent.close());
    const { plan_id } = await agent.createPlan({ title: 'Seen late', steps: ['one'] });
    await poll(() => page.locator(`.feed [data-type="plan_created"]`).count()).toBe(1);
    await poll(() => page.locator('#notice').textContent()).toBe('');
    await agent.startPlan({ plan_id });
    await poll(() => page.locator(`.feed [data-type="plan_started"]`).count()).toBe(1);
    await poll(() => page.locator(`.plan[data-plan-id="${plan_id}"]`).getAttribute('data-status')).toBe('in_progress');
    expect(errors).toEqual([]);
  });

  it('reads the overview again after a refused re-read, so a new plan shows without waiting for another event', async () => {
    const server: PlanHubServer = createServer({ port: 0, logLevel: 'silent', approvalPolicy: 'auto', limits: LIMITS });
    const { url } = await server.listen();
    cleanups.push(() => server.close());
    const page: Page = await suite.browser.newPage();
    cleanups.push(() => page.close());
    const errors = watchPageErrors(page);
    await page.goto(`${url}/dashboard?workspace=ws&agent=board`);
    await page.locator('#connection.live').waitFor();
    const agent = await connect({ url, workspace: 'ws', agentId: 'main' });
    cleanups.push(() => agent.close());
    // Caught up and live: main's arrival is pushed to the page.
    await poll(() => page.locator('.feed [data-type="agent_online"]').count()).toBe(1);

    // plan_created asks the page to re-read the overview; that read is refused, as the board's window is spent.
    const board = await connect({ url, workspace: 'ws', agentId: 'board', role: 'dashboard', retries: 0 });
    cleanups.push(() => board.close());
    expect((await spendWindow(board)).code).toBe('RESOURCE_EXHAUSTED');
    const { plan_id } = await agent.createPlan({ title: 'Shown late', steps: ['one'] });
    await poll(() => page.locator('#notice').textContent()).toContain('Too many calls');
    await poll(() => page.locator(`.plan[data-plan-id="${plan_id}"]`).count()).toBe(1);
    await poll(() => page.locator('#notice').textContent()).toBe('');
    expect(errors).toEqual([]);
  });

  it('connects once a full agent frees a slot, instead of staying refused', async () => {
    const server: PlanHubServer = createServer({
      port: 0,
      logLevel: 'silent',
      approvalPolicy: 'auto',
      limits: { connectionsPerAgent: 1 },
    });
    const { url } = await server.listen();
    cleanups.push(() => server.close());
    // Another client of the page's agent holds the agent's only connection slot.
    const holder = await connect({ url, workspace: 'ws', agentId: 'board', role: 'dashboard' });
    cleanups.push(() => holder.close());

    const page: Page = await suite.browser.newPage();
    cleanups.push(() => page.close());
    await page.goto(`${url}/dashboard?workspace=ws&agent=board`);
    const pill = page.locator('#connection');
    await poll(() => pill.getAttribute('title')).toContain('Too many connections');
    expect(await pill.getAttribute('class')).toContain('reconnecting');

    holder.close();
    await pill.and(page.locator('.live')).waitFor({ timeout: 15_000 });
    const agent = await connect({ url, workspace: 'ws', agentId: 'main' });
    cleanups.push(() => agent.close());
    await agent.createPlan({ title: 'After the wait', steps: ['one'] });
    await poll(() => page.locator(`.feed [data-type="plan_created"]`).count()).toBe(1);
  });
});
