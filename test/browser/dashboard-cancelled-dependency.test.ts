import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { dashboardAgent, dashboardNode, openDashboard } from './dashboard-node.ts';
import { browserSuite } from './chromium.ts';
import { seriousA11yFindings } from './dashboard-checks.ts';

/** Each dependency in the "As a list" view, as `waiting step -> target: class text`. */
const listedDependencies = (page: Page) =>
  page
    .locator('.dep-list li.edge')
    .evaluateAll((edges) =>
      edges.flatMap((edge) =>
        Array.from(
          edge.querySelectorAll('li.dep'),
          (dep) =>
            `${edge.getAttribute('data-edge')} -> ${dep.getAttribute('data-dep')}: ${dep.className} ${dep.textContent}`,
        ),
      ),
    );

/** Each arrow of the graph, as `waiting step -> target: class`, plans left out. */
const drawnEdges = (page: Page) =>
  page.locator('path.gedge').evaluateAll((paths) =>
    paths.map((p) => {
      const [from = '', to = ''] = (p.getAttribute('data-id') ?? '').split('\u0001');
      const step = (id: string) => `${id.split('\u0000')[0]}:${id.split('\u0000')[2]}`;
      return `${step(from)} -> ${step(to)}: ${p.getAttribute('class')}`;
    }),
  );

/**
 * A cancelled plan skips its open steps. Its waiters receive the skip and stop waiting on them; its own skipped steps
 * give their waits up. The page says both, as the server's state and events do, also after the target ends later.
 */
