import { connect, type PlanHubClient } from '@planhub/client-sdk';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { startServerProcess } from '../helpers/server-process.ts';
import { startTcpBalancer } from '../helpers/tcp-balancer.ts';
import { browserSuite, screenshot, watchPageErrors } from './chromium.ts';
import { seriousA11yFindings } from './dashboard-checks.ts';

/**
 * The feed as a reader sees it, newest first: each break line, and each plan_created with its plan's title and
 * whether it still links its plan.
 */
const feedRows = (page: Page): Promise<string[]> =>
  page.$$eval('.feed > li', (items) =>
    items.flatMap((li) => {
      if (li.classList.contains('restart-mark')) return [`break ${li.getAttribute('data-history')}`];
      if (li.getAttribute('data-type') !== 'plan_created') return [];
      const what = li.querySelector('.what');
      return [`${what?.textContent} ${what?.querySelector('a') ? 'linked' : 'unlinked'}`];
    }),
  );

describe('dashboard when the node restarts on the memory store', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  it('cuts the feed at each restart, unlinks what came before, shows the new state, and stays live', async () => {
    const node = await startServerProcess({ env: { PLANHUB_STORE: 'memory', PLANHUB_APPROVAL_POLICY: 'auto' } });
    cleanups.push(() => node.stop('SIGKILL'));
    // The page reaches the node through a proxy the test can close to new connections: it comes back when told.
    const proxy = await startTcpBalancer([new URL(node.url)]);
    cleanups.push(() => proxy.close());
    const agent = async (agentId: string): Promise<PlanHubClient> => {
      const client = await connect({ url: node.url, workspace: 'ws', agentId });
      cleanups.push(() => client.close());
      return client;
    };

    const first = await agent('first');
    const before = await first.createPlan({ title: 'Before restart', steps: ['one'] });
    const page = await suite.browser.newPage({ viewport: { width: 1280, height: 860 } });
    cleanups.push(() => page.close());
    const errors = watchPageErrors(page);
    await page.goto(`${proxy.url}/dashboard?workspace=ws&agent=alice&role=user`);
    await page.locator('#connection.live').waitFor();
    await poll(() => feedRows(page)).toEqual(['Before restart linked']);

    // Restarted with nothing written yet: the new log is empty, and the overview is older than what the page saw.
    first.close();
    await node.stop('SIGKILL');
    await node.restart();
    await poll(() => page.locator('#feed-restart-1').count()).toBe(1);
    expect(await page.locator('#feed-restart-1').textContent()).toContain(
      'the server’s store restarted without its earlier history',
    );
    await poll(() => feedRows(page)).toEqual(['break 1', 'Before restart unlinked']);
    await page.locator('#connection.live').waitFor();
    expect(await page.locator(`.plan[data-plan-id="${before.plan_id}"]`).count()).toBe(0);
    // Nothing older can be read: the log it came from is gone.
    expect(await page.locator('#feed-older').count()).toBe(0);

    // Live updates go on after the break, above it and linked.
    const second = await agent('second');
    const between = await second.createPlan({ title: 'Between restarts', steps: ['one'] });
    await poll(() => feedRows(page)).toEqual(['Between restarts linked', 'break 1', 'Before restart unlinked']);
    await poll(() => page.locator(`.plan[data-plan-id="${between.plan_id}"]`).count()).toBe(1);

    // Restarted again, and written to before the page is back: the new log's ids are above the page's cursor (the
    // memory store's ids are the clock's), so the node resumes the page's stream without marking anything.
    proxy.down(0);
    second.close();
    await node.stop('SIGKILL');
    await node.restart();
    await poll(() => page.locator('#connection').getAttribute('class')).not.toContain('live');
    const third = await agent('third');
    const after = await third.createPlan({ title: 'After the second restart', steps: ['one'] });
    proxy.up(0);
    await poll(() => feedRows(page)).toEqual([
      'After the second restart linked',
      'break 2',
      'Between restarts unlinked',
      'break 1',
      'Before restart unlinked',
    ]);
    await page.locator('#connection.live').waitFor();
    await poll(() => page.locator(`.plan[data-plan-id="${after.plan_id}"]`).count()).toBe(1);
    await screenshot(page, 'dashboard-store-restart');
    expect(await seriousA11yFindings(page)).toEqual([]);
    expect(await page.locator(`.plan[data-plan-id="${between.plan_id}"]`).count()).toBe(0);

    // A plan of an earlier history says what became of it, rather than that retention removed it.
    await page.evaluate((id) => (window.location.hash = `#/ws/ws/plan/${id}`), between.plan_id);
    await poll(() => page.locator('main').textContent()).toContain('the node’s store restarted without its earlier');
    // And the page still follows the new history.
    await third.startPlan({});
    await third.setStepStatus({ step_id: 'step_1', status: 'completed', result: 'done' });
    await page.evaluate(() => (window.location.hash = '#/ws/ws'));
    const step = page.locator(`.plan[data-plan-id="${after.plan_id}"] [data-step-id="step_1"]`);
    await poll(() => step.getAttribute('data-status')).toBe('completed');
    // Chromium logs each refused WebSocket while the server is down; that is the outage, not a fault of the page.
    expect(errors.filter((e) => !e.includes('WebSocket'))).toEqual([]);
  });
});
