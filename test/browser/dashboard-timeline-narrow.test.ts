import { describe, expect, it } from 'vitest';
import { poll } from '../helpers/eventually.ts';
import { dashboardAgent, dashboardNode, openDashboard } from './dashboard-node.ts';
import { browserSuite } from './chromium.ts';

/** The timeline on a phone: a bar many times shorter than its padding still ends inside its lane. */
describe('the dashboard’s timeline on a narrow screen', () => {
  const suite = browserSuite();
  const { cleanups } = suite;

  it('keeps a short step at the right edge inside its lane at 375 px', async () => {
    const { url } = await dashboardNode(cleanups, { approvalPolicy: 'auto' });
    const worker = await dashboardAgent(cleanups, url, 'worker');
    await worker.createPlan({ title: 'Release', steps: ['Build', 'Tag'] });
    await worker.startPlan({});
    await worker.setStepStatus({ step_id: 'step_1', status: 'in_progress' });
    // Real time has to pass on the node's clock: the long step is what makes the last one's share of the lane tiny.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await worker.setStepStatus({ step_id: 'step_1', status: 'completed' });
    await worker.setStepStatus({ step_id: 'step_2', status: 'in_progress' });
    await worker.setStepStatus({ step_id: 'step_2', status: 'completed' });

    const { page, errors } = await openDashboard(suite.browser, cleanups, url, {
      hash: '#/ws/ws/timeline',
      width: 375,
    });
    await poll(() => page.locator('.bars a.bar').count()).toBe(2);
    const overflow = await page.evaluate(() =>
      Array.from(document.querySelectorAll('.bars')).flatMap((lane) => {
        const edge = lane.getBoundingClientRect().right;
        return Array.from(lane.querySelectorAll('.bar, .bar-text'))
          .map((el) => ({
            el: `${el.className} ${el.closest('a')?.dataset.stepId}`,
            right: el.getBoundingClientRect().right,
          }))
          .filter(({ right }) => right > edge + 0.5)
          .map(({ el, right }) => `${el} ends at ${Math.round(right)}, lane at ${Math.round(edge)}`);
      }),
    );
    expect(overflow).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(errors).toEqual([]);
  });
});
