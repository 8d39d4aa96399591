import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { dashboardAgent, dashboardNode, openDashboard } from './dashboard-node.ts';
import { browserSuite } from './chromium.ts';
import { seriousA11yFindings } from './dashboard-checks.ts';

/** The dependency graph beside its list: the same steps, each drawn once. */
describe('the dashboard’s dependency graph', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  it('draws two plans’ steps that share an id as two nodes, each with its own arrow, as the list shows them', async () => {
    const { url } = await dashboardNode(cleanups, { approvalPolicy: 'auto' });
    const impl = await dashboardAgent(cleanups, url, 'impl');
    const main = await dashboardAgent(cleanups, url, 'main');
    await impl.createPlan({ title: 'Impl work', steps: ['Write', 'Test'] });
    await impl.startPlan({});
    await main.createPlan({ title: 'Plan A', steps: ['Prep A'] });
    const { plan_id: planA } = await main.startPlan({});
    await main.addDependentStep({
      description: 'Review write (A)',
      depends_on: [{ agent_id: 'impl', step_id: 'step_1' }],
    });
    await main.completePlan({ status: 'cancelled' });
    await main.createPlan({ title: 'Plan B', steps: ['Prep B'] });
    const { plan_id: planB } = await main.startPlan({});
    await main.addDependentStep({
      description: 'Review test (B)',
      depends_on: [{ agent_id: 'impl', step_id: 'step_2' }],
    });

    const { page, errors } = await openDashboard(suite.browser, cleanups, url, { hash: '#/ws/ws/graph' });
    await poll(() => page.locator('.graph').getAttribute('data-shape')).toBe('4');

    const mains = page.locator('a.gnode[data-node="main:step_2"]');
    expect(
      (await mains.evaluateAll((as) => as.map((a) => `${a.getAttribute('href')} ${a.textContent}`))).sort(),
    ).toEqual(
      [
        `#/ws/ws/plan/${planA}/step/step_2 step_2 Review write (A) skipped`,
        `#/ws/ws/plan/${planB}/step/step_2 step_2 Review test (B) blocked`,
      ].sort(),
    );
    const edgeIds = await page.locator('path.gedge').evaluateAll((ps) => ps.map((p) => p.getAttribute('data-id')));
    expect(edgeIds).toHaveLength(2);
    // Each arrow ends at its own plan's step (edge ids name the waiting step first, the step waited on second).
    expect(
      edgeIds
        .map((id) =>
          id?.startsWith(`main\u0000${planA}\u0000`) ? 'A' : id?.startsWith(`main\u0000${planB}\u0000`) ? 'B' : id,
        )
        .sort(),
    ).toEqual(['A', 'B']);

    await page.locator('details.dep-list summary').click();
    expect(await page.locator('.dep-list li.edge').count()).toBe(await mains.count());
    expect(await seriousA11yFindings(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
