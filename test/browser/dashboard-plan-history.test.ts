import { createMemoryStore } from '@planhub/server';
import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { dashboardAgent, dashboardNode, openDashboard } from './dashboard-node.ts';
import { browserSuite } from './chromium.ts';

/** More log entries than one getTaskEvents call looks at (2,000), so a plan's events lie beyond the first call. */
const NEWER_ENTRIES = 2_200;
const WORKERS = 4;

/** A plan page opened long after its plan moved: its events are far back in the workspace's log. */
describe('the dashboard’s plan and step pages of an older plan', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  it('finds the plan’s events and the step’s status history behind the newest 2,000 log entries', async () => {
    const { url } = await dashboardNode(
      cleanups,
      { approvalPolicy: 'auto', limits: { callsPerSecond: 100_000 } },
      createMemoryStore({ eventRetention: 5_000 }),
    );
    const early = await dashboardAgent(cleanups, url, 'early');
    const plan = await early.createPlan({ title: 'Done long ago', steps: ['Lay the groundwork', 'Wait'] });
    await early.startPlan({});
    await early.setStepStatus({ step_id: 'step_1', status: 'in_progress' });
    await early.setStepStatus({ step_id: 'step_1', status: 'completed', result: 'laid' });
    await Promise.all(
      Array.from({ length: WORKERS }, async (_, w) => {
        const worker = await dashboardAgent(cleanups, url, `busy-${w}`);
        await worker.createPlan({ title: `Busy ${w}`, steps: ['Churn'] });
        await worker.startPlan({});
        // A repeated status with a new result is one more event in the log.
        for (let i = 0; i < NEWER_ENTRIES / WORKERS; i++)
          await worker.setStepStatus({ step_id: 'step_1', status: 'in_progress', result: `pass ${i}` });
      }),
    );

    const { page, errors } = await openDashboard(suite.browser, cleanups, url, {
      hash: `#/ws/ws/plan/${plan.plan_id}`,
    });
    const events = page.locator('section[aria-labelledby="plan-events-h"] li[data-type]');
    await poll(() => events.count()).toBeGreaterThanOrEqual(4);
    expect(await events.evaluateAll((all) => all.map((li) => li.getAttribute('data-type')))).toEqual(
      expect.arrayContaining(['plan_created', 'plan_started', 'step_started', 'step_completed']),
    );
    expect(await page.locator('[data-search="stopped"]').count()).toBe(0);

    await page.evaluate((id) => (window.location.hash = `#/ws/ws/plan/${id}/step/step_1`), plan.plan_id);
    const history = page.locator('ol.history li');
    await poll(() => history.evaluateAll((all) => all.map((li) => li.getAttribute('data-status')))).toEqual([
      'in_progress',
      'completed',
    ]);
    expect(errors).toEqual([]);
  });
});