describe('the dashboard after a plan with dependencies is cancelled', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  it('shows the skipped step’s waits as given up and its waiters’ dependency as resolved', async () => {
    const { url } = await dashboardNode(cleanups, { approvalPolicy: 'auto' });
    const impl = await dashboardAgent(cleanups, url, 'impl');
    const main = await dashboardAgent(cleanups, url, 'main');
    const rev = await dashboardAgent(cleanups, url, 'rev');
    await impl.createPlan({ title: 'Impl', steps: ['Write', 'Test'] });
    await impl.startPlan({});
    await main.createPlan({ title: 'Main', steps: ['Prep'] });
    const { plan_id: mainPlan } = await main.startPlan({});
    await main.addDependentStep({ description: 'Review write', depends_on: [{ agent_id: 'impl', step_id: 'step_1' }] });
    await rev.createPlan({ title: 'Rev', steps: ['Look'] });
    await rev.startPlan({});
    await rev.addDependentStep({
      description: 'After review',
      depends_on: [
        { agent_id: 'main', step_id: 'step_2', plan_id: mainPlan },
        { agent_id: 'impl', step_id: 'step_2' },
      ],
    });

    const { page, errors } = await openDashboard(suite.browser, cleanups, url, { hash: '#/ws/ws/graph' });
    await poll(() => page.locator('.graph').getAttribute('data-shape')).toBe('4');
    await page.locator('details.dep-list summary').click();
    await poll(() => drawnEdges(page).then((e) => e.sort())).toEqual([
      'main:step_2 -> impl:step_1: gedge open',
      'rev:step_2 -> impl:step_2: gedge open',
      'rev:step_2 -> main:step_2: gedge open',
    ]);

    await main.completePlan({ status: 'cancelled' });
    // The server: the waiter no longer waits on the skipped step, and the skipped step's wait is gone.
    const rest = await rev.getWorkspace({});
    const revStep = rest.agents.find((a) => a.agent_id === 'rev')?.plans[0]?.steps.find((s) => s.id === 'step_2');
    expect(revStep?.blocked_by?.map((d) => `${d.agent_id}:${d.step_id}`)).toEqual(['impl:step_2']);

    const afterCancel = [
      'main:step_2 -> impl:step_1: dep given-up – impl:step_1 Write — given up (skipped before it ended)',
      'rev:step_2 -> impl:step_2: dep open … impl:step_2 Test — waiting (pending)',
      'rev:step_2 -> main:step_2: dep resolved ✓ main:step_2 Review write — resolved (skipped)',
    ];
    const edgesAfterCancel = [
      'main:step_2 -> impl:step_1: gedge given-up',
      'rev:step_2 -> impl:step_2: gedge open',
      'rev:step_2 -> main:step_2: gedge resolved',
    ];
    await poll(() => listedDependencies(page).then((d) => d.sort())).toEqual(afterCancel);
    await poll(() => drawnEdges(page).then((e) => e.sort())).toEqual(edgesAfterCancel);

    // The target the skipped step gave up on ends later: the server delivers nothing to it, so it stays given up.
    await impl.setStepStatus({ step_id: 'step_1', status: 'completed' });
    await poll(() => page.locator('a.gnode[data-node="impl:step_1"]').getAttribute('data-status')).toBe('completed');
    const { events } = await main.getTaskEvents({ plan_id: mainPlan });
    expect(events.filter((e) => e.event_type === 'step_unblocked')).toEqual([]);
    await poll(() => listedDependencies(page).then((d) => d.sort())).toEqual(afterCancel);
    expect((await drawnEdges(page)).sort()).toEqual(edgesAfterCancel);

    // A fresh page reads the same from the overview alone.
    await page.reload();
    await page.locator('#connection.live').waitFor();
    await poll(() => page.locator('.graph').getAttribute('data-shape')).toBe('4');
    await page.locator('details.dep-list summary').click();
    await poll(() => listedDependencies(page).then((d) => d.sort())).toEqual(afterCancel);
    expect((await drawnEdges(page)).sort()).toEqual(edgesAfterCancel);
    expect(await seriousA11yFindings(page)).toEqual([]);

    // The skipped step's page and its plan card say the same.
    await page.goto(`${url}/dashboard?workspace=ws&agent=alice&role=user#/ws/ws/plan/${mainPlan}/step/step_2`);
    const waitsOn = page.locator('section.page ul.deps').first().locator('li');
    await poll(() => waitsOn.evaluateAll((li) => li.map((l) => `${l.className} ${l.textContent}`))).toEqual([
      'given-up impl · step_1 — given up (skipped before it ended)',
    ]);
    await page.goto(`${url}/dashboard?workspace=ws&agent=alice&role=user#/ws/ws`);
    const card = page.locator(`.plan[data-plan-id="${mainPlan}"] li.step[data-step-id="step_2"]`);
    await poll(() => card.getAttribute('data-status')).toBe('skipped');
    expect(await card.locator('.waits').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('shows the waits of a step its completed plan left open as given up, live and after a reload', async () => {
    const { url } = await dashboardNode(cleanups, { approvalPolicy: 'auto' });
    const impl = await dashboardAgent(cleanups, url, 'impl');
    const main = await dashboardAgent(cleanups, url, 'main');
    await impl.createPlan({ title: 'Impl', steps: ['Write'] });
    await impl.startPlan({});
    await main.createPlan({ title: 'Main', steps: ['Prep'] });
    const { plan_id: mainPlan } = await main.startPlan({});
    await main.addDependentStep({ description: 'Review write', depends_on: [{ agent_id: 'impl', step_id: 'step_1' }] });
    await main.setStepStatus({ step_id: 'step_1', status: 'completed' });

    const { page, errors } = await openDashboard(suite.browser, cleanups, url, { hash: '#/ws/ws/graph' });
    await page.locator('details.dep-list summary').click();
    await poll(() => drawnEdges(page)).toEqual(['main:step_2 -> impl:step_1: gedge open']);
    // Completed with step_2 still blocked: it stays blocked, and waits for nothing any more.
    await main.completePlan({ status: 'completed' });
    const givenUp = [
      'main:step_2 -> impl:step_1: dep given-up – impl:step_1 Write — given up (its plan was completed first)',
    ];
    await poll(() => listedDependencies(page)).toEqual(givenUp);
    await poll(() => drawnEdges(page)).toEqual(['main:step_2 -> impl:step_1: gedge given-up']);
    // Its target ends later: nothing is delivered, and the page does not call the wait resolved.
    await impl.setStepStatus({ step_id: 'step_1', status: 'completed' });
    await poll(() => page.locator('a.gnode[data-node="impl:step_1"]').getAttribute('data-status')).toBe('completed');
    const { events } = await main.getTaskEvents({ plan_id: mainPlan });
    expect(events.filter((e) => e.event_type === 'step_unblocked')).toEqual([]);
    expect(await listedDependencies(page)).toEqual(givenUp);
    await page.reload();
    await page.locator('#connection.live').waitFor();
    await page.locator('details.dep-list summary').click();
    await poll(() => listedDependencies(page)).toEqual(givenUp);
    expect(errors).toEqual([]);
  });
});
