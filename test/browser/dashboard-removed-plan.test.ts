import { describe, expect, it } from 'vitest';
import { dashboardAgent, dashboardNode, openDashboard } from './dashboard-node.ts';
import { browserSuite } from './chromium.ts';

/**
 * A link to a finished plan the server no longer keeps (retention removed it): the page used to print the server's
 * refusal, written for an agent ("call getTaskEvents with plan_id … Call getPlanStatus without plan_id …"), and none
 * of the plan's history, which the page can read itself.
 */
describe('the plan page of a plan the server no longer keeps', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  it('says so in words for a person and shows what the log holds of it', async () => {
    const { url } = await dashboardNode(cleanups, { approvalPolicy: 'auto', finishedPlansKept: 1 });
    const agent = await dashboardAgent(cleanups, url, 'worker');
    const old = await agent.createPlan({ title: 'Old work', steps: ['Only step'] });
    await agent.startPlan({});
    await agent.setStepStatus({ step_id: 'step_1', status: 'completed' });
    await agent.completePlan({ status: 'completed' });
    await agent.createPlan({ title: 'Newer work', steps: ['Another'] });
    await agent.startPlan({});
    await agent.completePlan({ status: 'cancelled' });
    await expect(agent.getPlanStatus({ plan_id: old.plan_id })).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const { page, errors } = await openDashboard(suite.browser, cleanups, url, {
      hash: `#/ws/ws/plan/${old.plan_id}`,
    });
    const said = page.locator('main p.error');
    await said.waitFor();
    expect(await said.textContent()).toMatch(/^This plan is not kept any more/);
    expect(await said.textContent()).not.toMatch(/getTaskEvents|getPlanStatus/);
    const events = page.locator('section[aria-labelledby="plan-events-h"] ol.feed li');
    await events.first().waitFor();
    expect(await events.count()).toBeGreaterThanOrEqual(3);
    expect(errors).toEqual([]);
  });
});
