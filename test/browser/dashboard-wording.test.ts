import type { ServerConfigInput } from '@planhub/server';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { dashboardAgent, dashboardNode } from './dashboard-node.ts';
import { browserSuite, watchPageErrors } from './chromium.ts';
import { seriousA11yFindings } from './dashboard-checks.ts';

/** What the dashboard says about a step or a decision is what the server and the API say. */
describe('the dashboard’s wording', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  const start = async (config: ServerConfigInput = {}) => (await dashboardNode(cleanups, config)).url;
  const agent = (url: string, agentId: string) => dashboardAgent(cleanups, url, agentId);
  const open = async (url: string, query: string, hash = '', viewport = { width: 1280, height: 860 }) => {
    const page: Page = await suite.browser.newPage({ viewport });
    cleanups.push(() => page.close());
    const errors = watchPageErrors(page);
    await page.goto(`${url}/dashboard?${query}${hash}`);
    await page.locator('#connection.live').waitFor();
    return { page, errors };
  };

  it('tells a read-only page to open the dashboard under the person’s own name to decide', async () => {
    const url = await start();
    const planner = await agent(url, 'planner');
    await planner.createPlan({ title: 'Roll out', steps: ['Canary'] });
    await planner.startPlan({ wait: false });
    const { page, errors } = await open(url, 'workspace=ws', '', { width: 390, height: 844 });
    const hint = page.locator('.approval [data-hint="read-only"]');
    await poll(() => hint.textContent()).toBe(
      'Read-only view: to approve or reject, open the dashboard as yourself: ?workspace=ws&agent=<your name>&role=user',
    );
    expect(await page.locator('.approval button.approve').count()).toBe(0);
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth)).toBe(0);
    expect(await seriousA11yFindings(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('shows an unblocked step as pending with an unblocked mark in the plan card, the graph and the list alike', async () => {
    const url = await start({ approvalPolicy: 'auto' });
    const implementer = await agent(url, 'implementer');
    await implementer.createPlan({ title: 'Implement login', steps: ['Write the handler'] });
    await implementer.startPlan({});
    const main = await agent(url, 'main');
    await main.createPlan({ title: 'Ship login', steps: ['Spawn the implementer'] });
    const { plan_id } = await main.startPlan({});
    await main.addDependentStep({
      description: 'Review the implementation',
      depends_on: [{ agent_id: 'implementer', step_id: 'step_1' }],
    });
    const { page, errors } = await open(url, 'workspace=ws&agent=alice&role=user');
    const step = page.locator('[data-agent-id="main"] .step[data-step-id="step_2"]');
    const node = page.locator('.graph a.gnode[data-node="main:step_2"]');
    await poll(() => node.getAttribute('data-status')).toBe('blocked');
    expect(await step.locator('.badge.unblocked').count()).toBe(0);

    await implementer.setStepStatus({ step_id: 'step_1', status: 'completed', result: 'written' });
    await poll(() => step.getAttribute('data-status')).toBe('pending');
    // Read while the "just unblocked" highlight is still on: it once took the status badge's place.
    expect(await step.locator('.badge.status-pending').textContent()).toBe('pending');
    expect(await step.locator('.badge.unblocked').textContent()).toBe('unblocked');
    await poll(() => node.locator('.gstatus').textContent()).toBe('pending · unblocked');
    const edge = page.locator('.dep-list [data-edge="main:step_2"]');
    expect(await edge.locator('.badge.status-pending').textContent()).toBe('pending');
    expect(await edge.locator('.badge.unblocked').textContent()).toBe('unblocked');
    const status = await main.getPlanStatus({ plan_id });
    expect(status.steps.find((s) => s.id === 'step_2')?.status).toBe('pending');

    // Once it starts it is no longer "unblocked": the mark says a pending step may start, nothing more.
    await main.setStepStatus({ step_id: 'step_2', status: 'in_progress' });
    await poll(() => node.locator('.gstatus').textContent()).toBe('in progress');
    expect(await step.locator('.badge.unblocked').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('shows on the timeline a step completed without ever being reported in progress, as a dot at its end', async () => {
    const url = await start({ approvalPolicy: 'auto' });
    const worker = await agent(url, 'worker');
    await worker.createPlan({ title: 'Quick jobs', steps: ['Tidy up', 'Write it down'] });
    await worker.startPlan({});
    await worker.setStepStatus({ step_id: 'step_1', status: 'completed', result: 'tidy' });
    const { page, errors } = await open(url, 'workspace=ws&agent=alice&role=user', '#/ws/ws/timeline');
    const dot = page.locator('.bars a.bar[data-step-id="step_1"]');
    await poll(() => dot.getAttribute('class')).toBe('bar point status-completed');
    expect(await dot.getAttribute('aria-label')).toMatch(
      /^step_1 Tidy up: completed at \d\d:\d\d:\d\d, never reported in progress$/,
    );
    expect(await page.locator('[data-note="points"]').textContent()).toContain('without being reported in progress');

    // A step that did report its start is a bar from there, beside the dot.
    await worker.setStepStatus({ step_id: 'step_2', status: 'in_progress' });
    const bar = page.locator('.bars a.bar[data-step-id="step_2"]');
    await poll(() => bar.getAttribute('class')).toBe('bar span status-in_progress');
    expect(await page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth)).toBe(0);
    expect(await seriousA11yFindings(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
