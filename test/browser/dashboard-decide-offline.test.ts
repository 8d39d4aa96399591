import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { browserSuite } from './chromium.ts';
import { seriousA11yFindings } from './dashboard-checks.ts';
import { dashboardAgent, dashboardNode, openDashboard } from './dashboard-node.ts';
import { startTcpBalancer } from '../helpers/tcp-balancer.ts';

/**
 * A decision the page could not make says so and stays said. Pressing Approve while the page was not connected sent
 * the call into a dead connection; after 6–20 s the notice read only "operation has timed out", and the reconnect
 * that followed wiped it, so the reader believed the plan approved.
 */
describe('deciding while the dashboard is not connected', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  /**
   * A page that reaches its node through a proxy the test can cut or silence, as a network path fails, showing the
   * card of a plan `title` that waits for approval.
   */
  const waitingPlanBehindProxy = async (title: string) => {
    const node = await dashboardNode(cleanups);
    const proxy = await startTcpBalancer([new URL(node.url)]);
    cleanups.push(() => proxy.close());
    const { page, errors } = await openDashboard(suite.browser, cleanups, proxy.url);
    const planner = await dashboardAgent(cleanups, node.url, 'planner');
    const plan = await planner.createPlan({ title, steps: ['Canary'] });
    await planner.startPlan({ wait: false });
    const approve = page.locator(`#approval--${plan.plan_id}--approve`);
    await approve.waitFor();
    return { node, proxy, page, errors, planner, plan, approve };
  };

  it('marks Approve and Reject, sends nothing, and names the plan that still waits, across the reconnect', async () => {
    const { node, proxy, page, errors, planner, plan, approve } = await waitingPlanBehindProxy('Ship 4.2');
    expect(await approve.getAttribute('aria-disabled')).toBeNull();

    proxy.down(0);
    proxy.cut();
    await poll(() => page.locator('#connection').getAttribute('class')).not.toContain('live');
    await poll(() => approve.getAttribute('aria-disabled')).toBe('true');
    expect(await approve.getAttribute('aria-describedby')).toBe(`approval--${plan.plan_id}--offline`);
    await approve.focus();
    await page.keyboard.press('Enter');
    const notice = page.locator('#notice');
    await poll(() => notice.textContent()).toMatch(
      new RegExp(
        `^Not approved: the dashboard is not connected, so nothing was sent\\. "Ship 4\\.2" \\(${plan.plan_id}\\) still waits`,
      ),
    );
    expect(await planner.getPlanStatus({ plan_id: plan.plan_id })).toMatchObject({ status: 'awaiting_approval' });

    // Back online: the buttons work again, and the notice about the decision not made is still there.
    proxy.up(0);
    await page.locator('#connection.live').waitFor();
    await poll(() => approve.getAttribute('aria-disabled')).toBeNull();
    expect(await notice.textContent()).toMatch(/^Not approved: .*"Ship 4\.2"/);
    expect(await planner.getPlanStatus({ plan_id: plan.plan_id })).toMatchObject({ status: 'awaiting_approval' });
    // Decided by someone else: the plan no longer waits, and the notice that told this reader to decide goes.
    const colleague = await dashboardAgent(cleanups, node.url, 'bob', 'user');
    await colleague.plan_approve({ plan_id: plan.plan_id });
    await poll(() => notice.textContent()).toBe('');
    expect(errors).toEqual([]);
  });

  it('says a decision whose answer never came may not have been made, naming the plan, across the reconnect', async () => {
    const { proxy, page, errors, planner, plan, approve } = await waitingPlanBehindProxy('Ship 4.3');
    // The path goes silent: the page still counts itself live, and its call gets no answer until its deadline.
    proxy.stall();
    await approve.focus();
    await page.keyboard.press('Enter');
    const notice = page.locator('#notice');
    // The page's own call deadline is 15 s; the poll's patience is as long again.
    await expect
      .poll(() => notice.textContent(), { timeout: 30_000, interval: 50 })
      .toMatch(new RegExp(`^Maybe not approved: "Ship 4\\.3" \\(${plan.plan_id}\\) got no answer`));
    proxy.cut();
    await page.locator('#connection.live').waitFor();
    expect(await notice.textContent()).toMatch(/^Maybe not approved: "Ship 4\.3"/);
    await approve.waitFor();
    expect(await planner.getPlanStatus({ plan_id: plan.plan_id })).toMatchObject({ status: 'awaiting_approval' });
    expect(errors).toEqual([]);
  });

  it('names two agents’ plans of one title apart, as landmarks', async () => {
    const node = await dashboardNode(cleanups, { approvalPolicy: 'auto' });
    const { page, errors } = await openDashboard(suite.browser, cleanups, node.url);
    for (const agentId of ['front', 'back']) {
      const agent = await dashboardAgent(cleanups, node.url, agentId);
      await agent.createPlan({ title: 'Hotfix 4.2.1', steps: ['Patch'] });
      await agent.startPlan({});
    }
    await poll(() => page.locator('section.plan').count()).toBe(2);
    expect(await seriousA11yFindings(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
