import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { dashboardAgent, dashboardNode, openDashboard } from './dashboard-node.ts';
import { browserSuite } from './chromium.ts';

/** Each dependency in the "As a list" view, as `waiting step -> target: class text`. */
const listedDependencies = (page: Page) =>
  page
    .locator('.dep-list li.edge li.dep')
    .evaluateAll((deps) =>
      deps.map((dep) => `${dep.closest('li.edge')?.getAttribute('data-edge')}: ${dep.className} ${dep.textContent}`),
    );

/** Each arrow of the graph by its class, and each node as `agent:step status`. */
const drawing = (page: Page) =>
  page.evaluate(() => ({
    edges: Array.from(document.querySelectorAll('path.gedge'), (p) => p.getAttribute('class')),
    nodes: Array.from(
      document.querySelectorAll('a.gnode'),
      (a) => `${a.getAttribute('data-node')} ${a.getAttribute('data-status')}`,
    ).sort(),
  }));

/**
 * A person rejects the plan of a step another agent waits on. The step stays pending (its plan never ran), and the
 * server hands the waiter `{ status: 'skipped', result: 'plan rejected' }`: each view says the wait resolved with a
 * skip, as docs/dashboard.md "Given-up waits" promises, not that the step it waited on ended or is still pending.
 */
describe('the dashboard after the plan of a step waited on is rejected', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  it('shows the wait resolved (skipped) in the list, the graph and the step page', async () => {
    const { url } = await dashboardNode(cleanups);
    const carol = await dashboardAgent(cleanups, url, 'carol', 'user');
    const parent = await dashboardAgent(cleanups, url, 'parent');
    const sub = await dashboardAgent(cleanups, url, 'sub');
    await parent.createPlan({ title: 'Parent', steps: ['Prep'] });
    const started = await parent.startPlan({ wait: false });
    await carol.plan_approve({ plan_id: started.plan_id });
    await sub.createPlan({ title: 'Sub', steps: ['Collect'] });
    const { plan_id: subPlan } = await sub.startPlan({ wait: false });
    const wait = await parent.addDependentStep({
      description: 'Merge',
      depends_on: [{ agent_id: 'sub', step_id: 'step_1' }],
    });

    const { page, errors } = await openDashboard(suite.browser, cleanups, url, { hash: '#/ws/ws/graph' });
    await page.locator('details.dep-list summary').click();
    await poll(() => listedDependencies(page)).toEqual([
      'parent:step_2: dep open … sub:step_1 Collect — waiting (pending)',
    ]);

    await carol.plan_reject({ plan_id: subPlan, reason: 'no' });
    // The server: the target stays pending, and the waiter received a skip.
    const { steps } = await parent.getPlanStatus({ plan_id: wait.plan_id });
    const received = steps.find((s) => s.step_id === wait.step_id)?.received_outputs;
    expect(received?.['sub:step_1']).toMatchObject({ status: 'skipped', result: 'plan rejected' });
    const { agents } = await carol.getWorkspace({});
    expect(agents.find((a) => a.agent_id === 'sub')?.plans[0]?.steps[0]?.status).toBe('pending');

    const resolved = ['parent:step_2: dep resolved ✓ sub:step_1 Collect — resolved (skipped)'];
    const drawn = { edges: ['gedge resolved'], nodes: ['parent:step_2 pending', 'sub:step_1 skipped'] };
    await poll(() => listedDependencies(page)).toEqual(resolved);
    await poll(() => drawing(page)).toEqual(drawn);
    // A fresh page reads the same from the overview alone.
    await page.reload();
    await page.locator('#connection.live').waitFor();
    await page.locator('details.dep-list summary').click();
    await poll(() => listedDependencies(page)).toEqual(resolved);
    await poll(() => drawing(page)).toEqual(drawn);

    await page.evaluate(({ planId, stepId }) => (window.location.hash = `#/ws/ws/plan/${planId}/step/${stepId}`), {
      planId: wait.plan_id,
      stepId: wait.step_id,
    });
    const waitsOn = page.locator('section.page ul.deps').first().locator('li');
    await poll(() => waitsOn.evaluateAll((li) => li.map((l) => `${l.className} ${l.textContent}`))).toEqual([
      'resolved sub · step_1 — resolved (skipped)',
    ]);
    expect(errors).toEqual([]);
  });
});
